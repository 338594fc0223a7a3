// watch/resources.hpp: the line `warplab watch` prints per changed kernel after a run: every
// resource and limit the kernel's code carries that moved (registers, spills, stack, shared
// and constant memory, launch bounds, cluster directives), old -> new, and the occupancy at
// the block size the script launches it with (cu/occupancy.hpp, on the run's device). Reads
// the feed files a run leaves in the code folder (lab/watch_feed.hpp). No Lua, no driver.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "cu/limits.hpp"
#include "lab/module.hpp"
#include "rtc/elf.hpp"
#include "rtc/ptx.hpp"

namespace warplab::app::watch {

// One kernel as one run built it, and how the script launched it.
struct KernelNumbers {
  rtc::ElfKernel elf;                      // from the CUBIN
  long spill_store = -1, spill_load = -1;  // from the ptxas report; -1: unknown
  rtc::PtxEntry entry;                     // from the PTX: min blocks per SM, cluster directives
  lab::LastLaunch launch;                  // the last launch known when it ran (threads 0: none)
};

// "regs 32→40, max threads 1024→256 (__launch_bounds__), occupancy 100 %→75 % at block 256
// (8→6 blocks/SM, limiter warps→registers)" (the kernel's name goes before it): what moved,
// then, on `dev`, the occupancy of the old code at its launch and of the new code at its own
// (a run that did not launch it takes the other's; "at block 128→256" when the script's block
// size moved); "(same: 8 blocks/SM, limiter warps)" when the occupancy did not move. A block
// size or dynamic shared memory the script changed is a move too. "" when nothing moved.
std::string resource_line(const KernelNumbers& before, const KernelNumbers& after,
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
