// lab_kernel_test.cpp: the Lua-free pieces behind kernel handles (host/lab): the fault
// ring and its sentences, the watchdog's deadlock verdict,
// a kernel's fields and summary, and k:occupancy's checks and answer. No GPU, no Lua.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cu/error.hpp"
#include "cu/limits.hpp"
#include "lab/fault.hpp"
#include "lab/kernel_info.hpp"
#include "lab/launch.hpp"
#include "lab/module.hpp"

namespace warplab_test {
warplab::cu::DeviceSnapshot h100_snapshot();  // occupancy_test.cpp
}

namespace {

namespace lab = warplab::lab;
namespace cu = warplab::cu;

const cu::DeviceLimits& h100() {
  static const auto d = cu::device_limits(warplab_test::h100_snapshot());
  return d;
}

// ---- the fault ring -------------------------------------------------------------------

cu::LaunchConfig grid_block(unsigned grid, unsigned block) {
  cu::LaunchConfig c;
  c.grid = {grid, 1, 1};
  c.block = {block, 1, 1};
  return c;
}

void note(lab::FaultLog& log, const std::string& kernel, int line,
          const cu::LaunchConfig& c = grid_block(1, 32)) {
  lab::LaunchNote& n = log.note(kernel, c, cu::KernelLimits{32, 0, 1024, 1});
  std::snprintf(n.source, sizeof n.source, "%s", "t.lua");
  n.line = line;
}

TEST(LabFault, RingKeepsTheLastEightAndCountsAll) {
  lab::FaultLog log;
  for (int i = 1; i <= 10; ++i) note(log, "k" + std::to_string(i), i);
  EXPECT_EQ(log.since_sync, 10u);
  EXPECT_STREQ(log.recent().kernel, "k10");
  EXPECT_STREQ(log.recent(8).kernel, "k3");  // k1, k2 were overwritten
  EXPECT_EQ(log.recent().where(), "t.lua:10");
  log.forget();  // the driver refused k10
  EXPECT_EQ(log.since_sync, 9u);
  EXPECT_STREQ(log.recent().kernel, "k9");
}

TEST(LabFault, ForgetWithNothingInFlightDoesNothing) {
  lab::FaultLog log;
  log.forget();
  EXPECT_EQ(log.since_sync, 0u);
  EXPECT_EQ(log.head, 0u);
}

TEST(LabFault, LongKernelNameIsCutAndUnknownLineIsAQuestionMark) {
  lab::FaultLog log;
  const std::string name(100, 'x');
  log.note(name, grid_block(1, 1), cu::KernelLimits{});
  EXPECT_EQ(std::string(log.recent().kernel), std::string(63, 'x'));
  EXPECT_EQ(log.recent().line, 0);
  EXPECT_EQ(log.recent().where(), "?");
}

TEST(LabFault, AsyncFaultCodes) {
  EXPECT_TRUE(lab::is_async_fault(CUDA_ERROR_ILLEGAL_ADDRESS));
  EXPECT_TRUE(lab::is_async_fault(CUDA_ERROR_ASSERT));
  EXPECT_TRUE(lab::is_async_fault(CUDA_ERROR_LAUNCH_TIMEOUT));
  EXPECT_FALSE(lab::is_async_fault(CUDA_ERROR_OUT_OF_MEMORY));
  EXPECT_FALSE(lab::is_async_fault(CUDA_ERROR_INVALID_VALUE));
}

TEST(LabFault, OneLaunchInFlightIsNamed) {
  lab::FaultLog log;
  note(log, "saxpy", 12);
  EXPECT_EQ(lab::fault_text(log, CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize"),
            "kernel 'saxpy' launched at t.lua:12 faulted: " + cu::error_text(CUDA_ERROR_ILLEGAL_ADDRESS) +
                "; noticed by cuCtxSynchronize. The context is now unusable: restart the script");
}

TEST(LabFault, SeveralLaunchesInFlightNameTheEarlierOnes) {
  lab::FaultLog log;
  note(log, "a", 5);
  note(log, "b", 6);
  note(log, "c", 7);
  EXPECT_EQ(lab::fault_text(log, CUDA_ERROR_MISALIGNED_ADDRESS, "cuMemcpyDtoH"),
            "kernel 'c' launched at t.lua:7 faulted: " + cu::error_text(CUDA_ERROR_MISALIGNED_ADDRESS) +
                " (one of 3 launches since the last synchronization; earlier: b@t.lua:6 a@t.lua:5; run with "
                "--sync to pin it down); noticed by cuMemcpyDtoH. The context is now unusable: restart the "
                "script");
}

// ---- the watchdog's deadlock verdict (H100: 132 SMs; 256 threads of 32 regs: 8 per SM) --

TEST(LabFault, GridOverCoResidentCapacityIsAnInterBlockDeadlock) {
  lab::FaultLog log;
  note(log, "spin", 3, grid_block(2000, 256));
  EXPECT_EQ(lab::deadlock_verdict(log.recent(), h100()),
            "probable inter-block deadlock: grid 2000 blocks > 1056 co-resident (8 per SM x 132 SMs), so "
            "blocks waiting for unstarted blocks can never be released");
}

TEST(LabFault, GridThatFitsIsADeadlockOrALongKernel) {
  lab::FaultLog log;
  note(log, "spin", 3, grid_block(100, 256));
  EXPECT_EQ(lab::deadlock_verdict(log.recent(), h100()),
            "probable deadlock or a very long kernel (grid 100 blocks, all co-resident: 1056 fit)");
  EXPECT_EQ(lab::timeout_text(log.recent(), 2.5, h100()),
            "kernel 'spin' launched at t.lua:3 did not finish within 2.5 s: probable deadlock or a very long "
            "kernel (grid 100 blocks, all co-resident: 1056 fit)");
}

// ---- kernel fields, summary and occupancy ---------------------------------------------

// An offline kernel (no driver function) of an extern "C" source: 32 registers known,
// local bytes not.
std::shared_ptr<lab::KernelObj> offline_kernel() {
  auto k = std::make_shared<lab::KernelObj>();
  k->module = std::make_shared<lab::ModuleObj>();
  k->module->result.arch = "sm_90a";
  k->display = "saxpy";
  k->res.registers = 32;
  k->res.shared_bytes = 0;
  k->res.spill_store_bytes = 8;  // the load half unknown: the sum is unknown
  k->limits = cu::KernelLimits{32, 0, 1024, 1};
  return k;
}

TEST(LabKernelInfo, ArchNumber) {
  EXPECT_EQ(lab::arch_number("sm_90a"), 90);
  EXPECT_EQ(lab::arch_number("sm_80"), 80);
  EXPECT_EQ(lab::arch_number("compute_90"), 0);
}

TEST(LabKernelInfo, NumericFieldsOfflineAreKnownOrUnknown) {
  const auto k = offline_kernel();
  std::optional<long long> v;
  ASSERT_TRUE(lab::kernel_number(*k, "regs", v));
  EXPECT_EQ(v, 32);
  ASSERT_TRUE(lab::kernel_number(*k, "local_bytes", v));
  EXPECT_EQ(v, std::nullopt);  // nil, never 0
  ASSERT_TRUE(lab::kernel_number(*k, "spill_bytes", v));
  EXPECT_EQ(v, std::nullopt);
  ASSERT_TRUE(lab::kernel_number(*k, "ptx_version", v));
  EXPECT_EQ(v, 90);  // offline: the architecture's number
  ASSERT_TRUE(lab::kernel_number(*k, "max_threads", v));
  EXPECT_EQ(v, 1024);
  EXPECT_FALSE(lab::kernel_number(*k, "colour", v));
}

TEST(LabKernelInfo, SummaryAndSignatureOfAnUndeclaredExternCKernel) {
  const auto k = offline_kernel();
  EXPECT_EQ(lab::signature_text(*k), "saxpy(?)  -- extern \"C\": declare it with m:kernel(name, \"types\")");
  EXPECT_EQ(lab::kernel_summary(*k),
            "saxpy(?)  -- extern \"C\": declare it with m:kernel(name, \"types\")  [32 regs, 0 B shared, ? B "
            "local, max 1024 threads, sm_90a]");
}

// An extern "C" kernel whose types could not be told: the hint names the list as the
// source writes it, or, when the source has none (a kernel made by a macro), the count and
// sizes to declare.
TEST(LabKernelInfo, HintNamesTheListAsWritten) {
  const auto k = offline_kernel();
  k->mangled = "saxpy";
  k->sizes = {8, 4};
  k->module->result.extern_c = {{"saxpy", "REAL* x, int n", false, "", "NVRTC could not tell them"}};
  EXPECT_EQ(
      lab::signature_text(*k),
      "saxpy(?)  -- extern \"C\", types unknown: declare them with m:kernel(\"saxpy\", \"REAL* x, int n\")");
  EXPECT_EQ(lab::arity_error(*k, 2),
            "kernel saxpy is extern \"C\" and its parameter types are unknown (NVRTC could not tell them): "
            "declare its parameters with m:kernel(\"saxpy\", \"REAL* x, int n\")");
  k->module->result.extern_c[0].written = "";
  EXPECT_EQ(lab::arity_error(*k, 0),
            "kernel saxpy is extern \"C\" and its parameter types are unknown (NVRTC could not tell them): "
            "declare its 2 parameters (8 and 4 bytes) with m:kernel(\"saxpy\", \"type, type\")");
}

TEST(LabKernelInfo, OccupancyRequestErrors) {
  auto k = offline_kernel();
  auto err = [&](long long block, long long shared = 0, long long carveout = -1) {
    return lab::occupancy_error(*k, lab::OccupancyRequest{block, shared, carveout}, h100());
  };
  EXPECT_EQ(err(256), std::nullopt);
  EXPECT_EQ(err(0), "occupancy needs block = <threads per block> >= 1");
  EXPECT_EQ(err(1ll << 40),
            "occupancy: a block of 1099511627776 threads is more than any device runs (at most 1024)");
  EXPECT_EQ(err(256, -1), "occupancy: shared must be a byte count >= 0, got -1");
  EXPECT_EQ(err(256, 0, 101),
            "occupancy: carveout must be a percentage 0..100 (or -1, the default), got 101");
  k->res.registers.reset();
  EXPECT_EQ(
      err(256),
      "occupancy: the register count of kernel saxpy is unknown (the compile could not read it), and the "
      "calculator does not guess");
}

TEST(LabKernelInfo, OccupancyReportOfflineHasNoDriverAnswer) {
  const auto k = offline_kernel();
  const lab::OccupancyReport r = lab::occupancy_report(*k, lab::OccupancyRequest{256, 0, -1}, h100());
  EXPECT_EQ(r.calc.blocks_per_sm, 8);
  EXPECT_EQ(r.calc.active_warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(r.calc.occupancy, 1.0);
  EXPECT_FALSE(r.has_driver);
  EXPECT_TRUE(r.driver_error.empty());
}

}  // namespace
