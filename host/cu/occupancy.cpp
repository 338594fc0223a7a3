// occupancy.cpp: warplab's occupancy calculator. The architecture facts (allocation
// granularities, shared-memory carveout sizes, how the default carveout is chosen) are
// those NVIDIA documents in cuda_occupancy.h; the code is our own. The calculator is pure
// integer math; only driver_occupancy() calls the driver.
#include "cu/occupancy.hpp"

#include <algorithm>
#include <span>

#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/function.hpp"

namespace warplab::cu {
namespace {

// Per-architecture constants the attributes do not expose.
struct ArchFacts {
  int reg_granularity = 256;  // registers are allocated per warp in units of this
  int max_regs_per_thread = 256;
  int sub_partitions = 4;              // register file split into this many quarters (SMSPs)
  int smem_granularity = 128;          // shared memory per block is rounded up to this
  int default_max_blocks = 32;         // used only when the limits lack the attribute
  int barrier_factor = 0;              // named-barrier slots = factor x block slots; 0: no limit
  std::span<const int> carveouts_kib;  // shared-memory sizes (KiB) an SM can be set to
};

// The carveout configurations per architecture family.
constexpr int kVolta[] = {0, 8, 16, 32, 64, 96};
constexpr int kTuring[] = {32, 64};
constexpr int kA100[] = {0, 8, 16, 32, 64, 100, 132, 164};              // sm_80, sm_87
constexpr int kAmpereSmall[] = {0, 8, 16, 32, 64, 100};                 // sm_86, sm_89, sm_12x
constexpr int kHopper[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};  // sm_90, sm_10x, sm_11x

ArchFacts arch_facts(int major, int minor) {
  ArchFacts f;
  f.max_regs_per_thread = major >= 7 ? 256 : 255;
  f.sub_partitions = (major == 6 && minor == 0) ? 2 : 4;
  f.smem_granularity = major >= 8 ? 128 : 256;
  f.default_max_blocks = documented_max_blocks_per_sm(major, minor);
  switch (major) {
    case 7:
      f.carveouts_kib = minor == 5 ? std::span<const int>(kTuring) : std::span<const int>(kVolta);
      break;
    case 8:
      f.carveouts_kib =
          (minor == 0 || minor == 7) ? std::span<const int>(kA100) : std::span<const int>(kAmpereSmall);
      break;
    case 9:
    case 10:
    case 11:
      f.barrier_factor = f.default_max_blocks == 24 ? 1 : 2;
      f.carveouts_kib = kHopper;
      break;
    case 12:
      f.barrier_factor = 1;
      f.carveouts_kib = kAmpereSmall;
      break;
    default:
      break;  // 3.x, 5.x, 6.x: dedicated shared memory, no carveout
  }
  return f;
}

long long round_up(long long x, long long unit) { return unit > 0 ? (x + unit - 1) / unit * unit : x; }

// The smallest carveout configuration holding `bytes`; the largest when none does.
long long align_carveout(long long bytes, const ArchFacts& f) {
  long long last = bytes;
  for (int kib : f.carveouts_kib) {
    last = kib * 1024LL;
    if (bytes <= last) return last;
  }
  return last;
}

std::string n(long long v) { return std::to_string(v); }

}  // namespace

std::string_view limiter_name(Limiter l) {
  switch (l) {
    case Limiter::warps:
      return "warps";
    case Limiter::registers:
      return "registers";
    case Limiter::shared_memory:
      return "shared memory";
    case Limiter::blocks:
      return "blocks";
    case Limiter::barriers:
      return "barriers";
    default:
      return "none";
  }
}

OccupancyResult occupancy(const KernelLimits& k, int block, long long dynamic_shared, const DeviceLimits& d,
                          int carveout_percent) {
  OccupancyResult r;
  if (d.warp_size <= 0 || d.max_threads_per_sm <= 0 || d.max_regs_per_sm <= 0) {
    r.reason =
        "the device limits are incomplete (warp_size, max_threads_per_multiprocessor, "
        "max_registers_per_multiprocessor)";
    return r;
  }
  if (block <= 0 || dynamic_shared < 0) {
    r.reason = "block size must be positive and dynamic shared memory non-negative";
    return r;
  }
  const ArchFacts f = arch_facts(d.cc_major, d.cc_minor);
  const int wpb = (block + d.warp_size - 1) / d.warp_size;
  r.warps_per_block = wpb;
  r.max_warps_per_sm = d.max_threads_per_sm / d.warp_size;

  // Warp slots. A block larger than the device or kernel allows cannot run at all.
  r.by_warps = r.max_warps_per_sm / wpb;
  if (block > d.max_threads_per_block) {
    r.by_warps = 0;
    r.reason =
        "block of " + n(block) + " threads exceeds max_threads_per_block = " + n(d.max_threads_per_block);
  } else if (k.max_threads_per_block > 0 && block > k.max_threads_per_block) {
    r.by_warps = 0;
    r.reason = "block of " + n(block) +
               " threads exceeds the kernel's max_threads_per_block = " + n(k.max_threads_per_block);
  }

  // Registers: each warp gets regs x warp_size rounded up to the granularity, and warps
  // are placed in the SM's sub-partitions, each owning a quarter of the register file;
  // a warp cannot straddle two, so the per-quarter division truncates first. The
  // hardware's per-block check counts the block's warps rounded up to the quarters.
  const long long regs_per_warp = round_up(static_cast<long long>(k.regs) * d.warp_size, f.reg_granularity);
  r.regs_per_block = regs_per_warp * wpb;
  const long long hw_regs = regs_per_warp * round_up(wpb, f.sub_partitions);
  if (k.regs > f.max_regs_per_thread || r.regs_per_block > d.max_regs_per_block ||
      hw_regs > d.max_regs_per_block) {
    r.by_registers = 0;
    if (r.reason.empty())
      r.reason = "block of " + n(block) + " threads × " + n(k.regs) + " registers needs " +
                 n(std::max(hw_regs, r.regs_per_block)) + " registers (allocated per warp in units of " +
                 n(f.reg_granularity) + "), more than max_registers_per_block = " + n(d.max_regs_per_block);
  } else if (regs_per_warp == 0) {
    r.by_registers = kNoLimit;
  } else {
    const long long warps_per_quarter = (d.max_regs_per_sm / f.sub_partitions) / regs_per_warp;
    r.by_registers = static_cast<int>(warps_per_quarter * f.sub_partitions / wpb);
  }

  // Shared memory: static + dynamic + the driver's reserve, rounded to the granularity,
  // against the per-block cap (opt-in above 48 KiB) and the SM's carveout.
  // Past 2^40 bytes no device fits it (profiles cap shared memory at 1 GiB): capped, so
  // the sums below cannot overflow (a Lua script may ask for math.maxinteger).
  const long long used = k.static_shared + std::min(dynamic_shared, 1ll << 40);
  r.shared_per_block = round_up(used + d.reserved_shared_per_block, f.smem_granularity);
  const bool optin = used > d.max_shared_per_block;
  const long long cap = (optin ? d.max_shared_per_block_optin : d.max_shared_per_block) +
                        (d.cc_major >= 8 ? d.reserved_shared_per_block : 0);
  if (r.shared_per_block > cap) {
    r.by_shared = 0;
    if (r.reason.empty())
      r.reason = "static " + n(k.static_shared) + " + dynamic " + n(dynamic_shared) + " bytes exceeds " +
                 (optin ? "max_shared_memory_per_block_optin = " + n(d.max_shared_per_block_optin)
                        : "max_shared_memory_per_block = " + n(d.max_shared_per_block));
  } else {
    // The driver's default carveout is the whole shared capacity of the SM; a preferred
    // percentage is rounded up to a configuration the SM supports. Either is overridden
    // when one block needs more than the preference allows.
    long long pref =
        carveout_percent < 0 ? d.max_shared_per_sm : carveout_percent * d.max_shared_per_sm / 100;
    if (d.cc_major >= 7) pref = align_carveout(pref, f);
    long long per_sm = pref;
    if (pref < r.shared_per_block)
      per_sm = d.cc_major >= 7 ? align_carveout(r.shared_per_block, f) : d.max_shared_per_sm;
    r.shared_per_sm = per_sm;
    r.by_shared = r.shared_per_block > 0 ? static_cast<int>(per_sm / r.shared_per_block) : kNoLimit;
  }

  r.by_blocks = d.max_blocks_per_sm > 0 ? d.max_blocks_per_sm : f.default_max_blocks;
  // Named barriers (sm_90+): a fixed pool per SM shared by the resident blocks.
  if (d.cc_major >= 9 && f.barrier_factor > 0 && k.barriers > 0)
    r.by_barriers = f.barrier_factor * r.by_blocks / k.barriers;

  r.blocks_per_sm = std::min({r.by_warps, r.by_registers, r.by_shared, r.by_blocks, r.by_barriers});
  const std::pair<int, Limiter> order[] = {{r.by_warps, Limiter::warps},
                                           {r.by_registers, Limiter::registers},
                                           {r.by_shared, Limiter::shared_memory},
                                           {r.by_blocks, Limiter::blocks},
                                           {r.by_barriers, Limiter::barriers}};
  for (const auto& [v, l] : order) {
    if (v != r.blocks_per_sm) continue;
    r.limiting_mask |= static_cast<unsigned>(l);
    if (r.limiter == Limiter::none) r.limiter = l;
  }
  r.active_warps_per_sm = r.blocks_per_sm * wpb;
  r.occupancy =
      r.max_warps_per_sm > 0 ? static_cast<double>(r.active_warps_per_sm) / r.max_warps_per_sm : 0.0;
  if (r.blocks_per_sm == 0 && r.reason.empty())
    r.reason = "no block fits on an SM (limited by " + std::string(limiter_name(r.limiter)) + ")";
  return r;
}

OccupancyResult occupancy(const KernelLimits& k, int block, long long dynamic_shared, const DeviceSnapshot& d,
                          int carveout_percent) {
  return occupancy(k, block, dynamic_shared, device_limits(d), carveout_percent);
}

int max_block_threads(const KernelLimits& k, const DeviceLimits& d) {
  int best = 0;
  if (d.warp_size <= 0) return 0;
  for (int b = d.warp_size; b <= d.max_threads_per_block; b += d.warp_size)
    if (occupancy(k, b, 0, d).blocks_per_sm > 0) best = b;
  return best;
}

int driver_occupancy(const Function& f, int block_threads, std::size_t dynamic_shared, unsigned flags) {
  f.context()->make_current();
  // The driver answers for the kernel's current dynamic limit; raise it as launch() would.
  if (dynamic_shared > f.dynamic_shared_limit())
    f.ensure_dynamic_shared(static_cast<unsigned>(dynamic_shared));
  int blocks = 0;
  WL_CU_CHECK(api().cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, f.get(), block_threads,
                                                                         dynamic_shared, flags),
              "kernel " + f.name() + ", block " + std::to_string(block_threads) + ", " +
                  std::to_string(dynamic_shared) + " bytes dynamic shared");
  return blocks;
}

}  // namespace warplab::cu
