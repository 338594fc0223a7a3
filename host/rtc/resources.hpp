// resources.hpp: per-kernel resource use read from the ptxas report that NVRTC puts in
// its log under --ptxas-options=-v (registers, barriers, shared/constant memory, stack,
// spills). Pure text parsing; works for any architecture without a GPU.
#pragma once
#include <string>
#include <vector>

namespace warplab::rtc {

struct KernelResources {
  std::string mangled;        // the entry's name as in the PTX ("_Z1kPKfPfi", or "k")
  int registers = 0;          // per thread
  int barriers = 0;           // named barriers used (__syncthreads uses barrier 0)
  long shared_bytes = 0;      // static shared memory per block
  // Constant banks ptxas attributes to the kernel, bank 0 (parameters, driver values)
  // excluded. ptxas reports none for sm_90 and newer, so 0 there.
  long const_bytes = 0;
  long stack_bytes = 0;       // per thread: cumulative stack size, else the own frame
  long spill_store_bytes = 0;
  long spill_load_bytes = 0;
};

// One entry per "Compiling entry function" block, in log order. Lines about other
// functions (non-inlined device functions) are not mistaken for a kernel's.
std::vector<KernelResources> parse_ptxas_report(const std::string& log);

}  // namespace warplab::rtc
