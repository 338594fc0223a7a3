// watch/resources.cpp: the per-kernel line of `warplab watch` (resources.hpp). The numbers
// are those `warplab compile` prints (the CUBIN's, the report's spills) and the directives of
// the PTX; occupancy is warplab's own calculator at the script's launch, so the line is the
// same offline and on a GPU.
#include "app/watch/resources.hpp"

#include <algorithm>
#include <array>
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

// "100 %"; "0 %" when no block fits (the sentence why follows the blocks per SM).
std::string occupancy_text(const cu::OccupancyResult& r) {
  return r.blocks_per_sm > 0 ? percent(r.occupancy) : "0 %";
}

std::string limiter_text(const cu::OccupancyResult& r) { return std::string(cu::limiter_name(r.limiter)); }

// "x→y", or "x" when both are the same.
std::string moved(const std::string& x, const std::string& y) { return x == y ? x : x + kArrow + y; }

// "2x1x1"; "none" when not declared (zeros).
std::string dims_text(const std::array<unsigned, 3>& d) {
  if (!d[0]) return "none";
  return std::to_string(d[0]) + "x" + std::to_string(std::max(1u, d[1])) + "x" +
         std::to_string(std::max(1u, d[2]));
}

long product(const std::array<unsigned, 3>& d) {
  return d[0] ? static_cast<long>(d[0]) * std::max(1u, d[1]) * std::max(1u, d[2]) : 0;
}

// The bound the code declares (__launch_bounds__: .maxntid; .reqntid), the smaller of the
// two; 0: none.
long declared_threads(const rtc::ElfKernel& k) {
  const long a = product(k.max_threads), b = product(k.reqntid);
  return a && b ? std::min(a, b) : std::max(a, b);
}

// The threads per block the kernel's code allows (the kernel's max_threads_per_block, as the
// driver reports it): its declared bound (__launch_bounds__: .maxntid, .reqntid) or the
// largest block whose registers fit, whichever is smaller, with what sets it. Without a
// device only the declared bound is known (-1: none).
struct ThreadCap {
  long threads = -1;
  const char* why = "";
};

ThreadCap thread_cap(const rtc::ElfKernel& k, const cu::DeviceLimits* dev) {
  const long declared = declared_threads(k);
  if (!dev) return declared ? ThreadCap{declared, "__launch_bounds__"} : ThreadCap{};
  cu::KernelLimits bare = kernel_limits(k);
  bare.max_threads_per_block = 0;
  const long fit = cu::max_block_threads(bare, *dev);
  if (declared && declared <= fit) return {declared, "__launch_bounds__"};
  return {fit, fit > 0 && fit < dev->max_threads_per_block ? "registers" : ""};
}

// "occupancy 100 %→37.5 % at block 256 (8→3 blocks/SM, limiter warps→registers)": the old
// code at launch `la`, the new at `lb`.
std::string occupancy_part(const KernelNumbers& a, const lab::LastLaunch& la, const KernelNumbers& b,
                           const lab::LastLaunch& lb, const cu::DeviceLimits& dev) {
  const auto ra = cu::occupancy(kernel_limits(a.elf), static_cast<int>(la.threads), la.dynamic_shared, dev);
  const auto rb = cu::occupancy(kernel_limits(b.elf), static_cast<int>(lb.threads), lb.dynamic_shared, dev);
  const std::string occ = moved(occupancy_text(ra), occupancy_text(rb));
  std::string out = "occupancy " + occ + " at block " +
                    moved(std::to_string(la.threads), std::to_string(lb.threads)) + " (";
  if (occ.find(kArrow) == std::string::npos && ra.blocks_per_sm == rb.blocks_per_sm) out += "same: ";
  out += moved(std::to_string(ra.blocks_per_sm), std::to_string(rb.blocks_per_sm)) + " blocks/SM";
  if (rb.blocks_per_sm == 0)  // why no block fits: one sentence, not a limiter's name
    return out + ": " + (rb.reason.empty() ? std::string("no block fits") : rb.reason) + ")";
  const std::string old_limiter = ra.blocks_per_sm > 0 ? limiter_text(ra) : limiter_text(rb);
  return out + ", limiter " + moved(old_limiter, limiter_text(rb)) + ")";
}

}  // namespace

cu::KernelLimits kernel_limits(const rtc::ElfKernel& k) {
  cu::KernelLimits l;
  l.regs = k.registers.value_or(0);
  l.static_shared = static_cast<int>(k.shared_bytes);
  l.max_threads_per_block = static_cast<int>(declared_threads(k));  // 0: none declared
  l.barriers = std::max(1, k.barriers);
  return l;
}

std::string resource_line(const KernelNumbers& a, const KernelNumbers& b, const cu::DeviceLimits* dev) {
  std::string out;
  auto item = [&](const char* what, const std::string& x, const std::string& y,
                  const std::string& tail = "") {
    if (x == y) return;
    out += (out.empty() ? "" : ", ") + std::string(what) + " " + x + kArrow + y + tail;
  };
  auto num = [](long v, const char* unknown = "?") {
    return v < 0 ? std::string(unknown) : std::to_string(v);
  };
  auto bytes = [&](const char* what, long x, long y) {
    if (x != y) item(what, num(x), num(y), " B");
  };
  item("regs", num(a.elf.registers.value_or(-1)), num(b.elf.registers.value_or(-1)));
  item("register cap", a.elf.max_registers > 0 ? num(a.elf.max_registers) : "none",
       b.elf.max_registers > 0 ? num(b.elf.max_registers) : "none");
  const auto spills = [](const KernelNumbers& k) {
    return k.spill_store < 0 || k.spill_load < 0 ? -1L : k.spill_store + k.spill_load;
  };
  bytes("spills", spills(a), spills(b));
  bytes("stack", a.elf.stack_bytes, b.elf.stack_bytes);
  bytes("shared", a.elf.shared_bytes, b.elf.shared_bytes);
  // The launches: each run's own, or the other's when it did not launch the kernel.
  const lab::LastLaunch& la = a.launch.threads ? a.launch : b.launch;
  const lab::LastLaunch& lb = b.launch.threads ? b.launch : a.launch;
  bytes("dynamic shared", la.dynamic_shared, lb.dynamic_shared);
  bytes("constant", a.elf.const_bytes, b.elf.const_bytes);
  item("barriers", num(a.elf.barriers), num(b.elf.barriers));
  const ThreadCap ca = thread_cap(a.elf, dev), cb = thread_cap(b.elf, dev);
  item("max threads", num(ca.threads), num(cb.threads), *cb.why ? std::string(" (") + cb.why + ")" : "");
  item("required block", dims_text(a.elf.reqntid), dims_text(b.elf.reqntid));
  item("min blocks/SM", a.entry.min_blocks ? num(a.entry.min_blocks) : "none",
       b.entry.min_blocks ? num(b.entry.min_blocks) : "none");
  item("cluster", dims_text(a.entry.cluster), dims_text(b.entry.cluster));
  if (a.entry.cluster == b.entry.cluster)  // a compile-time cluster implies clusters only
    item("clusters only", a.entry.explicit_cluster ? "yes" : "no", b.entry.explicit_cluster ? "yes" : "no");
  item("max cluster blocks", a.entry.max_cluster_rank ? num(a.entry.max_cluster_rank) : "none",
       b.entry.max_cluster_rank ? num(b.entry.max_cluster_rank) : "none");
  const bool block_moved = la.threads != lb.threads;
  if ((out.empty() && !block_moved) || lb.threads == 0 || !dev) return out;
  return out + (out.empty() ? "" : ", ") + occupancy_part(a, la, b, lb, *dev);
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
