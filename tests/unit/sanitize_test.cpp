// sanitize_test.cpp: reading compute-sanitizer's logs for `run --sanitize` (app/sanitize/):
// the four tools in today's format (tests/data/sanitize/*.log) and CUDA 11's, racecheck's
// hazard report, unknown lines and kinds, summary cross-checks, the closing table, where the
// tool is looked for and the child's command line.
#include <gtest/gtest.h>
#include <unistd.h>
#include "test_paths.hpp"  // WARPLAB_SOURCE_DIR, WARPLAB_CUDA_H

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "app/sanitize/log.hpp"
#include "app/sanitize/rerun.hpp"

using namespace warplab::app::sanitize;

namespace {

const std::string kRoot = "/home/u/warplab";
const std::string kFile = kRoot + "/kernels_src/sanitize/planted.cu";

// A fixture with @ROOT@ replaced by kRoot.
std::string fixture(const std::string& name) {
  std::ifstream in(std::string(WARPLAB_SOURCE_DIR) + "/tests/data/sanitize/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  EXPECT_FALSE(s.empty()) << name;
  for (std::size_t at; (at = s.find("@ROOT@")) != std::string::npos;) s.replace(at, 6, kRoot);
  return s;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(Sanitize, RacecheckAnalysisRecord) {
  const Report r = parse_log(fixture("racecheck.log"));
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.kernel, "planted_race");
  EXPECT_EQ(f.file, kFile);
  EXPECT_EQ(f.line, 25);
  EXPECT_EQ(f.kind, "race between Write and Read access");
  EXPECT_EQ(f.detail, "shared memory, the Read at line 27");
  EXPECT_EQ(f.count, 7936);
  EXPECT_FALSE(f.warning);
  EXPECT_TRUE(r.banner);
  EXPECT_EQ(r.race_displayed, 1);
  EXPECT_EQ(r.errors(), 1);
  EXPECT_TRUE(r.mismatches.empty());
}

TEST(Sanitize, RacecheckCuda11FormPartnersAndWarnings) {
  const Report r = parse_log(
      "========= COMPUTE-SANITIZER\n"
      "========= ERROR: Race reported between Write access at 0x00000090 in /src/sum.cu:23:race_sum(float*)\n"
      "=========     and Read access at 0x000000b0 in /src/sum.cu:25:race_sum(float*) [248 hazards]\n"
      "=========     and Write access at 0x000000d0 in /src/other.cuh:9:race_sum(float*) [8 hazards]\n"
      "=========\n"
      "========= WARNING: Race reported between Write access at 0x00000100 in "
      "/src/sum.cu:40:race_sum(float*)\n"
      "=========     and Write access at 0x00000100 in /src/sum.cu:40:race_sum(float*) [32 hazards]\n"
      "=========\n"
      "========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)\n");
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].kind, "race between Write and Read/Write access");
  EXPECT_EQ(r.findings[0].detail, "shared memory, the Read at line 25 and Write at other.cuh:9");
  EXPECT_EQ(r.findings[0].count, 256);
  EXPECT_EQ(r.findings[0].file, "/src/sum.cu");
  EXPECT_EQ(r.findings[0].kernel, "race_sum");
  EXPECT_TRUE(r.findings[1].warning);
  EXPECT_EQ(r.findings[1].detail, "shared memory, the Write at line 40");
  EXPECT_EQ(r.errors(), 1);  // warnings do not count
  EXPECT_TRUE(r.mismatches.empty());
}

TEST(Sanitize, RacecheckHazardReport) {
  const Report r = parse_log(
      "========= Error: Potential WAR hazard detected at __shared__ 0x84 in block (0,0,0) :\n"
      "=========     Read Thread (1,0,0) at 0x00000100 in /src/sum.cu:31:race_sum(float*)\n"
      "=========     Write Thread (33,0,0) at 0x00000120 in /src/sum.cu:29:race_sum(float*)\n"
      "=========     Current Value : 0, Incoming Value : 2\n"
      "=========\n"
      "========= Error: Potential WAR hazard detected at __shared__ 0x88 in block (0,0,0) :\n"
      "=========     Read Thread (2,0,0) at 0x00000100 in /src/sum.cu:31:race_sum(float*)\n"
      "=========     Write Thread (34,0,0) at 0x00000120 in /src/sum.cu:29:race_sum(float*)\n"
      "========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)\n");
  const std::vector<Finding> g = group(r.findings);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].kind, "WAR hazard");
  EXPECT_EQ(g[0].detail, "shared memory");
  EXPECT_EQ(g[0].line, 31);
  EXPECT_EQ(g[0].count, 2);
  EXPECT_EQ(r.errors(), 2);
  EXPECT_TRUE(r.mismatches.empty());
}

TEST(Sanitize, SynccheckBarrierErrorsGroupByLine) {
  const Report r = parse_log(fixture("synccheck.log"));
  ASSERT_EQ(r.findings.size(), 3u);
  const std::vector<Finding> g = group(r.findings);
  ASSERT_EQ(g.size(), 2u);  // the two barriers, in order of first appearance
  EXPECT_EQ(g[0].kind, "Barrier error detected. Divergent thread(s) in warp");
  EXPECT_EQ(g[0].kernel, "planted_barrier");
  EXPECT_EQ(g[0].line, 48);
  EXPECT_EQ(g[0].count, 2);
  EXPECT_EQ(g[1].line, 51);
  EXPECT_EQ(g[1].count, 1);
  EXPECT_EQ(r.error_summary, 3);
  EXPECT_TRUE(r.mismatches.empty());
}

TEST(Sanitize, MemcheckOutOfBoundsAndApiError) {
  const Report r = parse_log(fixture("memcheck.log"));
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].kind, "Invalid __global__ read of size 4 bytes");
  EXPECT_EQ(r.findings[0].kernel, "planted_oob");
  EXPECT_EQ(r.findings[0].line, 68);
  EXPECT_EQ(r.findings[0].detail, "0 bytes after a 4000-byte allocation");
  EXPECT_EQ(r.findings[1].kind, "CUDA API error CUDA_ERROR_INVALID_VALUE (invalid argument)");
  EXPECT_EQ(r.findings[1].kernel, "");
  EXPECT_EQ(r.findings[1].detail, "in cuMemcpyDtoH_v2");
  EXPECT_EQ(r.errors(), 2);
  EXPECT_TRUE(r.mismatches.empty());
}

TEST(Sanitize, MemcheckCuda11FormAndNoLineInfo) {
  const Report r = parse_log(
      "========= CUDA-MEMCHECK\n"
      "========= Invalid __global__ write of size 4\n"
      "=========     at 0x00000070 in /src/a.cu:12:scale(float*, int)\n"
      "=========     by thread (0,0,0) in block (0,0,0)\n"
      "=========     Address 0x00000000 is out of bounds\n"
      "=========\n"
      "========= Misaligned Shared or Local Address\n"
      "=========     at 0x00000020 in void reduce<256>(float const*, float*)\n"
      "=========\n"
      "========= Invalid __shared__ read of size 8 bytes\n"
      "=========     at void reduce<256>(float const *, float *)+0x40\n"
      "========= ERROR SUMMARY: 3 errors\n");
  ASSERT_EQ(r.findings.size(), 3u);
  EXPECT_EQ(r.findings[0].kernel, "scale");
  EXPECT_EQ(r.findings[0].file, "/src/a.cu");
  EXPECT_EQ(r.findings[0].line, 12);
  EXPECT_EQ(r.findings[0].detail, "out of bounds");
  EXPECT_EQ(r.findings[1].kernel, "reduce<256>");
  EXPECT_EQ(r.findings[1].file, "");
  EXPECT_EQ(r.findings[2].kernel, "reduce<256>");
  EXPECT_EQ(r.findings[2].line, 0);
  EXPECT_TRUE(r.mismatches.empty());
}

TEST(Sanitize, InitcheckPrintLimitIsCrossChecked) {
  const Report r = parse_log(fixture("initcheck.log"));
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].kind, "Uninitialized __global__ memory read of size 4 bytes");
  EXPECT_EQ(r.findings[0].line, 81);
  EXPECT_EQ(r.errors(), 500);  // the summary line, not the two printed records
  ASSERT_EQ(r.mismatches.size(), 1u);
  EXPECT_TRUE(has(r.mismatches[0], "ERROR SUMMARY says 500, warplab read 2 (the rest were not printed"));
  const std::string s = format_summary("initcheck", r, kRoot);
  EXPECT_TRUE(has(s, "498     ?")) << s;
  EXPECT_TRUE(
      has(s,
          "initcheck: 500 errors; first in kernel planted_uninit at "
          "kernels_src/sanitize/planted.cu:81 (Uninitialized __global__ memory read of size 4 bytes)"))
      << s;
}

TEST(Sanitize, UnknownLinesAreSkippedAndUnknownKindsWithALocationKept) {
  const Report r = parse_log(
      "program output that is not the tool's\n"
      "========= COMPUTE-SANITIZER\n"
      "========= Some line from a newer version\n"
      "=========     with a detail nobody reads\n"
      "=========\n"
      "========= Cluster target block not present.\n"
      "=========     at k(int)+0x10 in /src/c.cu:3\n"
      "=========     by thread (0,0,0) in block (1,0,0)\n"
      "========= Target application returned an error\n"
      "========= LEAK SUMMARY: 0 bytes leaked in 0 allocations\n"
      "========= ERROR SUMMARY: 1 error\n"
      "more output\n");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, "Cluster target block not present");
  EXPECT_EQ(r.findings[0].kernel, "k");
  EXPECT_EQ(r.findings[0].line, 3);
  EXPECT_TRUE(r.mismatches.empty());
  EXPECT_TRUE(r.tool_messages.empty());
}

TEST(Sanitize, SummaryDisagreementsAndToolFailures) {
  std::string race = fixture("racecheck.log");
  race.replace(race.find("1 hazard displayed (1 error"), 27, "2 hazards displayed (2 errors");
  const Report r = parse_log(race);
  ASSERT_EQ(r.mismatches.size(), 1u);
  EXPECT_TRUE(has(r.mismatches[0], "RACECHECK SUMMARY (hazards displayed) says 2, warplab read 1"));
  EXPECT_EQ(r.errors(), 2);

  const Report dead = parse_log(
      "========= COMPUTE-SANITIZER\n"
      "========= Error: Target application terminated before first instrumented API call\n");
  EXPECT_FALSE(dead.has_summary());
  ASSERT_EQ(dead.tool_messages.size(), 1u);
  const std::string s = format_summary("memcheck", dead, "");
  EXPECT_TRUE(has(s, "compute-sanitizer: Error: Target application terminated")) << s;
  EXPECT_TRUE(has(s, "memcheck: no summary line in the tool's log")) << s;
}

TEST(Sanitize, CleanRunsSayNoErrors) {
  for (const auto& [tool, log] :
       std::map<std::string, std::string>{{"memcheck", "clean.log"}, {"racecheck", "clean_racecheck.log"}}) {
    const Report r = parse_log(fixture(log));
    EXPECT_TRUE(r.has_summary());
    EXPECT_EQ(r.errors(), 0);
    const std::string s = format_summary(tool, r, kRoot);
    EXPECT_TRUE(has(s, tool + ": no errors\n")) << s;
    EXPECT_FALSE(has(s, "kernel")) << s;  // no table
  }
}

TEST(Sanitize, TableRowsAndTheClosingSentence) {
  const std::string s = format_summary("racecheck", parse_log(fixture("racecheck.log")), kRoot + "/");
  EXPECT_TRUE(has(s, "== sanitize: compute-sanitizer --tool racecheck ==\n")) << s;
  EXPECT_TRUE(has(s, "hazards  kernel        at                                  what\n")) << s;
  EXPECT_TRUE(has(s,
                  "7936     planted_race  kernels_src/sanitize/planted.cu:25  race between Write and Read "
                  "access (shared memory, the Read at line 27)\n"))
      << s;
  EXPECT_TRUE(has(s,
                  "racecheck: 1 error (7936 hazards); first in kernel planted_race at "
                  "kernels_src/sanitize/planted.cu:25"))
      << s;
  const std::string m = format_summary("memcheck", parse_log(fixture("memcheck.log")), "/elsewhere");
  EXPECT_TRUE(has(m, kFile + ":68")) << m;                     // outside the current folder: as printed
  EXPECT_TRUE(has(m, "\n1       -            host   ")) << m;  // a host call: no kernel, no line
  EXPECT_TRUE(has(m, "  CUDA API error CUDA_ERROR_INVALID_VALUE (invalid argument) (in cuMemcpyDtoH_v2)\n"))
      << m;
}

TEST(Sanitize, DisplayPath) {
  EXPECT_EQ(display_path("/a/b/c.cu", "/a"), "b/c.cu");
  EXPECT_EQ(display_path("/a/b/c.cu", "/a/"), "b/c.cu");
  EXPECT_EQ(display_path("/ab/c.cu", "/a"), "/ab/c.cu");
  EXPECT_EQ(display_path("c.cu", "/a"), "c.cu");
  EXPECT_EQ(display_path("/a/c.cu", ""), "/a/c.cu");
}

TEST(Sanitize, ToolsAndCandidates) {
  EXPECT_TRUE(valid_tool("racecheck"));
  EXPECT_FALSE(valid_tool("leakcheck"));
  EXPECT_EQ(tools().size(), 4u);
  std::map<std::string, std::string> env = {
      {"PATH", "/p1::/p2"}, {"CUDA_HOME", "/cuda-home"}, {"CUDAToolkit_ROOT", "/tk"}};
  auto get = [&env](const char* k) -> const char* {
    const auto it = env.find(k);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  const std::vector<std::string> c = candidates(get, {"/nvrtc-root"});
  const std::vector<std::string> want = {"/p1/compute-sanitizer",
                                         "./compute-sanitizer",
                                         "/p2/compute-sanitizer",
                                         "/cuda-home/bin/compute-sanitizer",
                                         "/cuda-home/compute-sanitizer/compute-sanitizer",
                                         "/tk/bin/compute-sanitizer",
                                         "/tk/compute-sanitizer/compute-sanitizer",
                                         "/nvrtc-root/bin/compute-sanitizer",
                                         "/nvrtc-root/compute-sanitizer/compute-sanitizer",
                                         "/usr/local/cuda/bin/compute-sanitizer",
                                         "/usr/local/cuda/compute-sanitizer/compute-sanitizer"};
  EXPECT_EQ(c, want);
  env["WARPLAB_COMPUTE_SANITIZER"] = "/only/this";
  EXPECT_EQ(candidates(get, {"/nvrtc-root"}), std::vector<std::string>{"/only/this"});

  // find_tool: the first executable file.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("wl-san-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "plain") << "x";
  std::ofstream(dir / "exe") << "#!/bin/sh\n";
  std::filesystem::permissions(dir / "exe", std::filesystem::perms::owner_all);
  EXPECT_EQ(
      find_tool({(dir / "missing").string(), (dir / "plain").string(), dir.string(), (dir / "exe").string()}),
      (dir / "exe").string());
  EXPECT_EQ(find_tool({(dir / "plain").string()}), "");
  std::filesystem::remove_all(dir);
}

TEST(Sanitize, ChildArgvDropsOnlyTheSanitizeOption) {
  const std::vector<std::string> a = {"warplab",   "-q",    "run", "--sanitize",
                                      "racecheck", "s.lua", "-p",  "n=1"};
  EXPECT_EQ(child_argv(a, "/bin/w"), (std::vector<std::string>{"/bin/w", "-q", "run", "s.lua", "-p", "n=1"}));
  const std::vector<std::string> b = {"warplab", "run",        "s.lua", "--sanitize=memcheck",
                                      "--",      "--sanitize", "x"};
  EXPECT_EQ(child_argv(b, "/bin/w"),
            (std::vector<std::string>{"/bin/w", "run", "s.lua", "--", "--sanitize", "x"}));
}
