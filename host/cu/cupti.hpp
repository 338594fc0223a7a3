// cupti.hpp: NVIDIA's profiling library CUPTI (libcupti.so.13, which loads libnvperf_host.so
// beside it) found and loaded at run time with dlopen, never linked, as libcuda is
// (cu/driver.hpp): warplab starts and runs everything else without it. The entry points
// warplab uses, CuptiError with CUPTI's own result strings, and the check macro.
#pragma once
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cu/error.hpp"

// Every CUPTI entry point warplab calls: the Profiler Host API (metric names -> config
// image, counter data -> values; needs no GPU) and the Range Profiler (a context's
// launches -> counter data). cuptiProfilerGetCounterAvailability may be missing (optional).
#define WARPLAB_CUPTI_API(X)                      \
  X(cuptiGetResultString)                         \
  X(cuptiGetVersion)                              \
  X(cuptiProfilerHostGetSupportedChips)           \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostGetBaseMetrics)              \
  X(cuptiProfilerHostGetSubMetrics)               \
  X(cuptiProfilerHostGetMetricProperties)         \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostGetNumOfPasses)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiProfilerInitialize)                      \
  X(cuptiDeviceGetChipName)                       \
  X(cuptiProfilerGetCounterAvailability)          \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataInfo)

namespace warplab::cu {

// One function pointer per entry point above, and where they came from.
struct CuptiApi {
#define WARPLAB_CUPTI_MEMBER(name) decltype(&::name) name = nullptr;
  WARPLAB_CUPTI_API(WARPLAB_CUPTI_MEMBER)
#undef WARPLAB_CUPTI_MEMBER
  std::string library;        // the file loaded: "/usr/local/cuda-13.0/lib64/libcupti.so.13"
  std::uint32_t version = 0;  // cuptiGetVersion: 130001 for CUDA 13.0 Update 1
};

// CUPTI, loaded on first use. Search: when WARPLAB_CUPTI_DIR is set, that folder only
// (libcupti.so.13, then libcupti.so); otherwise the loader's own search by soname
// (LD_LIBRARY_PATH, ld.so.cache), then cupti_search_dirs(). The libnvperf_host.so and
// libnvperf_target.so beside the library found are loaded first, so CUPTI's own search for
// them finds those. The result is kept per value of WARPLAB_CUPTI_DIR. Throws CuptiError
// (kind no_gpu) with one sentence when no usable CUPTI is found.
const CuptiApi& cupti();

// Why cupti() would fail (its sentence), or nullopt when it would succeed; never throws.
std::optional<std::string> cupti_unavailable();

// The toolkit folders searched after the soname, existing ones only, in order: for each of
// $CUDA_HOME, $CUDA_PATH, the toolkit of the libnvrtc this process loaded, /usr/local/cuda
// and /usr/local/cuda-* (newest first): lib64, targets/*/lib, extras/CUPTI/lib64, lib.
std::vector<std::filesystem::path> cupti_search_dirs();

// "CUPTI_ERROR_INVALID_METRIC_NAME" from cuptiGetResultString; "CUptiResult N" when CUPTI
// is not loaded or does not know the code.
std::string cupti_result_text(CUptiResult result);

// A failed CUPTI call, or no CUPTI: "cuptiRangeProfilerEnable (device 0) failed:
// CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: ..." with, for the codes a user can act on, the
// action (the driver option NVreg_RestrictProfilingToAdminUsers=0 for privileges; another
// NVIDIA tool attached for CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED). Kinds:
// bad_input for CUPTI_ERROR_INVALID_METRIC_NAME and _INVALID_CHIP_NAME, profiler otherwise.
class CuptiError : public Error {
 public:
  CuptiError(CUptiResult result, std::string call, const std::string& object = {});
  // No usable CUPTI library (kind no_gpu), or another sentence of this layer.
  CuptiError(const std::string& message, ErrorKind kind);
  CUptiResult result() const noexcept { return result_; }

 private:
  CUptiResult result_ = CUPTI_SUCCESS;
};

// A CUPTI params struct zeroed with its structSize set, as CUPTI wants every one filled.
template <class Params>
Params cupti_params(std::size_t struct_size) {
  Params p{};
  p.structSize = struct_size;
  return p;
}

}  // namespace warplab::cu

// `auto p = WL_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);`: zeroed, structSize set.
#define WL_CUPTI_PARAMS(type) ::warplab::cu::cupti_params<type>(type##_STRUCT_SIZE)

// Calls api.fn(&params) once (`api`: a CuptiApi); on failure throws CuptiError naming fn and
// `object` (any expression convertible to std::string, built only on failure).
#define WL_CUPTI_CALL(api, fn, params, object)                                                      \
  do {                                                                                              \
    const CUptiResult wl_rc_ = (api).fn(&(params));                                                 \
    if (wl_rc_ != CUPTI_SUCCESS) throw ::warplab::cu::CuptiError(wl_rc_, #fn, std::string(object)); \
  } while (0)
