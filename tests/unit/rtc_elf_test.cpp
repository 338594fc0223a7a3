// rtc_elf_test.cpp: resources read from the CUBIN equal the ptxas report of the same
// --no-cache compile, for a spilling kernel, __launch_bounds__, static shared memory with
// named barriers, dynamic shared memory, a non-inlined call and __constant__ data, on every
// architecture this NVRTC builds; a log without a report still gives the binary's numbers
// (spills unknown, never 0); malformed binaries are one sentence, never a crash.
#include <gtest/gtest.h>

#include <algorithm>

#include "rtc/compile.hpp"
#include "rtc/elf.hpp"
#include "rtc/resources.hpp"
#include "rtc_test_util.hpp"

namespace warplab {
namespace {

rtc::CompileResult build(const std::string& arch, int max_registers = 0) {
  rtc::Options o;
  o.arch = arch;
  o.max_registers = max_registers;
  return rtc::compile(rtc::load_source(test::source_root() / "tests/data/kernels/resources.cu"), o);
}

// Every kernel's CUBIN numbers against the ptxas report of the same compile.
void expect_agree(const rtc::CompileResult& r) {
  ASSERT_TRUE(r.ok) << r.log;
  const auto report = rtc::parse_ptxas_report(r.log);
  ASSERT_EQ(report.size(), r.entries.size()) << "no ptxas report: is --no-cache passed?\n" << r.log;
  const auto elf = rtc::read_cubin(r.cubin);
  for (const rtc::KernelResources& log : report) {
    SCOPED_TRACE(r.arch + " " + log.mangled);
    const rtc::ElfKernel* k = rtc::find_kernel(elf, log.mangled);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->registers, log.registers);
    EXPECT_EQ(k->barriers, log.barriers.value_or(0));
    EXPECT_EQ(k->shared_bytes, log.shared_bytes.value_or(0));
    EXPECT_EQ(k->stack_bytes, log.stack_bytes.value_or(0));
    if (log.const_bytes) {
      EXPECT_EQ(k->kernel_const_bytes, *log.const_bytes);
    }
  }
  EXPECT_TRUE(r.resource_notes.empty()) << r.resource_notes.front();
  for (const rtc::KernelResources& k : r.kernels) EXPECT_TRUE(k.complete()) << k.mangled;
}

TEST(Elf, AgreesWithThePtxasReportOnEveryArchitecture) {
  for (const std::string& arch : rtc::supported_archs()) expect_agree(build(arch));
}

TEST(Elf, ReadsTheNumbersThatMatter) {
  const auto r = build("sm_90", 32);
  expect_agree(r);
  const auto elf = rtc::read_cubin(r.cubin);
  const auto* bounded = rtc::find_kernel(elf, "_Z7boundedPf");
  ASSERT_NE(bounded, nullptr);
  EXPECT_EQ(bounded->max_threads[0], 256u);
  EXPECT_EQ(bounded->max_threads[1], 1u);
  EXPECT_EQ(bounded->const_bytes, 64 * 4);  // the module's __constant__ table, as the driver counts it
  const auto* named = rtc::find_kernel(elf, "_Z5namedPf");
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(named->shared_bytes, 64 * 4 + 10 * 8);
  EXPECT_EQ(named->barriers, 4);  // bar.sync 3 uses barriers 0..3
  const auto* dynamic = rtc::find_kernel(elf, "_Z7dynamicPf");
  ASSERT_NE(dynamic, nullptr);
  EXPECT_EQ(dynamic->shared_bytes, 0);  // dynamic shared is the launch's, not the kernel's
  const auto* pressure = rtc::find_kernel(elf, "_Z8pressurePKfPf");
  ASSERT_NE(pressure, nullptr);
  EXPECT_LE(pressure->registers.value_or(99), 32);
  EXPECT_EQ(pressure->max_registers, 32);
  const auto* calls = rtc::find_kernel(elf, "calls");
  ASSERT_NE(calls, nullptr);
  EXPECT_GT(calls->stack_bytes, 0);  // the callee's frame is part of what a launch needs
  const auto* k = r.resources("_Z8pressurePKfPf");
  ASSERT_NE(k, nullptr);
  EXPECT_GT(k->spill_store_bytes.value_or(0), 0);  // spills: from the report alone
}

TEST(Elf, ALogWithoutAReportKeepsTheBinaryNumbersAndLeavesSpillsUnknown) {
  const auto r = build("sm_90");
  ASSERT_TRUE(r.ok);
  std::vector<std::string> notes;
  const auto merged = rtc::merge_resources(r.entries, rtc::read_cubin(r.cubin), {}, notes);
  ASSERT_EQ(merged.size(), r.entries.size());
  for (std::size_t i = 0; i < merged.size(); ++i) {
    const rtc::KernelResources* full = r.resources(r.entries[i]);
    ASSERT_NE(full, nullptr);
    EXPECT_EQ(merged[i].registers, full->registers);
    EXPECT_EQ(merged[i].shared_bytes, full->shared_bytes);
    EXPECT_EQ(merged[i].stack_bytes, full->stack_bytes);
    EXPECT_EQ(merged[i].barriers, full->barriers);
    EXPECT_FALSE(merged[i].spill_store_bytes.has_value());
    EXPECT_FALSE(merged[i].spill_load_bytes.has_value());
    EXPECT_FALSE(merged[i].complete());
  }
  EXPECT_TRUE(notes.empty());
}

TEST(Elf, ADisagreementIsANoteAndTheBinaryWins) {
  const auto r = build("sm_90");
  ASSERT_TRUE(r.ok);
  auto report = rtc::parse_ptxas_report(r.log);
  ASSERT_FALSE(report.empty());
  report[0].registers = 255;
  std::vector<std::string> notes;
  const auto merged = rtc::merge_resources(r.entries, rtc::read_cubin(r.cubin), report, notes);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("255"), std::string::npos) << notes[0];
  for (const auto& k : merged)
    if (k.mangled == report[0].mangled) {
      EXPECT_NE(k.registers, 255);
    }
}

TEST(Elf, NeitherSourceLeavesEverythingUnknown) {
  std::vector<std::string> notes;
  const auto merged = rtc::merge_resources({"k"}, {}, {}, notes);
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_FALSE(merged[0].registers.has_value());
  EXPECT_FALSE(merged[0].shared_bytes.has_value());
}

TEST(Elf, MalformedBinariesAreASentenceNotACrash) {
  const auto r = build("sm_90");
  ASSERT_TRUE(r.ok);
  EXPECT_THROW(rtc::read_cubin({}), rtc::Error);
  EXPECT_THROW(rtc::read_cubin(std::vector<char>(100, 'x')), rtc::Error);
  try {
    rtc::read_cubin(std::vector<char>(r.cubin.begin(), r.cubin.begin() + 200));
    ADD_FAILURE() << "a truncated CUBIN was accepted";
  } catch (const rtc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("unreadable CUBIN"), std::string::npos) << e.what();
  }
  // Every byte of the headers and tables flipped in turn: read or refused, never out of bounds.
  const std::size_t n = std::min<std::size_t>(r.cubin.size(), 8192);
  for (std::size_t i = 0; i < n; i += 3) {
    std::vector<char> bad = r.cubin;
    bad[i] = static_cast<char>(bad[i] ^ 0xA5);
    try {
      rtc::read_cubin(bad);
    } catch (const rtc::Error&) {
    }
  }
}

}  // namespace
}  // namespace warplab
