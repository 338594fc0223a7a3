// sass.hpp: the SASS of a CUBIN, from the CUDA toolkit's disassembler: cuobjdump -sass, else
// nvdisasm, found on PATH, in $CUDA_HOME/bin, $CUDA_PATH/bin or /usr/local/cuda/bin (the
// one finder of `compile --sass`, k.sass and `watch --diff`). Runs the tool as a child
// process on a private temporary file; no GPU.
#pragma once
#include <string>
#include <vector>

namespace warplab::rtc {

// The disassembler found, or none (path empty).
struct SassTool {
  std::string path;       // absolute or as found on PATH; "" when neither exists
  bool nvdisasm = false;  // nvdisasm (takes the CUBIN alone) rather than cuobjdump -sass
  bool found() const { return !path.empty(); }
  // The command line before the CUBIN's path: {path, "-sass"} or {path}.
  std::vector<std::string> argv() const;
};
SassTool find_sass_tool();

// Said when neither tool exists.
inline constexpr const char* kNoSassTool =
    "neither cuobjdump nor nvdisasm found (PATH, CUDA_HOME, /usr/local/cuda)";

// The disassembly of a CUBIN as the tool prints it. Throws rtc::Error: kNoSassTool plus
// what needs it when no tool exists (kind tool), or the tool's failure (kind failed).
std::string disassemble(const std::vector<char>& cubin, const char* what);

// One kernel's part of a disassembly (cuobjdump's "Function : NAME" section, nvdisasm's
// ".text.NAME:" one), from its header line to the next kernel's; "" when it has none.
std::string sass_of(const std::string& dump, const std::string& mangled);

}  // namespace warplab::rtc
