// limits.hpp: what a launch is checked against and occupancy is computed from: the
// device's limits, read once from a snapshot (live or a profile), and a kernel's own
// (resources, launch bounds, cluster directives, the architecture of its code).
#pragma once
#include "cu/device.hpp"

namespace warplab::cu {

// The device limits launch validation and occupancy need, read once from a snapshot so
// that checking a launch is integer comparisons, never a map lookup.
struct DeviceLimits {
  int cc_major = 0, cc_minor = 0;
  int warp_size = 32;
  int multiprocessor_count = 0;  // 0: unknown (an architecture profile): no grid-wide answer
  int max_threads_per_block = 0;
  int max_block_dim[3] = {0, 0, 0};
  long long max_grid_dim[3] = {0, 0, 0};
  long long max_shared_per_block = 0;        // without opt-in (48 KiB)
  long long max_shared_per_block_optin = 0;  // with cuFuncSetAttribute opt-in
  long long reserved_shared_per_block = 0;   // taken by the driver (1 KiB on sm_80+)
  long long max_shared_per_sm = 0;
  long long max_regs_per_block = 0;
  long long max_regs_per_sm = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  bool cooperative_launch = false;
  bool cooperative_known = true;  // false: the profile does not know cooperative_launch
};

// Reads the attributes above from `d`. Throws cu::Error naming a missing attribute and
// the snapshot's source; the optional ones (opt-in, reserved shared, blocks per SM,
// cooperative_launch) fall back to the architecture's documented values, and an unknown
// SM count or cooperative_launch (an architecture profile) is recorded as unknown.
DeviceLimits device_limits(const DeviceSnapshot& d);

// What a kernel uses, from the loaded Function (cuFuncGetAttribute) or from an offline
// compile's ptxas report.
struct KernelLimits {
  int regs = 0;                   // registers per thread
  int static_shared = 0;          // bytes of __shared__ declared in the kernel
  int max_threads_per_block = 0;  // the kernel's own cap (launch bounds, registers); 0: unknown
  int barriers = 1;               // named barriers used (ptxas "used B barriers")
  // What the launch check needs beyond resources (the PTX's directives, the module's arch):
  unsigned cluster[3] = {0, 0, 0};  // the compile-time cluster (__cluster_dims__); zeros: none
  bool cluster_explicit = false;    // launched only as clusters (.explicitcluster)
  int max_cluster_blocks = 0;       // blocks per cluster at most (.maxclusterrank); 0: no cap
  int code_arch = 0;                // the SASS it holds: 90 for sm_90, 120 for sm_120; 0: unknown
  char code_arch_variant = 0;       // 'a' (sm_90a: that compute capability only), 'f' (family), 0
};

// The resident blocks per SM of compute capability major.minor as NVIDIA documents them:
// what a snapshot without max_blocks_per_multiprocessor is taken to have.
int documented_max_blocks_per_sm(int cc_major, int cc_minor);

}  // namespace warplab::cu
