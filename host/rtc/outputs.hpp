// outputs.hpp: what a compile that succeeded made, read back from its NVRTC program: the
// PTX, the cubin (or PTX only for a virtual arch), the entries in PTX order, each kernel's
// resources (the CUBIN's numbers, the ptxas report's spills) and the lowered names.
// compile.cpp's last step. No GPU, no Lua.
#pragma once
#include <nvrtc.h>

#include "rtc/compile.hpp"

namespace warplab::rtc {

// Fills r.ptx, r.cubin, r.entries, r.kernels (from the report r.kernels held), notes and
// r.lowered from program `p`, compiled from `opt`. Throws rtc::Error when NVRTC fails.
void collect_outputs(nvrtcProgram p, const Options& opt, CompileResult& r);

}  // namespace warplab::rtc
