// watch/resources.cpp: the per-kernel line of `warplab watch` (resources.hpp). The numbers
// are those `warplab compile` prints (the CUBIN's, the report's spills); occupancy is
// warplab's own calculator, so the line is the same offline and on a GPU.
#include "app/watch/resources.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "cu/error.hpp"
#include "cu/occupancy.hpp"
#include "cu/profile.hpp"

namespace warplab::app::watch {
namespace {

const char* const kArrow = "\u2192";

std::string percent(double x) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.3g %%", 100.0 * x);
  return buf;
}

// "100 %", or why no block fits ("0 % (a block needs 80 KiB ...)" reads worse than the limiter).
std::string occupancy_text(const cu::OccupancyResult& r) {
  return r.blocks_per_sm > 0 ? percent(r.occupancy) : "0 %";
}

std::string limiter_text(const cu::OccupancyResult& r) {
  if (r.blocks_per_sm == 0) return r.reason.empty() ? "no block fits" : r.reason;
  return std::string(cu::limiter_name(r.limiter));
}

}  // namespace

cu::KernelLimits kernel_limits(const rtc::ElfKernel& k) {
  cu::KernelLimits l;
  l.regs = k.registers.value_or(0);
  l.static_shared = static_cast<int>(k.shared_bytes);
  const unsigned declared =
      k.max_threads[0] * std::max(1u, k.max_threads[1]) * std::max(1u, k.max_threads[2]);
  l.max_threads_per_block = static_cast<int>(declared);  // 0: none declared
  l.barriers = std::max(1, k.barriers);
  return l;
}

std::string resource_line(const KernelNumbers& a, const KernelNumbers& b, const lab::LastLaunch* at,
                          const cu::DeviceLimits* dev) {
  std::string out;
  auto item = [&](const char* what, long x, long y, const char* unit) {
    if (x == y) return;
    auto num = [](long v) { return v < 0 ? std::string("?") : std::to_string(v); };
    out += (out.empty() ? "" : ", ") + std::string(what) + " " + num(x) + kArrow + num(y) + unit;
  };
  item("regs", a.elf.registers.value_or(-1), b.elf.registers.value_or(-1), "");
  const auto spills = [](const KernelNumbers& k) {
    return k.spill_store < 0 || k.spill_load < 0 ? -1L : k.spill_store + k.spill_load;
  };
  item("spills", spills(a), spills(b), " B");
  item("stack", a.elf.stack_bytes, b.elf.stack_bytes, " B");
  item("shared", a.elf.shared_bytes, b.elf.shared_bytes, " B");
  item("barriers", a.elf.barriers, b.elf.barriers, "");
  if (out.empty() || !at || at->threads == 0 || !dev) return out;
  const int threads = static_cast<int>(at->threads);
  const auto ra = cu::occupancy(kernel_limits(a.elf), threads, at->dynamic_shared, *dev);
  const auto rb = cu::occupancy(kernel_limits(b.elf), threads, at->dynamic_shared, *dev);
  const std::string where = " at block " + std::to_string(threads);
  if (ra.active_warps_per_sm == rb.active_warps_per_sm && ra.blocks_per_sm == rb.blocks_per_sm)
    out += ", occupancy " + occupancy_text(rb) + where;
  else
    out += ", occupancy " + occupancy_text(ra) + kArrow + occupancy_text(rb) + where + " (" +
           limiter_text(rb) + ")";
  return out;
}

std::map<std::string, std::pair<long, long>> parse_spills(const std::string& text) {
  std::map<std::string, std::pair<long, long>> out;
  std::istringstream in(text);
  std::string name;
  long store = 0, load = 0;
  while (in >> name >> store >> load) out[name] = {store, load};
  return out;
}

std::map<std::string, lab::LastLaunch> parse_launches(const std::string& text) {
  std::map<std::string, lab::LastLaunch> out;
  std::istringstream in(text);
  std::string stem, mangled;
  unsigned threads = 0, shared = 0;
  while (in >> stem >> mangled >> threads >> shared) out[stem + "|" + mangled] = {threads, shared};
  return out;
}

std::optional<cu::DeviceLimits> parse_device(const std::string& text) {
  if (text.empty()) return std::nullopt;
  try {
    return cu::device_limits(cu::parse_profile(text, "the run's device"));
  } catch (const cu::Error&) {  // a run that died while writing it: no occupancy this time
    return std::nullopt;
  }
}

}  // namespace warplab::app::watch
