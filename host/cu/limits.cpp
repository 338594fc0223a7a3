// limits.cpp: a device's limits read from its snapshot, and the documented block slots of
// each architecture.
#include "cu/limits.hpp"

namespace warplab::cu {

int documented_max_blocks_per_sm(int major, int minor) {
  switch (major) {
    case 3:
      return 16;
    case 7:
      return minor == 5 ? 16 : 32;
    case 8:
      return minor == 0 ? 32 : minor == 9 ? 24 : 16;
    case 9:
    case 10:
    case 11:
      return (major == 10 && minor == 1) || (major == 11 && minor == 0) ? 24 : 32;
    case 12:
      return 24;
    default:
      return 32;  // 5.x, 6.x
  }
}

DeviceLimits device_limits(const DeviceSnapshot& s) {
  DeviceLimits d;
  auto req = [&](const char* name) { return s.require(name); };
  auto opt = [&](const char* name, long long fallback) { return s.attr(name).value_or(fallback); };
  d.cc_major = s.cc_major ? s.cc_major : static_cast<int>(opt("compute_capability_major", 0));
  d.cc_minor = s.cc_major ? s.cc_minor : static_cast<int>(opt("compute_capability_minor", 0));
  d.warp_size = static_cast<int>(req("warp_size"));
  // An architecture profile does not know the SM count: 0, and grid-wide checks skip it.
  d.multiprocessor_count =
      static_cast<int>(s.is_unknown("multiprocessor_count") ? 0 : req("multiprocessor_count"));
  d.max_threads_per_block = static_cast<int>(req("max_threads_per_block"));
  d.max_block_dim[0] = static_cast<int>(req("max_block_dim_x"));
  d.max_block_dim[1] = static_cast<int>(req("max_block_dim_y"));
  d.max_block_dim[2] = static_cast<int>(req("max_block_dim_z"));
  d.max_grid_dim[0] = req("max_grid_dim_x");
  d.max_grid_dim[1] = req("max_grid_dim_y");
  d.max_grid_dim[2] = req("max_grid_dim_z");
  d.max_shared_per_block = req("max_shared_memory_per_block");
  d.max_shared_per_block_optin = opt("max_shared_memory_per_block_optin", d.max_shared_per_block);
  d.reserved_shared_per_block = opt("reserved_shared_memory_per_block", 0);
  d.max_shared_per_sm = req("max_shared_memory_per_multiprocessor");
  d.max_regs_per_block = req("max_registers_per_block");
  d.max_regs_per_sm = req("max_registers_per_multiprocessor");
  d.max_threads_per_sm = static_cast<int>(req("max_threads_per_multiprocessor"));
  d.max_blocks_per_sm = static_cast<int>(
      opt("max_blocks_per_multiprocessor", documented_max_blocks_per_sm(d.cc_major, d.cc_minor)));
  d.cooperative_launch = opt("cooperative_launch", 0) != 0;
  d.cooperative_known = s.attr("cooperative_launch") || !s.is_unknown("cooperative_launch");
  return d;
}

}  // namespace warplab::cu
