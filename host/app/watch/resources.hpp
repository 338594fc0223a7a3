// watch/resources.hpp: the line `warplab watch` prints per changed kernel after a good run:
// registers, spills, stack and shared memory old -> new, and the occupancy at the block size
// the run last launched it with (cu/occupancy.hpp, on the run's device). Reads the feed files a
// run leaves in the code folder (lab/watch_feed.hpp). No Lua, no driver.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "cu/limits.hpp"
#include "lab/module.hpp"
#include "rtc/elf.hpp"

namespace warplab::app::watch {

// One kernel as one run built it.
struct KernelNumbers {
  rtc::ElfKernel elf;                      // from the CUBIN
  long spill_store = -1, spill_load = -1;  // from the ptxas report; -1: unknown
};

// "reduce(float const*, float*): regs 20→32, occupancy 100 %→75 % at block 256 (registers)":
// what moved, then the occupancy at `at` on `dev` when both are known (with "the same" as
// its only change, just "occupancy 100 % at block 256"). "" when nothing moved.
std::string resource_line(const KernelNumbers& before, const KernelNumbers& after, const lab::LastLaunch* at,
                          const cu::DeviceLimits* dev);

// The occupancy calculator's view of a kernel's CUBIN numbers.
cu::KernelLimits kernel_limits(const rtc::ElfKernel& k);

// A `.spills` feed file: mangled name -> {store, load} bytes.
std::map<std::string, std::pair<long, long>> parse_spills(const std::string& text);
// The `launches` feed file: "<stem>|<mangled>" -> the last launch (later lines win).
std::map<std::string, lab::LastLaunch> parse_launches(const std::string& text);
// `device.json`: the limits of the run's device; nullopt when absent or unreadable.
std::optional<cu::DeviceLimits> parse_device(const std::string& text);

}  // namespace warplab::app::watch
