// kernel_info.hpp: what a kernel handle tells about itself, without Lua: its signature
// text, its numeric fields (from the driver when live, else from the compile: unknown
// rather than guessed), the summary tostring() shows, and k:occupancy's checks and answer
// (warplab's calculator plus the driver's when live), its SASS. bind/kernel.cpp adapts them.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "cu/occupancy.hpp"
#include "lab/module.hpp"

namespace warplab::lab {

// "saxpy(const float*, float*, int)", or for an extern "C" kernel whose types are unknown a
// hint.
std::string signature_text(const KernelObj& k);
// For an extern "C" kernel whose types are unknown: why (a clause; "" when its module does
// not say), what to declare ("its parameters", or "its 2 parameters (8 and 4 bytes)" when
// the source's list was not found) and the call that declares them, with the list as the
// source writes it: m:kernel("k", "REAL* x, int n").
struct DeclareHint {
  std::string why, what, call;
};
DeclareHint declare_hint(const KernelObj& k);
// "sm_90a" -> 90: what CU_FUNC_ATTRIBUTE_PTX/BINARY_VERSION report for a kernel that
// NVRTC compiled for that architecture, so offline answers match the live ones; else 0.
int arch_number(const std::string& arch);
// The numeric field `key` of k (regs, shared_bytes, local_bytes, const_bytes, spill_bytes,
// barriers, max_threads, ptx_version, binary_version) into `value` (empty: unknown, nil
// in Lua); false when key is none of them.
bool kernel_number(const KernelObj& k, std::string_view key, std::optional<long long>& value);
// "saxpy(...)  [16 regs, 0 B shared, 0 B local, max 1024 threads, sm_90]" ('?': unknown).
std::string kernel_summary(const KernelObj& k);
// k.sass: the kernel's SASS from its module's CUBIN (rtc/sass.hpp: cuobjdump or nvdisasm).
// Throws rtc::Error when neither tool exists, or Error (bad_input) when the output has no such kernel.
std::string kernel_sass(const KernelObj& k);

// k:occupancy{block =, shared =, carveout =}, read.
struct OccupancyRequest {
  long long block = 0, shared = 0, carveout = -1;
};
// The request's first broken rule as the error's sentence, or nullopt.
std::optional<std::string> occupancy_error(const KernelObj& k, const OccupancyRequest& r,
                                           const cu::DeviceLimits& d);
// The answer to a valid request: the calculator's, and on a GPU without a carveout the
// driver's blocks per SM (a configuration it refuses is an answer, in driver_error;
// an asynchronous fault is thrown).
struct OccupancyReport {
  cu::OccupancyResult calc;
  bool has_driver = false;
  int driver_blocks = 0;
  std::string driver_error;
};
OccupancyReport occupancy_report(const KernelObj& k, const OccupancyRequest& r, const cu::DeviceLimits& d);

}  // namespace warplab::lab
