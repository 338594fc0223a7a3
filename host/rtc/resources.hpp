// resources.hpp: per-kernel resource use. The CUBIN (rtc/elf.hpp) gives registers,
// barriers, shared/constant memory and stack; the ptxas report that NVRTC puts in its log
// under --ptxas-options=-v adds spills and is cross-checked against the binary. A number
// neither source gives stays unknown (nullopt), never 0. Pure parsing, no GPU.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "rtc/elf.hpp"

namespace warplab::rtc {

struct KernelResources {
  std::string mangled;               // the entry's name as in the PTX ("_Z1kPKfPfi", or "k")
  std::optional<int> registers;      // per thread
  std::optional<int> barriers;       // barriers used (__syncthreads uses barrier 0)
  std::optional<long> shared_bytes;  // static shared memory per block
  // Constant banks other than bank 0 (parameters, driver values) attributed to the kernel.
  std::optional<long> const_bytes;
  std::optional<long> stack_bytes;        // per thread: cumulative stack size, else the own frame
  std::optional<long> spill_store_bytes;  // only the ptxas report says these
  std::optional<long> spill_load_bytes;

  // Every number known: what the on-disk cache insists on before it stores an entry.
  bool complete() const {
    return registers && barriers && shared_bytes && const_bytes && stack_bytes && spill_store_bytes &&
           spill_load_bytes;
  }
};

// One entry per "Compiling entry function" block, in log order. Lines about other
// functions (non-inlined device functions) are not mistaken for a kernel's.
// A kernel's numbers stay unknown where the report says nothing (sm_90 reports no cmem).
std::vector<KernelResources> parse_ptxas_report(const std::string& log);

// One record per entry: the binary's numbers, the report's spills. Where both speak and
// differ, the binary wins and `notes` gains a sentence naming the kernel and both numbers;
// where a kernel has neither, its record names only the entry.
std::vector<KernelResources> merge_resources(const std::vector<std::string>& entries,
                                             const std::vector<ElfKernel>& elf,
                                             const std::vector<KernelResources>& report,
                                             std::vector<std::string>& notes);

}  // namespace warplab::rtc
