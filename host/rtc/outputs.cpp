// outputs.cpp: see outputs.hpp.
#include "rtc/outputs.hpp"

#include "rtc/elf.hpp"

namespace warplab::rtc {
namespace {

void lower_names(nvrtcProgram p, const Options& opt, CompileResult& r) {
  for (const std::string& e : opt.name_expressions) {
    const char* lowered = nullptr;  // owned by the program: copied before it is destroyed
    if (nvrtcGetLoweredName(p, e.c_str(), &lowered) == NVRTC_SUCCESS && lowered)
      r.lowered.emplace_back(e, lowered);
  }
}

}  // namespace

// PTX, cubin, entries, per-entry resources and lowered names of a program that compiled.
void collect_outputs(nvrtcProgram p, const Options& opt, CompileResult& r) {
  std::size_t n = 0;
  WL_RTC_CHECK(nvrtcGetPTXSize(p, &n));
  r.ptx.assign(n, '\0');
  WL_RTC_CHECK(nvrtcGetPTX(p, r.ptx.data()));
  while (!r.ptx.empty() && r.ptx.back() == '\0') r.ptx.pop_back();
  r.entries = ptx_entries(r.ptx);
  if (is_virtual_arch(r.arch)) {  // PTX only: the kernels are known by name alone
    r.kernels.clear();
    for (const std::string& e : r.entries) {
      KernelResources k;
      k.mangled = e;
      r.kernels.push_back(std::move(k));
    }
    r.resource_notes.push_back(r.arch + " is a virtual architecture: PTX only, no cubin, so no resources");
    lower_names(p, opt, r);
    return;
  }
  // A real sm_XX target always yields a cubin.
  WL_RTC_CHECK(nvrtcGetCUBINSize(p, &n));
  r.cubin.resize(n);
  WL_RTC_CHECK(nvrtcGetCUBIN(p, r.cubin.data()));
  // One record per entry, in PTX order: the CUBIN's numbers, the report's spills.
  std::vector<ElfKernel> elf;
  try {
    elf = read_cubin(r.cubin);
  } catch (const Error& e) {
    r.resource_notes.push_back(std::string(e.what()) + ": resources come from the ptxas report alone");
  }
  const std::vector<KernelResources> report = std::move(r.kernels);
  r.kernels = merge_resources(r.entries, elf, report, r.resource_notes);
  if (!r.entries.empty() && report.empty())
    r.resource_notes.push_back("spill counts unknown: NVRTC " + r.nvrtc_version +
                               "'s log has no ptxas report (its own compile cache answered)");
  lower_names(p, opt, r);
}

}  // namespace warplab::rtc
