// fake_cupti.cpp: a stand-in libcupti.so.13 for the stand-in driver (fake_driver.cpp), so that
// hardware counters can be tested offline: with WARPLAB_CUPTI_DIR=build/fake_cupti and
// LD_LIBRARY_PATH=build/fake_driver, cuda.counters, k:counters and run --counters take their
// whole path (session, counted launch, rows, nesting) without a GPU. It counts nothing real:
// chip GH100 knows six metrics (gpu__time_duration, smsp__warps_launched,
// smsp__inst_executed, smsp__sass_branch_targets: counters with .sum, .avg, .max;
// smsp__sass_average_branch_targets_threads_uniform: a ratio with .pct and .ratio;
// sm__throughput: a throughput with .avg.pct_of_peak_sustained_elapsed), a selection of one
// of them takes 1 replay pass and more take 2, and each launch the stand-in driver runs
// between Start and Stop is one range (a graph's replay one range, as CUPTI's own), whose
// value for metric m (in the order asked) is 1000 * (range + 1) + m, but 0 for
// smsp__sass_branch_targets: the stand-in's kernels run no code, so they branch nowhere
// (and branch_efficiency, a share of those, is no value). Ranges beyond the session's maximum are dropped, as
// CUPTI drops them. The same file answers as libnvperf_host.so (a link beside it), which
// warplab preloads. Never packed for the GPU machine. Needs the CUPTI headers only.
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_version.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr const char* kChip = "GH100";

struct Metric {
  const char* base;
  CUpti_MetricType type;
  const char* description;
};
const Metric kMetrics[] = {
    {"gpu__time_duration", CUPTI_METRIC_TYPE_COUNTER, "the launch's duration (stand-in)"},
    {"smsp__warps_launched", CUPTI_METRIC_TYPE_COUNTER, "warps launched (stand-in)"},
    {"smsp__inst_executed", CUPTI_METRIC_TYPE_COUNTER, "instructions executed (stand-in)"},
    {"smsp__sass_branch_targets", CUPTI_METRIC_TYPE_COUNTER, "branch targets (stand-in: none)"},
    {"smsp__sass_average_branch_targets_threads_uniform", CUPTI_METRIC_TYPE_RATIO,
     "uniform branch targets (stand-in)"},
    {"sm__throughput", CUPTI_METRIC_TYPE_THROUGHPUT, "SM throughput (stand-in)"},
};
const char* const kCounterSubs[] = {".sum", ".avg", ".max"};
const char* const kRatioSubs[] = {".pct", ".ratio"};
const char* const kThroughputSubs[] = {".avg.pct_of_peak_sustained_elapsed"};

// The suffixes a metric of `type` takes, and how many.
const char* const* subs_of(CUpti_MetricType type, std::size_t* n) {
  if (type == CUPTI_METRIC_TYPE_THROUGHPUT) {
    *n = 1;
    return kThroughputSubs;
  }
  if (type == CUPTI_METRIC_TYPE_RATIO) {
    *n = 2;
    return kRatioSubs;
  }
  *n = 3;
  return kCounterSubs;
}

// The metric whose base `name` starts with: the longest such base (smsp__sass_branch_targets
// is also the start of a longer one's name).
const Metric* base_of(const std::string& name) {
  const Metric* best = nullptr;
  for (const Metric& m : kMetrics)
    if (name.compare(0, std::strlen(m.base), m.base) == 0 &&
        (!best || std::strlen(m.base) > std::strlen(best->base)))
      best = &m;
  return best;
}

// A base alone, or a base with one of its suffixes.
const Metric* find(const char* name) {
  if (!name) return nullptr;
  const std::string n = name;
  const Metric* m = base_of(n);
  if (!m) return nullptr;
  const std::string suffix = n.substr(std::strlen(m->base));
  if (suffix.empty()) return m;
  std::size_t count = 0;
  const char* const* subs = subs_of(m->type, &count);
  for (std::size_t i = 0; i < count; ++i)
    if (suffix == subs[i]) return m;
  return nullptr;
}

struct Host {
  std::vector<std::string> added;  // the configured metrics
};

// The stand-in driver's count of launches and graph replays (fake_driver.cpp), or 0.
unsigned long submissions() {
  using Fn = unsigned long (*)();
  static Fn fn = [] {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return lib ? reinterpret_cast<Fn>(dlsym(lib, "warplab_fake_submissions")) : nullptr;
  }();
  return fn ? fn() : 0;
}

struct Profiler {
  std::size_t max_ranges = 0;
  std::uint8_t* data = nullptr;  // the counter data image: its first 8 bytes hold the ranges
  std::size_t data_size = 0;
  unsigned long started_at = 0;
  std::size_t ranges = 0, dropped = 0;
  bool started = false;
};

bool enabled = false;  // one range profiler per context, as CUPTI allows

}  // namespace

#define FAKE_API extern "C" __attribute__((visibility("default")))

FAKE_API CUptiResult cuptiGetResultString(CUptiResult r, const char** s) {
  switch (r) {
    case CUPTI_SUCCESS:
      *s = "CUPTI_SUCCESS";
      break;
    case CUPTI_ERROR_INVALID_PARAMETER:
      *s = "CUPTI_ERROR_INVALID_PARAMETER";
      break;
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      *s = "CUPTI_ERROR_INVALID_METRIC_NAME";
      break;
    case CUPTI_ERROR_INVALID_CHIP_NAME:
      *s = "CUPTI_ERROR_INVALID_CHIP_NAME";
      break;
    case CUPTI_ERROR_INVALID_OPERATION:
      *s = "CUPTI_ERROR_INVALID_OPERATION";
      break;
    default:
      *s = "CUPTI_ERROR_UNKNOWN";
  }
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiGetVersion(uint32_t* v) {
  *v = 130001;
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerHostGetSupportedChips(CUpti_Profiler_Host_GetSupportedChips_Params* p) {
  static const char* const chips[] = {kChip};
  p->numChips = 1;
  p->ppChipNames = chips;
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params* p) {
  if (!p->pChipName || std::strcmp(p->pChipName, kChip) != 0) return CUPTI_ERROR_INVALID_CHIP_NAME;
  p->pHostObject = reinterpret_cast<CUpti_Profiler_Host_Object*>(new Host);
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params* p) {
  delete reinterpret_cast<Host*>(p->pHostObject);
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerHostGetBaseMetrics(CUpti_Profiler_Host_GetBaseMetrics_Params* p) {
  static std::vector<const char*> by_type[3];
  std::vector<const char*>& out = by_type[p->metricType % 3];
  out.clear();
  for (const Metric& m : kMetrics)
    if (m.type == p->metricType) out.push_back(m.base);
  p->ppMetricNames = out.data();
  p->numMetrics = out.size();
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerHostGetSubMetrics(CUpti_Profiler_Host_GetSubMetrics_Params* p) {
  const Metric* m = find(p->pMetricName);
  if (!m || m->type != p->metricType) return CUPTI_ERROR_INVALID_METRIC_NAME;
  std::size_t n = 0;
  p->ppSubMetrics = const_cast<const char**>(subs_of(m->type, &n));
  p->numOfSubmetrics = n;
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params* p) {
  const Metric* m = find(p->pMetricName);
  if (!m) return CUPTI_ERROR_INVALID_METRIC_NAME;
  p->pDescription = m->description;
  p->pHwUnit = "sm";
  p->pDimUnit = m->type == CUPTI_METRIC_TYPE_COUNTER ? "" : "%";
  p->metricType = m->type;
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params* p) {
  auto* h = reinterpret_cast<Host*>(p->pHostObject);
  for (std::size_t i = 0; i < p->numMetrics; ++i) {
    if (!find(p->ppMetricNames[i]) || !std::strchr(p->ppMetricNames[i], '.'))
      return CUPTI_ERROR_INVALID_METRIC_NAME;
    h->added.emplace_back(p->ppMetricNames[i]);
  }
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params* p) {
  p->configImageSize = 8;
  return CUPTI_SUCCESS;
}

// The image: its first byte is the number of metrics configured.
FAKE_API CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params* p) {
  if (p->configImageSize < 8) return CUPTI_ERROR_INVALID_PARAMETER;
  std::memset(p->pConfigImage, 0, 8);
  p->pConfigImage[0] = static_cast<std::uint8_t>(reinterpret_cast<Host*>(p->pHostObject)->added.size());
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params* p) {
  if (p->configImageSize < 8) return CUPTI_ERROR_INVALID_PARAMETER;
  p->numOfPasses = p->pConfigImage[0] > 1 ? 2 : 1;
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) {
  std::uint64_t ranges = 0;
  if (p->counterDataImageSize >= 8) std::memcpy(&ranges, p->pCounterDataImage, 8);
  if (p->rangeIndex >= ranges) return CUPTI_ERROR_INVALID_PARAMETER;
  for (std::size_t i = 0; i < p->numMetrics; ++i) {
    const Metric* m = find(p->ppMetricNames[i]);
    if (!m) return CUPTI_ERROR_INVALID_METRIC_NAME;
    const bool branches = std::strcmp(m->base, "smsp__sass_branch_targets") == 0;  // none: no code ran
    p->pMetricValues[i] =
        branches ? 0.0 : 1000.0 * static_cast<double>(p->rangeIndex + 1) + static_cast<double>(i);
  }
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params*) { return CUPTI_SUCCESS; }

FAKE_API CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params* p) {
  if (p->deviceIndex != 0) return CUPTI_ERROR_INVALID_PARAMETER;
  p->pChipName = kChip;
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params* p) {
  p->counterAvailabilityImageSize = 0;  // no image: the configuration is made without one
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params* p) {
  if (enabled) return CUPTI_ERROR_INVALID_OPERATION;
  enabled = true;
  p->pRangeProfilerObject = reinterpret_cast<CUpti_RangeProfiler_Object*>(new Profiler);
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params* p) {
  delete reinterpret_cast<Profiler*>(p->pRangeProfilerObject);
  enabled = false;
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params* p) {
  reinterpret_cast<Profiler*>(p->pRangeProfilerObject)->max_ranges = p->maxNumOfRanges;
  p->counterDataSize = 64;
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult
cuptiRangeProfilerCounterDataImageInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params* p) {
  if (p->counterDataSize < 8) return CUPTI_ERROR_INVALID_PARAMETER;
  std::memset(p->pCounterData, 0, p->counterDataSize);
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params* p) {
  auto* r = reinterpret_cast<Profiler*>(p->pRangeProfilerObject);
  r->data = p->pCounterDataImage;
  r->data_size = p->counterDataImageSize;
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params* p) {
  auto* r = reinterpret_cast<Profiler*>(p->pRangeProfilerObject);
  if (r->started) return CUPTI_ERROR_INVALID_OPERATION;
  r->started = true;
  r->started_at = submissions();
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params* p) {
  auto* r = reinterpret_cast<Profiler*>(p->pRangeProfilerObject);
  if (!r->started) return CUPTI_ERROR_INVALID_OPERATION;
  r->started = false;
  const std::size_t n = submissions() - r->started_at;
  r->ranges = n < r->max_ranges ? n : r->max_ranges;
  r->dropped = n - r->ranges;
  p->isAllPassSubmitted = 1;
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params* p) {
  auto* r = reinterpret_cast<Profiler*>(p->pRangeProfilerObject);
  const std::uint64_t ranges = r->ranges;
  if (r->data && r->data_size >= 8) std::memcpy(r->data, &ranges, 8);
  p->numOfRangeDropped = r->dropped;
  return CUPTI_SUCCESS;
}

FAKE_API CUptiResult cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params* p) {
  std::uint64_t ranges = 0;
  if (p->counterDataImageSize >= 8) std::memcpy(&ranges, p->pCounterDataImage, 8);
  p->numTotalRanges = ranges;
  return CUPTI_SUCCESS;
}
