// lines_test.cpp: the per-line map without a GPU: instruction kinds from SASS opcodes and
// PTX, both disassemblers' lines read, the PTX's .loc lines, and a real kernel's map
// (tests/data/kernels/lines.cu) through CUPTI's correlation: the strided shared load at
// its line, the barrier at its, a header function's load at the header's line; without
// line information, one row and the sentence; the listing; the --lines sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/repl/counters.hpp"
#include "cu/cupti.hpp"
#include "lab/line_map.hpp"
#include "lab/lines.hpp"
#include "rtc/compile.hpp"
#include "rtc/elf.hpp"
#include "rtc/instructions.hpp"
#include "rtc/sass.hpp"
#include "rtc_test_util.hpp"

namespace lab = warplab::lab;
namespace rtc = warplab::rtc;
namespace test = warplab::test;
using rtc::InstKind;

namespace {

// CUPTI under AddressSanitizer: see counters_test.cpp (RTLD_DEEPBIND); the GCC build runs these.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

lab::ModuleObj compiled(bool lineinfo) {
  lab::ModuleObj m;
  m.spec.source = rtc::load_source(test::source_root() / "tests/data/kernels/lines.cu");
  m.spec.options.arch = "sm_90";
  m.spec.options.lineinfo = lineinfo;
  m.spec.options.name_expressions = {"scaled<4>"};
  m.result = rtc::compile(m.spec.source, m.spec.options);
  EXPECT_TRUE(m.result.ok) << m.result.log;
  return m;
}

const lab::LineRow* row_at(const std::vector<lab::LineRow>& rows, const std::string& file_end,
                           unsigned line) {
  for (const lab::LineRow& r : rows)
    if (r.line == line && r.file.size() >= file_end.size() &&
        r.file.compare(r.file.size() - file_end.size(), file_end.size(), file_end) == 0)
      return &r;
  return nullptr;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST(Lines, SassKinds) {
  EXPECT_EQ(rtc::sass_kind("LDS"), InstKind::shared_load);
  EXPECT_EQ(rtc::sass_kind("LDS.U.128"), InstKind::shared_load);
  EXPECT_EQ(rtc::sass_kind("LDSM.16.M88.4"), InstKind::shared_load);
  EXPECT_EQ(rtc::sass_kind("STS.128"), InstKind::shared_store);
  EXPECT_EQ(rtc::sass_kind("LDG.E.128.CONSTANT"), InstKind::global_load);
  EXPECT_EQ(rtc::sass_kind("STG.E"), InstKind::global_store);
  EXPECT_EQ(rtc::sass_kind("LDL.LU"), InstKind::local_load);
  EXPECT_EQ(rtc::sass_kind("STL.64"), InstKind::local_store);
  EXPECT_EQ(rtc::sass_kind("LD.E"), InstKind::generic_load);
  // Atomics say where they go: a shared one is not a global one's cost.
  EXPECT_EQ(rtc::sass_kind("ATOMS.ADD"), InstKind::shared_atomic);
  EXPECT_EQ(rtc::sass_kind("ATOMS.CAS.64"), InstKind::shared_atomic);
  EXPECT_EQ(rtc::sass_kind("REDAS.ADD"), InstKind::shared_atomic);
  EXPECT_EQ(rtc::sass_kind("ATOMG.E.ADD.STRONG.GPU"), InstKind::global_atomic);
  EXPECT_EQ(rtc::sass_kind("REDG.E.ADD.F32.FTZ.RN.STRONG.GPU"), InstKind::global_atomic);
  EXPECT_EQ(rtc::sass_kind("RED.E.ADD.F32.FTZ.RN.STRONG.GPU"), InstKind::atomic);  // generic
  EXPECT_EQ(rtc::sass_kind("ATOM.E.ADD.STRONG.GPU"), InstKind::atomic);
  EXPECT_STREQ(rtc::inst_kind_name(InstKind::shared_atomic), "shared atomic");
  EXPECT_STREQ(rtc::inst_kind_name(InstKind::global_atomic), "global atomic");
  EXPECT_EQ(rtc::sass_kind("BRA"), InstKind::branch);
  EXPECT_EQ(rtc::sass_kind("BAR.SYNC.DEFER_BLOCKING"), InstKind::barrier);
  EXPECT_EQ(rtc::sass_kind("SHFL.BFLY"), InstKind::shuffle);
  EXPECT_EQ(rtc::sass_kind("LDGSTS.E.BYPASS.128"), InstKind::async_copy);
  EXPECT_EQ(rtc::sass_kind("FFMA"), InstKind::other);
  EXPECT_EQ(rtc::sass_kind("BSSY"), InstKind::other);  // a convergence barrier, not __syncthreads
  EXPECT_STREQ(rtc::inst_kind_name(InstKind::shared_load), "shared load");
  EXPECT_STREQ(rtc::inst_kind_name(InstKind::other), "");
}

TEST(Lines, PtxKinds) {
  EXPECT_EQ(rtc::ptx_kind("ld.shared.f32 \t%f13, [%rd8];"), InstKind::shared_load);
  EXPECT_EQ(rtc::ptx_kind("st.shared.f32 [%rd4], %f8;"), InstKind::shared_store);
  EXPECT_EQ(rtc::ptx_kind("ld.global.nc.f32 %f1, [%rd3];"), InstKind::global_load);
  EXPECT_EQ(rtc::ptx_kind("st.global.f32 [%rd2], %f25;"), InstKind::global_store);
  EXPECT_EQ(rtc::ptx_kind("ld.param.u64 %rd1, [banks_param_0];"), InstKind::other);
  EXPECT_EQ(rtc::ptx_kind("ld.local.u32 %r1, [%rd1];"), InstKind::local_load);
  EXPECT_EQ(rtc::ptx_kind("@%p1 bra \t$L__BB0_3;"), InstKind::branch);
  EXPECT_EQ(rtc::ptx_kind("bar.sync \t0;"), InstKind::barrier);
  EXPECT_EQ(rtc::ptx_kind("atom.shared.add.u32 %r1, [%rd1], 1;"), InstKind::shared_atomic);
  EXPECT_EQ(rtc::ptx_kind("red.shared::cluster.add.u32 [%r1], 1;"), InstKind::shared_atomic);
  EXPECT_EQ(rtc::ptx_kind("atom.global.add.u32 %r1, [%rd1], 1;"), InstKind::global_atomic);
  EXPECT_EQ(rtc::ptx_kind("@%p2 red.global.add.f32 [%rd5], %f1;"), InstKind::global_atomic);
  EXPECT_EQ(rtc::ptx_kind("atom.add.u32 %r1, [%rd1], 1;"), InstKind::atomic);
  EXPECT_EQ(rtc::ptx_kind("mov.u32 %r1, %tid.x;"), InstKind::other);
}

TEST(Lines, SassInstructionsFromEitherTool) {
  // nvdisasm's lines, then cuobjdump's (with the encoding, and its second encoding line).
  const std::string dump =
      ".text.banks:\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
      ".L_x_6:\n"
      "        /*0260*/              @!P0 LDS R5, [R5] ;\n"
      "        /*0270*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;   /* 0x0000000000007b1d */\n"
      "                                                                   /* 0x000fec0000010000 */\n"
      "        /*0280*/                   STG.E desc[UR4][R2.64], R5 ;\n";
  const std::vector<rtc::SassInst> v = rtc::sass_instructions(dump);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].offset, 0u);
  EXPECT_EQ(v[1].offset, 0x260u);
  EXPECT_EQ(v[1].text, "@!P0 LDS R5, [R5]");
  EXPECT_EQ(v[1].kind, InstKind::shared_load);
  EXPECT_EQ(v[2].kind, InstKind::barrier);
  EXPECT_EQ(v[3].kind, InstKind::global_store);
}

TEST(Lines, PtxLocLines) {
  const lab::ModuleObj m = compiled(true);
  const rtc::PtxLines p = rtc::ptx_lines(m.result.ptx, "banks");
  ASSERT_FALSE(p.insts.empty());
  bool load = false, barrier = false;
  for (const rtc::PtxInst& i : p.insts) {
    if (i.kind == InstKind::shared_load) load = load || i.line == 11;
    if (i.kind == InstKind::barrier) barrier = barrier || i.line == 8;
    if (i.kind == InstKind::shared_load) {
      EXPECT_EQ(i.line, 11u) << i.text;
    }
  }
  EXPECT_TRUE(load);
  EXPECT_TRUE(barrier);
  ASSERT_FALSE(p.files.empty());
  EXPECT_NE(p.files.begin()->second.find("lines.cu"), std::string::npos);
  // Without -lineinfo: the instructions, no lines.
  const lab::ModuleObj plain = compiled(false);
  const rtc::PtxLines q = rtc::ptx_lines(plain.result.ptx, "banks");
  ASSERT_FALSE(q.insts.empty());
  for (const rtc::PtxInst& i : q.insts) EXPECT_EQ(i.line, 0u);
}

TEST(Lines, CodeSizeFromTheElf) {
  const lab::ModuleObj m = compiled(true);
  const auto ks = rtc::read_cubin(m.result.cubin);
  const rtc::ElfKernel* k = rtc::find_kernel(ks, "banks");
  ASSERT_NE(k, nullptr);
  EXPECT_GT(k->code_bytes, 16u * 20);
  EXPECT_EQ(k->code_bytes % 16, 0u);
}

TEST(Lines, MapOfAKernel) {
  if (kSanitized) GTEST_SKIP() << "CUPTI cannot load under AddressSanitizer (RTLD_DEEPBIND)";
  if (warplab::cu::cupti_unavailable()) GTEST_SKIP() << "no CUPTI here";
  const lab::ModuleObj m = compiled(true);
  const lab::KernelLines k = lab::kernel_lines(m, "banks", "banks");
  EXPECT_EQ(k.from, lab::LineSource::sass);
  ASSERT_TRUE(k.has_lines());
  // With a disassembler the kinds are the SASS's; without, the PTX's by line (said so).
  if (!rtc::find_sass_tool().found()) {
    EXPECT_NE(k.note.find("kinds are the PTX's"), std::string::npos) << k.note;
  }
  const std::vector<lab::LineRow> rows = lab::line_rows(k);
  const lab::LineRow* load = row_at(rows, "lines.cu", 11);
  ASSERT_NE(load, nullptr);
  EXPECT_TRUE(has(load->kinds, "shared load")) << load->text;
  EXPECT_EQ(load->text, "    acc += s[(threadIdx.x * stride + r) & (32 * 32 - 1)];");
  EXPECT_GT(load->instructions, 0u);
  EXPECT_EQ(load->offsets.size(), load->instructions);
  const lab::LineRow* bar = row_at(rows, "lines.cu", 8);
  ASSERT_NE(bar, nullptr);
  EXPECT_TRUE(has(bar->kinds, "barrier"));
  const lab::LineRow* store = row_at(rows, "lines.cu", 12);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(has(store->kinds, "global store"));
  // Every SASS instruction is on exactly one row.
  std::size_t all = 0;
  for (const lab::LineRow& r : rows) all += r.instructions;
  const auto ks = rtc::read_cubin(m.result.cubin);
  EXPECT_EQ(all, rtc::find_kernel(ks, "banks")->code_bytes / 16);
  // The listing names the kernel, and the load's line with its kind.
  const std::string text = lab::lines_text(lab::map_report({k}), false);
  EXPECT_NE(text.find("banks: "), std::string::npos) << text;
  EXPECT_NE(text.find("[shared load"), std::string::npos) << text;
}

TEST(Lines, InlinedHeaderFunctionKeepsItsLine) {
  if (kSanitized) GTEST_SKIP() << "CUPTI cannot load under AddressSanitizer (RTLD_DEEPBIND)";
  if (warplab::cu::cupti_unavailable()) GTEST_SKIP() << "no CUPTI here";
  const lab::ModuleObj m = compiled(true);
  const std::string mangled = m.result.lowered_name("scaled<4>");
  ASSERT_FALSE(mangled.empty());
  const lab::KernelLines k = lab::kernel_lines(m, mangled, "scaled<4>");
  const std::vector<lab::LineRow> rows = lab::line_rows(k);
  const lab::LineRow* load = row_at(rows, "lines_helper.cuh", 4);
  ASSERT_NE(load, nullptr) << lab::lines_text(lab::map_report({k}), false);
  EXPECT_TRUE(has(load->kinds, "global load"));
  EXPECT_EQ(load->text, "  return 2.f * p[i];");
}

TEST(Lines, WithoutLineInformation) {
  if (kSanitized) GTEST_SKIP() << "CUPTI cannot load under AddressSanitizer (RTLD_DEEPBIND)";
  if (warplab::cu::cupti_unavailable()) GTEST_SKIP() << "no CUPTI here";
  const lab::ModuleObj m = compiled(false);
  const lab::KernelLines k = lab::kernel_lines(m, "banks", "banks");
  EXPECT_FALSE(k.has_lines());
  EXPECT_EQ(k.note, lab::no_line_info("banks"));
  const std::vector<lab::LineRow> rows = lab::line_rows(k);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].line, 0u);
  EXPECT_GT(rows[0].instructions, 10u);
}

TEST(Lines, Columns) {
  const lab::LineColumns all = lab::line_columns({});
  EXPECT_TRUE(all.counts());
  EXPECT_FALSE(all.stalls);
  const lab::LineColumns shared = lab::line_columns({"shared"});
  EXPECT_TRUE(shared.shared);
  EXPECT_FALSE(shared.global);
  EXPECT_FALSE(shared.instructions);
  EXPECT_TRUE(lab::line_columns({"stalls"}).stalls);
  EXPECT_FALSE(lab::line_columns({"stalls"}).counts());
  try {
    lab::line_columns({"shard"});
    FAIL() << "no error";
  } catch (const warplab::Error& e) {
    EXPECT_EQ(e.kind(), warplab::ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find("'shard' is no set of line columns"), std::string::npos) << e.what();
  }
  // Counts and stalls: two collections, the counts first.
  const lab::LineColumns both = lab::line_columns({"shared", "stalls"});
  EXPECT_TRUE(both.twice());
  EXPECT_FALSE(both.counts_only().stalls);
  EXPECT_TRUE(both.counts_only().shared);
  EXPECT_TRUE(lab::line_columns({"all"}).twice());
  EXPECT_FALSE(lab::LineColumns::stalls_only().counts());
}

TEST(Lines, LiveRowsDerivedColumns) {
  lab::LineRow r;
  r.shared_wavefronts = 34603008;
  r.shared_ideal = 1081344;
  EXPECT_DOUBLE_EQ(r.shared_way(), 32.0);
  r.thread_inst = 100;
  r.thread_inst_pred_on = 75;
  EXPECT_DOUBLE_EQ(r.predicated_off(), 0.25);
  r.global_sectors = 1024;
  r.global_ideal = 256;
  EXPECT_DOUBLE_EQ(r.global_excess(), 768);
  lab::LineRow none;
  EXPECT_TRUE(std::isnan(none.shared_way()));
  EXPECT_TRUE(std::isnan(none.predicated_off()));
  EXPECT_TRUE(std::isnan(none.global_excess()));
}

// Counts and stalls of the same launches, in one report: the stall columns by kernel, file
// and line, the kernels' samples, both notes.
TEST(Lines, MergeStalls) {
  lab::LineReport counts, stalls;
  counts.columns = lab::line_columns({"shared"});
  stalls.columns = lab::LineColumns::stalls_only();
  for (unsigned line : {4u, 8u}) {
    lab::LineRow c;
    c.kernel = "bank";
    c.file = "k.cu";
    c.line = line;
    c.shared_wavefronts = line == 8 ? 3200 : 100;
    c.shared_ideal = 100;
    counts.rows.push_back(c);
    c.shared_wavefronts = c.shared_ideal = lab::kNotCounted;
    c.samples = line == 8 ? 90 : 10;
    c.share = c.samples / 100;
    c.reasons = {{"short_scoreboard", c.samples}};
    stalls.rows.push_back(c);
  }
  counts.kernels.push_back({"bank", 1, 0, {}});
  stalls.kernels.push_back({"bank", 1, 100, {}});
  stalls.note = "3 of 103 stall samples were dropped by the hardware (its buffer was full)";
  lab::merge_stalls(counts, stalls);
  ASSERT_EQ(counts.rows.size(), 2u);
  EXPECT_TRUE(counts.columns.twice());
  EXPECT_DOUBLE_EQ(counts.rows[1].shared_way(), 32.0);
  EXPECT_DOUBLE_EQ(counts.rows[1].share, 0.9);
  EXPECT_EQ(counts.rows[1].reasons.at(0).first, "short_scoreboard");
  EXPECT_DOUBLE_EQ(counts.kernels[0].samples, 100);
  EXPECT_EQ(counts.note, stalls.note);
  const std::string text = lab::lines_text(counts, false);
  EXPECT_NE(text.find("exact counts (CUPTI's SASS metrics) and 100 stall samples"), std::string::npos)
      << text;
  EXPECT_NE(text.find("32.0-way"), std::string::npos) << text;
  EXPECT_NE(text.find("90.0 %"), std::string::npos) << text;
}

// The hottest rows by warp instructions, else stall samples, as indexes into the rows.
TEST(Lines, HotLines) {
  lab::LineReport r;
  for (double inst : {10.0, 300.0, 20.0, 300.0}) {
    lab::LineRow row;
    row.inst = inst;
    r.rows.push_back(row);
  }
  EXPECT_EQ(lab::hot_lines(r, 3), (std::vector<std::size_t>{1, 3, 2}));  // ties keep their order
  EXPECT_EQ(lab::hot_lines(r, 0), std::vector<std::size_t>{});
  EXPECT_EQ(lab::hot_lines(r, 9).size(), 4u);
}

TEST(Lines, ReplChunk) {
  namespace repl = warplab::app::repl;
  const repl::CountedChunk c = repl::lined_chunk("  stalls k:launch(1, 32, a)");
  EXPECT_EQ(c.sets, "stalls");
  EXPECT_EQ(c.chunk, "k:launch(1, 32, a)");
  const std::string load =
      "return cuda.lines((function(s) local f, e = load(s, \"=repl\", \"t\") if not f then error(e, 0) end "
      "return f end)([[\nk:launch(1, 32, a)]]";
  EXPECT_EQ(c.lua, load + "), \"stalls\")");  // compiled as typed: its errors cite repl:1
  const repl::CountedChunk d = repl::lined_chunk("k:launch(1, 32, a)");
  EXPECT_EQ(d.sets, "");
  EXPECT_EQ(d.lua, load + "))");
  EXPECT_NE(repl::lined_chunk("x = [[a]]").lua.find("[=[\nx = [[a]]]=]"), std::string::npos);
  EXPECT_EQ(repl::lined_chunk("shared,global x()").sets, "shared,global");
  EXPECT_TRUE(repl::lined_chunk("shared").chunk.empty());
  EXPECT_EQ(repl::lined_chunk("sharedx y()").sets, "");  // not a set: the chunk's own first word
}
