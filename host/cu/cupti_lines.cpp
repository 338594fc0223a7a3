// cupti_lines.cpp: the per-line entry points resolved from the libcupti cupti() loaded (the
// same dlopen: RTLD_NOLOAD finds it again), the offline PC -> line correlation, the CUBIN
// CRC, and whether a device supports an API.
#include "cu/cupti_lines.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "sys/shown.hpp"

namespace warplab::cu {
namespace {

struct LoadedLines {
  CuptiLinesApi api;
  std::string why;  // "" when every entry point was found
};

LoadedLines resolve(const CuptiApi& base) {
  LoadedLines out;
  void* lib = dlopen(base.library.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
  if (!lib) {
    out.why = "CUPTI at " + base.library + " could not be opened again for its per-line entry points";
    return out;
  }
#define WARPLAB_CUPTI_LINES_RESOLVE(name) \
  out.api.name = reinterpret_cast<decltype(out.api.name)>(dlsym(lib, #name));
  WARPLAB_CUPTI_LINES_API(WARPLAB_CUPTI_LINES_RESOLVE)
#undef WARPLAB_CUPTI_LINES_RESOLVE
  const char* missing = nullptr;
#define WARPLAB_CUPTI_LINES_REQUIRE(name) \
  if (!missing && !out.api.name) missing = #name;
  WARPLAB_CUPTI_LINES_API(WARPLAB_CUPTI_LINES_REQUIRE)
#undef WARPLAB_CUPTI_LINES_REQUIRE
  if (missing)
    out.why = "CUPTI at " + base.library + " is too old for per-line counts: it has no " + missing +
              " (the CUPTI of CUDA 13 has it; set WARPLAB_CUPTI_DIR to its folder)";
  dlclose(lib);  // the handle RTLD_NOLOAD added; cupti() keeps the library loaded
  return out;
}

std::string function_named(const std::string& f) { return sys::shown(f); }

}  // namespace

const CuptiLinesApi& cupti_lines() {
  const CuptiApi& base = cupti();  // throws the no-CUPTI sentence
  static std::mutex mu;
  static LoadedLines loaded;
  static std::string for_library;
  std::lock_guard<std::mutex> lock(mu);
  if (for_library != base.library) {
    loaded = resolve(base);
    for_library = base.library;
  }
  if (!loaded.why.empty()) throw CuptiError(loaded.why, ErrorKind::no_gpu);
  return loaded.api;
}

SourceLine sass_source_line(const std::vector<char>& cubin, const std::string& function, std::uint64_t pc) {
  const CuptiLinesApi& api = cupti_lines();
  CUpti_GetSassToSourceCorrelationParams p{};
  p.size = CUpti_GetSassToSourceCorrelationParamsSize;
  p.cubin = cubin.data();
  p.cubinSize = cubin.size();
  p.functionName = function.c_str();
  p.pcOffset = pc;
  const CUptiResult rc = api.cuptiGetSassToSourceCorrelation(&p);
  SourceLine out;
  // CUPTI allocates both strings and leaves them to the caller.
  if (p.fileName) out.file = p.fileName;
  if (p.dirName) out.dir = p.dirName;
  std::free(p.fileName);
  std::free(p.dirName);
  if (rc != CUPTI_SUCCESS) throw CuptiError(rc, "cuptiGetSassToSourceCorrelation", function_named(function));
  out.line = p.lineNumber;
  return out;
}

std::uint64_t cubin_crc(const std::vector<char>& cubin) {
  const CuptiLinesApi& api = cupti_lines();
  CUpti_GetCubinCrcParams p{};
  p.size = CUpti_GetCubinCrcParamsSize;
  p.cubin = cubin.data();
  p.cubinSize = cubin.size();
  const CUptiResult rc = api.cuptiGetCubinCrc(&p);
  if (rc != CUPTI_SUCCESS) throw CuptiError(rc, "cuptiGetCubinCrc");
  return p.cubinCrc;
}

std::optional<std::string> profiler_unsupported(int ordinal, CUpti_Profiler_API api_kind) {
  const CuptiLinesApi& api = cupti_lines();
  auto p = WL_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params);
  p.cuDevice = ordinal;
  p.api = api_kind;
  const CUptiResult rc = api.cuptiProfilerDeviceSupported(&p);
  if (rc != CUPTI_SUCCESS)
    return "CUPTI could not say whether device " + std::to_string(ordinal) + " supports it (" +
           cupti_result_text(rc) + ")";
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return std::nullopt;
  if (p.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return "device " + std::to_string(ordinal) +
           "'s architecture is not supported (CUPTI needs compute capability "
           "7.5 or newer for per-line counts)";
  if (p.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED) return "profiling is disabled on this virtual GPU";
  if (p.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "this virtual GPU does not support profiling";
  if (p.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return "confidential computing is on, which allows no profiling";
  if (p.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "SLI is on, which allows no profiling";
  if (p.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "WSL does not support it";
  if (p.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "crypto-mining processors do not support it";
  return "CUPTI says device " + std::to_string(ordinal) + " does not support it";
}

}  // namespace warplab::cu
