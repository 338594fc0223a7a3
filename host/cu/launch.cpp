// launch.cpp: the launch check (integer comparisons against cached limits; a Violation is
// built only when a check fails) and the launch through cuLaunchKernel,
// cuLaunchCooperativeKernel or, for thread-block clusters, cuLaunchKernelEx.
#include "cu/launch.hpp"

#include <cstdint>
#include <optional>
#include <string>

#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/function.hpp"
#include "cu/occupancy.hpp"

namespace warplab::cu {
namespace {

using u64 = std::uint64_t;

std::string dims(const Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

std::string num(long long v) { return std::to_string(v); }

// Out of line and cold: the happy path of check() stays a run of compares, and each
// sentence is built only in its (unlikely) branch.
[[gnu::cold]] [[gnu::noinline]] std::optional<Violation> broken(Limit limit, std::string sentence) {
  return Violation{limit, std::move(sentence)};
}

const char kAxis[3] = {'x', 'y', 'z'};

bool same(const Dim3& a, const unsigned (&b)[3]) { return a.x == b[0] && a.y == b[1] && a.z == b[2]; }

std::string dims(const unsigned (&d)[3]) { return dims(Dim3{d[0], d[1], d[2]}); }

// The cluster rules (launch.hpp lists them). A cooperative launch with a cluster is
// refused: cuLaunchKernelEx could carry both attributes, but the co-residency rule a
// cooperative grid needs would then have to count whole clusters on GPCs, which our
// calculator cannot do offline; a grid-wide barrier over clusters is not an experiment
// here, so warplab keeps the two kinds of launch apart. `driver`: the size above 8 blocks
// is the driver's to judge (check_schedule), not the offline maximum's.
std::optional<Violation> check_cluster(const LaunchConfig& c, const KernelLimits& kl, const DeviceLimits& d,
                                       bool driver) {
  const bool compiled = kl.cluster[0] != 0;
  if (c.clustered()) {
    const Dim3& k = c.cluster;
    if (!k.x || !k.y || !k.z) [[unlikely]]
      return broken(Limit::cluster_zero,
                    "cluster " + dims(k) + " has a zero dimension: each of x, y, z must be at least 1");
    if (compiled && !same(k, kl.cluster)) [[unlikely]]
      return broken(Limit::cluster_conflict,
                    "cluster " + dims(k) + " conflicts with the kernel's compile-time cluster " +
                        dims(kl.cluster) + " (__cluster_dims__): leave cluster out, or give " +
                        dims(kl.cluster));
  } else if (!compiled) [[unlikely]] {  // .explicitcluster alone: __cluster_dims__()
    return broken(Limit::cluster_required,
                  "the kernel is declared __cluster_dims__() without a size, so it runs only in "
                  "clusters: give cluster = {x, y, z}");
  }
  const Dim3 k = cluster_of(c, kl);
  // Built only for a sentence: the launch path allocates nothing.
  auto what = [&] { return c.clustered() ? "cluster " + dims(k) : "the compile-time cluster " + dims(k); };
  if (d.cc_major < 9) [[unlikely]]
    return broken(Limit::cluster_support,
                  "a cluster launch needs compute capability 9.0 or higher (cluster_launch = 1), and "
                  "this device is " +
                      num(d.cc_major) + "." + num(d.cc_minor));
  const u64 blocks = u64{k.x} * k.y * k.z;
  if (!driver && blocks > kMaxClusterBlocks) [[unlikely]]
    return broken(Limit::cluster_size,
                  what() + " = " + num(static_cast<long long>(blocks)) + " blocks exceeds " +
                      num(kMaxClusterBlocks) + ", the most blocks a cluster can hold (" +
                      num(kPortableClusterBlocks) + " portable, up to " + num(kMaxClusterBlocks) +
                      " with the non-portable opt-in where the device allows it)");
  if (kl.max_cluster_blocks > 0 && blocks > static_cast<u64>(kl.max_cluster_blocks)) [[unlikely]]
    return broken(Limit::cluster_rank, what() + " = " + num(static_cast<long long>(blocks)) +
                                           " blocks exceeds the kernel's own maximum of " +
                                           num(kl.max_cluster_blocks) +
                                           " blocks per cluster (the third value of its __launch_bounds__)");
  const unsigned grid[3] = {c.grid.x, c.grid.y, c.grid.z};
  const unsigned cl[3] = {k.x, k.y, k.z};
  for (int i = 0; i < 3; ++i)
    if (grid[i] % cl[i] != 0) [[unlikely]]
      return broken(Limit::cluster_grid, std::string("grid dimension ") + kAxis[i] + " = " + num(grid[i]) +
                                             " is not a multiple of " +
                                             (c.clustered() ? "" : "compile-time ") + "cluster dimension " +
                                             kAxis[i] + " = " + num(cl[i]));
  if (c.cooperative) [[unlikely]]
    return broken(Limit::cluster_cooperative, what() +
                                                  " with cooperative = true is refused: warplab launches a "
                                                  "grid either in clusters or cooperatively, not both");
  return std::nullopt;
}

// The driver's verdict on a cluster that passed the rules above.
std::optional<Violation> check_schedule(const Function& f, const LaunchConfig& c);

}  // namespace

std::optional<Violation> check(const LaunchConfig& c, const KernelLimits& k, const DeviceLimits& d,
                               const Function* driver) {
  const unsigned block[3] = {c.block.x, c.block.y, c.block.z};
  const unsigned grid[3] = {c.grid.x, c.grid.y, c.grid.z};
  // The code's architecture: SASS for sm_XY runs on X.Y to X.9 (sm_XYa on X.Y only).
  if (k.code_arch) {
    const int major = k.code_arch / 10, minor = k.code_arch % 10;
    if (d.cc_major != major || (k.code_arch_variant == 'a' ? d.cc_minor != minor : d.cc_minor < minor))
        [[unlikely]]
      return check_code(k, d);
  }
  if (!c.block.x || !c.block.y || !c.block.z) [[unlikely]]
    return broken(Limit::block_zero,
                  "block " + dims(c.block) + " has a zero dimension: each of x, y, z must be at least 1");
  if (!c.grid.x || !c.grid.y || !c.grid.z) [[unlikely]]
    return broken(Limit::grid_zero,
                  "grid " + dims(c.grid) + " has a zero dimension: each of x, y, z must be at least 1");

  for (int i = 0; i < 3; ++i)
    if (block[i] > static_cast<unsigned>(d.max_block_dim[i])) [[unlikely]]
      return broken(Limit::block_dim, std::string("block dimension ") + kAxis[i] + " = " + num(block[i]) +
                                          " exceeds max_block_dim_" + kAxis[i] + " = " +
                                          num(d.max_block_dim[i]));

  const u64 threads = u64{c.block.x} * c.block.y * c.block.z;
  if (threads > static_cast<u64>(d.max_threads_per_block)) [[unlikely]]
    return broken(Limit::threads_per_block,
                  "block " + dims(c.block) + " = " + num(static_cast<long long>(threads)) +
                      " threads exceeds max_threads_per_block = " + num(d.max_threads_per_block));
  if (k.max_threads_per_block > 0 && threads > static_cast<u64>(k.max_threads_per_block)) [[unlikely]]
    return broken(Limit::kernel_threads_per_block,
                  "block " + dims(c.block) + " = " + num(static_cast<long long>(threads)) +
                      " threads exceeds the kernel's max_threads_per_block = " +
                      num(k.max_threads_per_block) + " (set by its launch bounds or its register use)");

  // Registers as the hardware allocates them: per warp in units of 256, and the block's
  // warps rounded up to the SM's 4 sub-partitions (occupancy.cpp explains both).
  const u64 warp = d.warp_size > 0 ? static_cast<u64>(d.warp_size) : 32;
  const u64 warps = (threads + warp - 1) / warp;
  const u64 regs_per_warp = (u64(k.regs > 0 ? k.regs : 0) * warp + 255) / 256 * 256;
  const u64 warps_allocated = (warps + 3) / 4 * 4;
  if (regs_per_warp * warps_allocated > static_cast<u64>(d.max_regs_per_block)) [[unlikely]]
    return broken(Limit::registers_per_block,
                  "block " + dims(c.block) + " = " + num(static_cast<long long>(threads)) + " threads × " +
                      num(k.regs) + " registers needs " +
                      num(static_cast<long long>(regs_per_warp * warps_allocated)) + " registers (" +
                      num(static_cast<long long>(regs_per_warp)) + " per warp × " +
                      num(static_cast<long long>(warps_allocated)) +
                      " warps), more than max_registers_per_block = " + num(d.max_regs_per_block));

  for (int i = 0; i < 3; ++i)
    if (grid[i] > static_cast<u64>(d.max_grid_dim[i])) [[unlikely]]
      return broken(Limit::grid_dim, std::string("grid dimension ") + kAxis[i] + " = " + num(grid[i]) +
                                         " exceeds max_grid_dim_" + kAxis[i] + " = " +
                                         num(d.max_grid_dim[i]));

  // Dynamic shared memory above 48 KiB is opted in by launch(), up to the opt-in limit
  // minus the kernel's static shared memory.
  const long long shared = static_cast<long long>(k.static_shared) + c.shared_bytes;
  const bool has_optin = d.max_shared_per_block_optin > d.max_shared_per_block;
  const long long shared_cap = has_optin ? d.max_shared_per_block_optin : d.max_shared_per_block;
  if (shared > shared_cap) [[unlikely]]
    return broken(
        Limit::shared_memory,
        "static " + num(k.static_shared) + " + dynamic " + num(c.shared_bytes) + " bytes exceeds " +
            (has_optin ? "max_shared_memory_per_block_optin = " : "max_shared_memory_per_block = ") +
            num(shared_cap));

  if (c.clustered() || k.cluster_explicit) [[unlikely]] {
    if (auto v = check_cluster(c, k, d, driver != nullptr)) return v;
    if (!driver) return std::nullopt;  // a cluster is never cooperative (check_cluster)
    LaunchConfig asked = c;            // the compile-time cluster, when cluster = was left out
    asked.cluster = cluster_of(c, k);
    return check_schedule(*driver, asked);
  }

  if (c.cooperative) {
    // An architecture profile knows neither cooperative_launch nor the SM count: what it
    // cannot tell is not refused (a GPU decides), what it can (no block fits) is.
    if (d.cooperative_known && !d.cooperative_launch) [[unlikely]]
      return broken(Limit::cooperative_support,
                    "a cooperative launch needs cooperative_launch = 1, and this device has "
                    "cooperative_launch = 0");
    // Every block of a cooperative grid must be resident at once.
    const OccupancyResult occ =
        occupancy(k, static_cast<int>(threads), static_cast<long long>(c.shared_bytes), d);
    const bool sms_known = d.multiprocessor_count > 0;
    const u64 resident = u64(occ.blocks_per_sm) * u64(sms_known ? d.multiprocessor_count : 0);
    const u64 blocks = u64{c.grid.x} * c.grid.y * c.grid.z;
    if (!sms_known && occ.blocks_per_sm == 0) [[unlikely]]
      return broken(Limit::cooperative_residency,
                    "cooperative grid of " + num(static_cast<long long>(blocks)) + " blocks: " + occ.reason);
    if (sms_known && blocks > resident) [[unlikely]]
      return broken(Limit::cooperative_residency,
                    "cooperative grid of " + num(static_cast<long long>(blocks)) + " blocks exceeds the " +
                        num(static_cast<long long>(resident)) + " co-resident blocks (" +
                        num(occ.blocks_per_sm) + " per SM × " + num(d.multiprocessor_count) + " SMs)");
  }
  return std::nullopt;
}

std::optional<Violation> check_code(const KernelLimits& k, const DeviceLimits& d) {
  if (k.code_arch <= 0) return std::nullopt;
  const int major = k.code_arch / 10, minor = k.code_arch % 10;
  const bool exact = k.code_arch_variant == 'a';
  const bool runs = d.cc_major == major && (exact ? d.cc_minor == minor : d.cc_minor >= minor);
  if (runs) return std::nullopt;
  const std::string code =
      "sm_" + num(k.code_arch) + (k.code_arch_variant ? std::string(1, k.code_arch_variant) : "");
  const std::string rule =
      exact ? "runs on compute capability " + num(major) + "." + num(minor) + " only"
            : "runs on compute capability " + num(major) + "." + num(minor) + " to " + num(major) + ".9 only";
  return broken(Limit::architecture, "the kernel was compiled for " + code +
                                         ", and its code cannot run on this device of compute capability " +
                                         num(d.cc_major) + "." + num(d.cc_minor) + " (" + code + " code " +
                                         rule + "): compile for sm_" + num(d.cc_major * 10 + d.cc_minor));
}

Dim3 cluster_of(const LaunchConfig& c, const KernelLimits& k) {
  if (c.clustered()) return c.cluster;
  return {k.cluster[0], k.cluster[1], k.cluster[2]};
}

namespace {

// The driver's launch description of a cluster launch; `attr` must outlive its use.
CUlaunchConfig ex_config(const LaunchConfig& c, CUlaunchAttribute& attr) {
  attr = CUlaunchAttribute{};
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = c.cluster.x;
  attr.value.clusterDim.y = c.cluster.y;
  attr.value.clusterDim.z = c.cluster.z;
  CUlaunchConfig lc{};
  lc.gridDimX = c.grid.x, lc.gridDimY = c.grid.y, lc.gridDimZ = c.grid.z;
  lc.blockDimX = c.block.x, lc.blockDimY = c.block.y, lc.blockDimZ = c.block.z;
  lc.sharedMemBytes = c.shared_bytes;
  lc.hStream = c.stream;
  lc.attrs = &attr;
  lc.numAttrs = 1;
  return lc;
}

std::string describe(const Function& f, const LaunchConfig& c) {
  return "kernel " + f.name() + ", grid " + dims(c.grid) + ", block " + dims(c.block) +
         (c.clustered() ? ", cluster " + dims(c.cluster) : std::string()) + ", " + num(c.shared_bytes) +
         " bytes dynamic shared";
}

}  // namespace

namespace {

u64 blocks_of(const Dim3& k) { return u64{k.x} * k.y * k.z; }

// Dynamic shared memory and, above 8 blocks, the non-portable cluster size: what a launch
// of c opts the kernel into, and what the driver's answers about c assume.
void opt_in(const Function& f, const LaunchConfig& c) {
  if (c.shared_bytes > f.dynamic_shared_limit()) f.ensure_dynamic_shared(c.shared_bytes);
  if (c.clustered() && blocks_of(c.cluster) > kPortableClusterBlocks) f.allow_non_portable_clusters();
}

}  // namespace

int max_active_clusters(const Function& f, const LaunchConfig& c) {
  if (!c.clustered()) throw Error("max_active_clusters needs a launch with a cluster");
  opt_in(f, c);
  const Api& a = api();
  if (!a.cuOccupancyMaxActiveClusters)
    throw Error("this driver has no cuOccupancyMaxActiveClusters (clusters need CUDA 12.0+)");
  CUlaunchAttribute attr;
  const CUlaunchConfig lc = ex_config(c, attr);
  int n = 0;
  WL_CU_CHECK(a.cuOccupancyMaxActiveClusters(&n, f.get(), &lc), describe(f, c));
  return n;
}

int max_cluster_blocks(const Function& f, const LaunchConfig& c) {
  const Api& a = api();
  if (!a.cuOccupancyMaxPotentialClusterSize) return 0;
  LaunchConfig big = c;  // the opt-in, whatever c asks (the driver ignores its cluster size)
  big.cluster = {kMaxClusterBlocks, 1, 1};
  opt_in(f, big);
  CUlaunchAttribute attr;
  const CUlaunchConfig lc = ex_config(c, attr);
  int n = 0;
  WL_CU_CHECK(a.cuOccupancyMaxPotentialClusterSize(&n, f.get(), &lc), describe(f, c));
  return n;
}

namespace {

// The sentence for a cluster the driver refuses outright (CUDA_ERROR_INVALID_CLUSTER_SIZE):
// one the rules above let through that this device or kernel still cannot take.
[[gnu::cold]] std::optional<Violation> refused_size(const LaunchConfig& c) {
  return broken(Limit::cluster_size,
                "cluster " + dims(c.cluster) + " = " + num(static_cast<long long>(blocks_of(c.cluster))) +
                    " blocks is a size the driver refuses for this kernel on this device");
}

std::optional<Violation> check_schedule(const Function& f, const LaunchConfig& c) {
  try {
    const u64 blocks = blocks_of(c.cluster);
    if (blocks > kPortableClusterBlocks) {
      const int most = max_cluster_blocks(f, c);
      if (most > 0 && blocks > static_cast<u64>(most))
        return broken(Limit::cluster_size,
                      "cluster " + dims(c.cluster) + " = " + num(static_cast<long long>(blocks)) +
                          " blocks exceeds " + num(most) +
                          ", the largest cluster this device forms for this kernel with blocks of " +
                          dims(c.block) + " threads and " + num(c.shared_bytes) +
                          " bytes dynamic shared (cuOccupancyMaxPotentialClusterSize, with the "
                          "non-portable opt-in)");
      if (most == 0 && blocks > kMaxClusterBlocks)
        return broken(Limit::cluster_size, "cluster " + dims(c.cluster) + " = " +
                                               num(static_cast<long long>(blocks)) + " blocks exceeds " +
                                               num(kMaxClusterBlocks) +
                                               ", the largest cluster size there is");
    }
    if (max_active_clusters(f, c) > 0) return std::nullopt;
  } catch (const Error& e) {
    if (e.code() == CUDA_ERROR_INVALID_CLUSTER_SIZE) return refused_size(c);
    throw;
  }
  return broken(Limit::cluster_schedule,
                "cluster " + dims(c.cluster) + " of blocks of " + dims(c.block) + " threads and " +
                    num(c.shared_bytes) +
                    " bytes dynamic shared cannot be scheduled: "
                    "cuOccupancyMaxActiveClusters = 0 (all blocks of a cluster must be resident at once "
                    "on the SMs of one GPC)");
}

}  // namespace

void launch(const Function& f, const LaunchConfig& c, void** args) {
  if (c.shared_bytes > f.dynamic_shared_limit() || c.clustered()) [[unlikely]]
    opt_in(f, c);  // what the launch needs beyond the defaults
  const Api& a = api();
  if (c.clustered()) {
    if (!a.cuLaunchKernelEx)
      throw Error("this driver has no cuLaunchKernelEx (cluster launches need CUDA 12.0+)");
    CUlaunchAttribute attr;
    const CUlaunchConfig lc = ex_config(c, attr);
    const CUresult rc = a.cuLaunchKernelEx(&lc, f.get(), args, nullptr);
    if (rc != CUDA_SUCCESS) [[unlikely]]
      throw Error(rc, "cuLaunchKernelEx", describe(f, c));
    return;
  }
  const CUresult rc = c.cooperative
                          ? a.cuLaunchCooperativeKernel(f.get(), c.grid.x, c.grid.y, c.grid.z, c.block.x,
                                                        c.block.y, c.block.z, c.shared_bytes, c.stream, args)
                          : a.cuLaunchKernel(f.get(), c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y,
                                             c.block.z, c.shared_bytes, c.stream, args, nullptr);
  if (rc != CUDA_SUCCESS) [[unlikely]]
    throw Error(rc, c.cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel", describe(f, c));
}

}  // namespace warplab::cu
