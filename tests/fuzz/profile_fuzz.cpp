// profile_fuzz.cpp: libFuzzer harness for the profile loader (cu::parse_profile), and for
// what consumes an accepted profile: the device limits, the offline max-threads search
// that once hung on warp_size 0 (issue 12, defect 4), the occupancy calculator and launch
// validation. Invariants: bad input is a cu::Error; an accepted profile written back with
// profile_text() parses again to the same attributes; nothing loops for long.
#include <algorithm>
#include <new>

#include "cu/error.hpp"
#include "cu/launch.hpp"
#include "cu/occupancy.hpp"
#include "cu/profile.hpp"
#include "fuzz_util.hpp"

using namespace warplab;

namespace {

// What kernel lookups do offline (lab/kernel_offline.cpp register_max_threads): every
// multiple of the warp size up to the block limit. Bounded, since the profile's ranges are.
void exercise(const cu::DeviceSnapshot& d) {
  const cu::DeviceLimits lim = cu::device_limits(d);
  const cu::KernelLimits kernels[] = {{32, 0, 0, 1}, {255, 48 * 1024, 0, 16}, {1, 0, 64, 0}};
  for (const cu::KernelLimits& k : kernels) {
    int steps = 0;
    for (int b = lim.warp_size; b <= lim.max_threads_per_block; b += lim.warp_size) {
      (void)cu::occupancy(k, b, 0, lim);
      if (++steps > 4096) fuzz::finding("the max-threads search takes over 4096 steps");
    }
    for (long long dyn : {0LL, 1LL << 16, 1LL << 40})
      for (int carve : {-1, 0, 50, 100}) (void)cu::occupancy(k, 256, dyn, lim, carve);
    cu::LaunchConfig c;
    c.grid = {1u << 20, 2, 1};
    c.block = {256, 1, 1};
    c.cooperative = true;
    fuzz::expect_only<std::bad_alloc>("cu::check",
                                      [&] { (void)cu::check(c, k, lim); });  // a value, never a throw
    c.cooperative = false;
    c.cluster = {2, 1, 1};
    fuzz::expect_only<std::bad_alloc>("cu::check",
                                      [&] { (void)cu::check(c, k, lim); });  // a value, never a throw
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::text(data, size);
  fuzz::expect_only<cu::Error>("cu::parse_profile", [&] {
    const cu::DeviceSnapshot d = cu::parse_profile(text, "fuzz.json");
    (void)d.summary();
    const cu::DeviceSnapshot again = cu::parse_profile(cu::profile_text(d), "again.json");
    if (again.attributes != d.attributes || again.name != d.name)
      fuzz::finding("a profile written by profile_text() reads back differently");
    try {
      exercise(d);
    } catch (const cu::Error&) {
      // A profile may lack an attribute the limits need: device_limits names it.
    }
  });
  return 0;
}
