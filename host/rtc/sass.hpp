// sass.hpp: the SASS of a CUBIN, from the CUDA toolkit's disassembler: cuobjdump -sass, else
// nvdisasm, found on PATH, in $CUDA_HOME/bin, $CUDA_PATH/bin or /usr/local/cuda/bin (the
// one finder of `compile --sass`, k.sass, `watch --diff` and the line map). Runs the tool as
// a child process on a private temporary file; no GPU. A failure says the tool's own words.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warplab::rtc {

// The disassembler found, or none (path empty).
struct SassTool {
  std::string path;       // absolute or as found on PATH; "" when neither exists
  bool nvdisasm = false;  // nvdisasm (takes the CUBIN alone) rather than cuobjdump -sass
  // cuobjdump only prints SASS through nvdisasm: the folder warplab found nvdisasm in, handed
  // to cuobjdump as NVDISASM_PATH ("" when there is none, and cuobjdump will fail).
  std::string nvdisasm_dir;
  bool found() const { return !path.empty(); }
  // The command line before the CUBIN's path: {path, "-sass"} or {path}.
  std::vector<std::string> argv() const;
};
SassTool find_sass_tool();

// Said when neither tool exists.
inline constexpr const char* kNoSassTool =
    "neither cuobjdump nor nvdisasm found (PATH, CUDA_HOME, /usr/local/cuda)";
// Where the disassembler comes from, for the sentences that say it is missing: "nvdisasm
// comes with the CUDA toolkit (NVIDIA's package cuda-nvdisasm-13-0; pip: nvidia-cuda-nvdisasm)",
// for the NVRTC loaded.
std::string nvdisasm_source();

// The disassembly of a CUBIN as the tool prints it. Throws rtc::Error: kNoSassTool plus
// where to get nvdisasm when no tool exists, or cuobjdump's own reason when it cannot run
// without nvdisasm (kind tool: exit 8); the tool failing otherwise, with its reason (kind
// failed).
std::string disassemble(const std::vector<char>& cubin, const char* what);
// The same for a CUBIN file (named .cubin). `cancelled` is asked every 100 ms while the
// tool runs: true kills it and returns nullopt (watch leaving on a signal).
std::optional<std::string> disassemble_file(const std::string& cubin_path, const char* what,
                                            const std::function<bool()>& cancelled = {});

// The kernels of a disassembly in the order printed: each one's name (mangled) and its part
// of the text (cuobjdump's "Function : NAME" section, nvdisasm's ".text.NAME:" one), from
// its header line to the next kernel's.
std::vector<std::pair<std::string, std::string>> sass_sections(const std::string& dump);
// One kernel's part of a disassembly; "" when it has none.
std::string sass_of(const std::string& dump, const std::string& mangled);

}  // namespace warplab::rtc
