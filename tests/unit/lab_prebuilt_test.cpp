// lab_prebuilt_test.cpp: modules built before the run that uses them (lab/prebuilt.hpp):
// a run's record of what it built reads back as the same specs (a file's text read again
// from the file, an inline source's from the record); lab::build hands out a prebuilt
// module for exactly the same spec, once, and compiles anew when the file, a header or an
// option changed; and a module taken from the keep is reported to the watcher as a
// compiled one is. Offline (no context): what is kept is the compile.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/module_spec.hpp"
#include "lab/prebuilt.hpp"
#include "lab/watch_feed.hpp"

namespace fs = std::filesystem;
using namespace warplab;

namespace {

class TempDir {
 public:
  TempDir() {
    // Named as a folder watch makes it: lab::code_dir writes only into one of those.
    std::string t = (fs::temp_directory_path() / "warplab-code-prebuilt-XXXXXX").string();
    path_ = ::mkdtemp(t.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string read(const std::string& name) const {
    std::ifstream in(path_ / name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// A file module including a header, as cuda.compile{file = ..., defines = {...}} makes it.
lab::ModuleSpec file_spec(const TempDir& d) {
  lab::ModuleSpec s;
  const auto why = lab::spec_from_file(s, d.path() / "k.cu", "");
  EXPECT_FALSE(why) << *why;
  s.options.arch = "sm_90";
  s.options.defines = {{"N", "4"}};
  return s;
}

// What a run records, read back: the specs `build` was asked for, in order.
std::string recorded(const TempDir& d, const std::vector<lab::ModuleSpec>& specs) {
  ::setenv("WARPLAB_CODE_DIR", d.path().c_str(), 1);
  for (const lab::ModuleSpec& s : specs) lab::feed_module(s);
  ::unsetenv("WARPLAB_CODE_DIR");
  return d.read("modules");
}

}  // namespace

TEST(Prebuilt, RecordsReadBackAsTheSameSpecs) {
  TempDir d;
  d.write("k.h", "#define V 1\n");
  d.write("k.cu", "#include \"k.h\"\n__global__ void k(int* p) { p[0] = V + N; }\n");
  lab::ModuleSpec inline_spec;
  inline_spec.source.name = "s.lua";
  inline_spec.source.text = "__global__ void j(float* x) { x[0] = 1; }\n";
  inline_spec.source.line_offset = 12;
  inline_spec.options.arch = "sm_80";
  inline_spec.options.lineinfo = true;
  inline_spec.options.name_expressions = {"j"};
  const std::string text = recorded(d, {file_spec(d), inline_spec, file_spec(d)});
  // The file's text is not in the record: the next run reads the file as it is then.
  d.write("k.cu", "#include \"k.h\"\n__global__ void k(int* p) { p[0] = V + N + 1; }\n");
  const std::vector<lab::ModuleSpec> back = lab::read_module_feed(text + "not json\n");
  ASSERT_EQ(back.size(), 2u) << "the same spec twice is one, a broken line none";
  EXPECT_EQ(back[0].path, (d.path() / "k.cu").string());
  EXPECT_NE(back[0].source.text.find("N + 1"), std::string::npos);
  EXPECT_EQ(back[0].options.defines, (std::vector<std::pair<std::string, std::string>>{{"N", "4"}}));
  EXPECT_EQ(back[0].options.arch, "sm_90");
  EXPECT_EQ(back[1].source.text, inline_spec.source.text);
  EXPECT_EQ(back[1].source.line_offset, 12);
  EXPECT_TRUE(back[1].options.lineinfo);
  EXPECT_EQ(back[1].options.name_expressions, (std::vector<std::string>{"j"}));
  // A file that is gone is not built ahead.
  fs::remove(d.path() / "k.cu");
  EXPECT_EQ(lab::read_module_feed(text).size(), 1u);
}

TEST(Prebuilt, BuildTakesAPrebuiltModuleOnlyForTheSameSpecAndFiles) {
  TempDir d;
  d.write("k.h", "#define V 1\n");
  d.write("k.cu", "#include \"k.h\"\n__global__ void k(int* p) { p[0] = V + N; }\n");
  lab::prebuild({file_spec(d)}, nullptr, nullptr);
  ASSERT_EQ(lab::prebuilt_count(), 1u);
  lab::ModuleSpec other = file_spec(d);
  other.options.defines = {{"N", "5"}};
  const lab::ModuleRef a = lab::build(other, nullptr, nullptr);  // another define: compiled
  EXPECT_EQ(lab::prebuilt_count(), 1u);
  const lab::ModuleRef b = lab::build(file_spec(d), nullptr, nullptr);
  EXPECT_EQ(lab::prebuilt_count(), 0u) << "the same spec did not take the prebuilt module";
  ASSERT_TRUE(b->result.ok) << b->result.log;
  EXPECT_FALSE(b->stamps.empty());

  // A header changed after the module was built ahead: compiled anew, with the new bytes.
  lab::prebuild({file_spec(d)}, nullptr, nullptr);
  d.write("k.h", "#define V 2\n");
  const lab::ModuleRef c = lab::build(file_spec(d), nullptr, nullptr);
  EXPECT_EQ(lab::prebuilt_count(), 0u);
  EXPECT_NE(c->result.ptx, b->result.ptx);
  EXPECT_EQ(c->result.ptx, lab::build(file_spec(d), nullptr, nullptr)->result.ptx);
}

// The watcher hears of a module taken from the keep as of one compiled in the run: its
// files (what to watch) and its code (the resource line after an edit).
TEST(Prebuilt, ATakenModuleIsReportedToTheWatcher) {
  TempDir d, code;
  d.write("k.h", "#define V 1\n");
  d.write("k.cu", "#include \"k.h\"\n__global__ void k(int* p) { p[0] = V + N; }\n");
  lab::prebuild({file_spec(d)}, nullptr, nullptr);
  const std::string deps = (code.path() / "deps").string();
  ::setenv("WARPLAB_DEPS_FILE", deps.c_str(), 1);
  ::setenv("WARPLAB_CODE_DIR", code.path().c_str(), 1);
  const lab::ModuleRef m = lab::build(file_spec(d), nullptr, nullptr);
  ::unsetenv("WARPLAB_DEPS_FILE");
  ::unsetenv("WARPLAB_CODE_DIR");
  EXPECT_EQ(lab::prebuilt_count(), 0u);
  const std::string listed = code.read("deps");
  EXPECT_NE(listed.find("k.cu"), std::string::npos) << listed;
  EXPECT_NE(listed.find("k.h"), std::string::npos) << listed;
  bool ptx = false;  // "<n>.k.cu.ptx", n counting this process's modules
  for (const auto& e : fs::directory_iterator(code.path()))
    ptx = ptx || e.path().string().ends_with(".k.cu.ptx");
  EXPECT_TRUE(ptx);
  EXPECT_NE(code.read("modules").find("\"sm_90\""), std::string::npos);
}
