// cupti_lines.hpp: the CUPTI 13 entry points behind per-line counts, resolved from the
// libcupti that cupti() loaded (cu/cupti.hpp): SASS metrics (exact counts per instruction,
// by patching the kernel), PC sampling (where warps stalled, statistical), and the PC ->
// file:line correlation and CUBIN CRC, which read only the CUBIN (no GPU, no libcuda).
#pragma once
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cu/cupti.hpp"

#define WARPLAB_CUPTI_LINES_API(X)            \
  X(cuptiGetSassToSourceCorrelation)          \
  X(cuptiGetCubinCrc)                         \
  X(cuptiProfilerDeviceSupported)             \
  X(cuptiSassMetricsGetProperties)            \
  X(cuptiSassMetricsSetConfig)                \
  X(cuptiSassMetricsUnsetConfig)              \
  X(cuptiSassMetricsEnable)                   \
  X(cuptiSassMetricsDisable)                  \
  X(cuptiSassMetricsGetDataProperties)        \
  X(cuptiSassMetricsFlushData)                \
  X(cuptiPCSamplingEnable)                    \
  X(cuptiPCSamplingDisable)                   \
  X(cuptiPCSamplingStart)                     \
  X(cuptiPCSamplingStop)                      \
  X(cuptiPCSamplingGetData)                   \
  X(cuptiPCSamplingSetConfigurationAttribute) \
  X(cuptiPCSamplingGetNumStallReasons)        \
  X(cuptiPCSamplingGetStallReasons)

namespace warplab::cu {

struct CuptiLinesApi {
#define WARPLAB_CUPTI_LINES_MEMBER(name) decltype(&::name) name = nullptr;
  WARPLAB_CUPTI_LINES_API(WARPLAB_CUPTI_LINES_MEMBER)
#undef WARPLAB_CUPTI_LINES_MEMBER
};

// The entry points above, from the library cupti() found (loaded once). Throws CuptiError:
// no CUPTI (kind no_gpu, cupti()'s sentence), or a CUPTI without them (older than 12.6).
const CuptiLinesApi& cupti_lines();

// Where one SASS instruction came from, as the CUBIN's line table says.
struct SourceLine {
  std::string file;   // as the compiler named it: "banks.cu", "kernels_src/x.cu", a header
  std::string dir;    // the folder the compiler recorded; often empty for NVRTC
  unsigned line = 0;  // 0: no line information (compiled without -lineinfo, or past the end)
};

// cuptiGetSassToSourceCorrelation for `function` (the symbol, mangled) at byte offset `pc`
// of its code. Needs no GPU. Throws CuptiError when CUPTI is missing or the CUBIN has no
// such function (CUPTI_ERROR_UNKNOWN, _INVALID_MODULE).
SourceLine sass_source_line(const std::vector<char>& cubin, const std::string& function, std::uint64_t pc);

// cuptiGetCubinCrc: the number SASS-metric and PC-sampling records name their CUBIN by (the
// SASS records keep its low 32 bits). CUPTI 13.0 answers 0 before the driver is loaded.
std::uint64_t cubin_crc(const std::vector<char>& cubin);

// cuptiProfilerDeviceSupported for `api` on device `ordinal`: nullopt when supported, else
// the sentence (the architecture, a vGPU, confidential computing, ...).
std::optional<std::string> profiler_unsupported(int ordinal, CUpti_Profiler_API api);

}  // namespace warplab::cu
