// range_profiler.cpp: the Range Profiler calls in the order CUPTI documents: initialize,
// enable on the context, counter data sized and initialized, set config, start, (the
// launches), stop, decode, disable. Every failure is a CuptiError naming the call and the
// device.
#include "cu/range_profiler.hpp"

#include <cstdlib>
#include <mutex>

#include "sys/shown.hpp"

namespace warplab::cu {

void profiler_initialize() {
  // Once per process, and a failure is kept: every later call reports the same sentence.
  static std::once_flag once;
  static CUptiResult rc = CUPTI_SUCCESS;
  const CuptiApi& api = cupti();  // throws when there is no CUPTI: then nothing is cached
  std::call_once(once, [&] {
    auto p = WL_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    rc = api.cuptiProfilerInitialize(&p);
  });
  if (rc != CUPTI_SUCCESS) throw CuptiError(rc, "cuptiProfilerInitialize");
}

void require_profiler() {
  (void)cupti();  // no CUPTI: its sentence
  if (const char* tool = std::getenv("CUDA_INJECTION64_PATH"); tool && *tool)
    throw CuptiError(
        "another NVIDIA tool is attached to this process (CUDA_INJECTION64_PATH=" + sys::shown(tool) +
            ": Nsight Compute or Nsight Systems), and CUPTI counts for one tool at a time",
        ErrorKind::profiler);
  profiler_initialize();
}

std::optional<std::string> profiler_unavailable() {
  try {
    require_profiler();
  } catch (const Error& e) {
    return e.what();
  }
  return std::nullopt;
}

std::string chip_name(int ordinal) {
  profiler_initialize();
  auto p = WL_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  p.deviceIndex = static_cast<std::size_t>(ordinal);
  WL_CUPTI_CALL(cupti(), cuptiDeviceGetChipName, p, "device " + std::to_string(ordinal));
  if (!p.pChipName || !*p.pChipName)
    throw CuptiError("cuptiDeviceGetChipName (device " + std::to_string(ordinal) + ") returned no chip name",
                     ErrorKind::profiler);
  return p.pChipName;
}

std::vector<std::uint8_t> counter_availability(const Context& ctx) {
  const CuptiApi& api = cupti();
  if (!api.cuptiProfilerGetCounterAvailability) return {};
  auto p = WL_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  p.ctx = ctx.get();
  CUptiResult rc = api.cuptiProfilerGetCounterAvailability(&p);
  std::vector<std::uint8_t> image;
  if (rc == CUPTI_SUCCESS && p.counterAvailabilityImageSize > 0) {
    image.resize(p.counterAvailabilityImageSize);
    p.pCounterAvailabilityImage = image.data();
    rc = api.cuptiProfilerGetCounterAvailability(&p);
  }
  if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    throw CuptiError(rc, "cuptiProfilerGetCounterAvailability", ctx.label());
  // Anything else: the image only narrows the configuration, so go on without it.
  if (rc != CUPTI_SUCCESS) return {};
  return image;
}

RangeProfiler::RangeProfiler(ContextPtr ctx) : api_(&cupti()), ctx_(std::move(ctx)) {
  profiler_initialize();
  auto p = WL_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
  p.ctx = ctx_->get();
  WL_CUPTI_CALL(*api_, cuptiRangeProfilerEnable, p, label());
  obj_ = p.pRangeProfilerObject;
}

RangeProfiler::~RangeProfiler() {
  if (!obj_) return;
  const CuptiApi& api = *api_;
  if (started_) {
    auto stop = WL_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = obj_;
    api.cuptiRangeProfilerStop(&stop);
  }
  auto p = WL_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
  p.pRangeProfilerObject = obj_;
  api.cuptiRangeProfilerDisable(&p);  // nothing to do about a failure here
}

void RangeProfiler::configure(const std::vector<std::string>& metrics, std::vector<std::uint8_t> config_image,
                              std::size_t max_ranges) {
  config_ = std::move(config_image);
  std::vector<const char*> names;
  names.reserve(metrics.size());
  for (const auto& m : metrics) names.push_back(m.c_str());
  auto size = WL_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  size.pRangeProfilerObject = obj_;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = max_ranges;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(max_ranges);
  WL_CUPTI_CALL(*api_, cuptiRangeProfilerGetCounterDataSize, size, label());
  counter_data_.assign(size.counterDataSize, 0);
  auto init = WL_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  init.pRangeProfilerObject = obj_;
  init.counterDataSize = counter_data_.size();
  init.pCounterData = counter_data_.data();
  WL_CUPTI_CALL(*api_, cuptiRangeProfilerCounterDataImageInitialize, init, label());
  auto p = WL_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  p.pRangeProfilerObject = obj_;
  p.configSize = config_.size();
  p.pConfig = config_.data();
  p.counterDataImageSize = counter_data_.size();
  p.pCounterDataImage = counter_data_.data();
  p.range = CUPTI_AutoRange;
  p.replayMode = CUPTI_KernelReplay;
  p.maxRangesPerPass = max_ranges;
  p.numNestingLevels = 1;
  p.minNestingLevel = 1;
  p.passIndex = 0;
  p.targetNestingLevel = 1;
  WL_CUPTI_CALL(*api_, cuptiRangeProfilerSetConfig, p, label());
}

void RangeProfiler::start() {
  auto p = WL_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
  p.pRangeProfilerObject = obj_;
  WL_CUPTI_CALL(*api_, cuptiRangeProfilerStart, p, label());
  started_ = true;
}

bool RangeProfiler::stop() {
  auto p = WL_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
  p.pRangeProfilerObject = obj_;
  started_ = false;
  WL_CUPTI_CALL(*api_, cuptiRangeProfilerStop, p, label());
  return p.isAllPassSubmitted != 0;
}

std::size_t RangeProfiler::decode() {
  auto p = WL_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  p.pRangeProfilerObject = obj_;
  WL_CUPTI_CALL(*api_, cuptiRangeProfilerDecodeData, p, label());
  return p.numOfRangeDropped;
}

std::size_t RangeProfiler::ranges() const {
  auto p = WL_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  p.pCounterDataImage = counter_data_.data();
  p.counterDataImageSize = counter_data_.size();
  WL_CUPTI_CALL(*api_, cuptiRangeProfilerGetCounterDataInfo, p, label());
  return p.numTotalRanges;
}

}  // namespace warplab::cu
