// elf.hpp: what a CUBIN says about each kernel, read from its ELF without a GPU. NVRTC's
// log holds the ptxas report only when NVRTC compiled (its own cache answers silently);
// the binary always says the same numbers, so it is the source of truth for resources.
//   .nv.info            EIATTR_REGCOUNT, FRAME_SIZE, MIN/MAX_STACK_SIZE per function symbol
//   .nv.info.<kernel>   EIATTR_NUM_BARRIERS, MAX_THREADS (__launch_bounds__/.maxntid),
//                       REQNTID, MAXREG_COUNT
//   .nv.shared.<kernel> static shared memory (sm_90+: plus the 1 KiB the system reserves)
//   .nv.constant3       the module's __constant__ data: the driver counts it for every kernel
//   .nv.constantN.<kernel>, N != 0: the kernel's own constant banks (ptxas's per-kernel cmem)
//   .text.<kernel>      its code (the per-line map walks it)
// Malformed input throws rtc::Error with one sentence; nothing is read out of bounds.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace warplab::rtc {

struct ElfKernel {
  std::string name;                       // the symbol: mangled, as in the PTX
  std::optional<int> registers;           // EIATTR_REGCOUNT
  int barriers = 0;                       // EIATTR_NUM_BARRIERS (absent: none used)
  long shared_bytes = 0;                  // static shared memory per block, as ptxas reports it
  long const_bytes = 0;                   // bank 3 (__constant__): cuFuncGetAttribute's CONST_SIZE_BYTES
  long kernel_const_bytes = 0;            // the part in the kernel's own banks (ptxas's per-kernel cmem)
  long frame_bytes = 0;                   // EIATTR_FRAME_SIZE: the kernel's own stack frame
  long stack_bytes = 0;                   // max(frame, min stack, max stack): what a launch needs
  std::array<unsigned, 3> max_threads{};  // EIATTR_MAX_THREADS; zeros when not declared
  std::array<unsigned, 3> reqntid{};      // EIATTR_REQNTID; zeros when not declared
  int max_registers = 0;                  // EIATTR_MAXREG_COUNT: the cap ptxas worked under
  unsigned long code_bytes = 0;           // size of .text.<name>: its SASS (16 bytes an instruction)
};

// Every function symbol that has a .nv.info.<name> section (the kernels), in symbol order.
std::vector<ElfKernel> read_cubin(const std::vector<char>& elf);

// nullptr when absent.
const ElfKernel* find_kernel(const std::vector<ElfKernel>& ks, const std::string& name);

}  // namespace warplab::rtc
