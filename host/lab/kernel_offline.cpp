// kernel_offline.cpp: what a kernel's PTX entry tells when no driver can be asked (a
// profile, no GPU): its parameter layout and its own thread cap (.maxntid / .reqntid from
// __launch_bounds__, combined with the register limit), so offline launch checks see what
// the driver would report; and, live or not, the launch rules its code carries (clusters,
// architecture).
#include <algorithm>
#include <cstdlib>
#include <optional>

#include "cu/occupancy.hpp"
#include "lab/module.hpp"
#include "rtc/ptx.hpp"

namespace warplab::lab {

int compiled_max_threads(const rtc::CompileResult& r, const std::string& mangled, const cu::KernelLimits& k,
                         const cu::DeviceLimits& d) {
  const std::optional<rtc::PtxEntry> e = rtc::ptx_entry(r.ptx, mangled);
  cu::KernelLimits bare = k;
  bare.max_threads_per_block = 0;
  int cap = cu::max_block_threads(bare, d);
  if (e && e->max_threads() > 0) cap = static_cast<int>(std::min<long long>(cap, e->max_threads()));
  return cap;
}

void offline_max_threads(KernelObj& k, const cu::DeviceLimits& d) {
  k.limits.max_threads_per_block = compiled_max_threads(k.module->result, k.mangled, k.limits, d);
}

void set_code_arch(cu::KernelLimits& k, const std::string& arch) {
  k.code_arch = arch.rfind("sm_", 0) == 0 ? std::atoi(arch.c_str() + 3) : 0;  // compute_XX: PTX, unknown
  const char last = arch.empty() ? 0 : arch.back();
  k.code_arch_variant = k.code_arch && (last == 'a' || last == 'f') ? last : 0;
}

void code_rules(KernelObj& k) {
  set_code_arch(k.limits, k.module->result.arch);
  const std::optional<rtc::PtxEntry> e = rtc::ptx_entry(k.module->result.ptx, k.mangled);
  if (!e) return;
  for (int i = 0; i < 3; ++i) k.limits.cluster[i] = e->cluster[static_cast<std::size_t>(i)];
  k.limits.cluster_explicit = e->explicit_cluster;
  k.limits.max_cluster_blocks = static_cast<int>(std::min(e->max_cluster_rank, 1u << 30));
}

void ptx_layout(KernelObj& k) {
  // Each parameter at the next multiple of its alignment, as the driver lays out the
  // parameter buffer. Without the entry, natural alignment from the signature's sizes.
  const std::optional<rtc::PtxEntry> e = rtc::ptx_entry(k.module->result.ptx, k.mangled);
  std::size_t next = 0;
  auto place = [&](std::size_t align, std::size_t size) {
    align = std::max<std::size_t>(1, std::min<std::size_t>(align, 16));
    next = (next + align - 1) / align * align;
    k.offsets.push_back(next);
    k.sizes.push_back(size);
    next += size;
  };
  if (e) {
    for (const rtc::PtxParam& p : e->params) place(p.align, p.bytes);
  } else if (k.sig) {
    for (const auto& p : k.sig->params) {
      const std::size_t size = p.size > 0 ? static_cast<std::size_t>(p.size) : 8;
      place(std::min<std::size_t>(size, 8), size);
    }
  }
}

}  // namespace warplab::lab
