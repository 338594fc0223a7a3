// metric_host.cpp: the Profiler Host API calls, each with its params struct filled as
// CUPTI documents (structSize first, pPriv null) and every failure a CuptiError naming the
// call and the chip.
#include "cu/metric_host.hpp"

namespace warplab::cu {
namespace {

CUpti_MetricType to_cupti(MetricType t) {
  switch (t) {
    case MetricType::ratio:
      return CUPTI_METRIC_TYPE_RATIO;
    case MetricType::throughput:
      return CUPTI_METRIC_TYPE_THROUGHPUT;
    default:
      return CUPTI_METRIC_TYPE_COUNTER;
  }
}

MetricType from_cupti(CUpti_MetricType t) {
  if (t == CUPTI_METRIC_TYPE_RATIO) return MetricType::ratio;
  if (t == CUPTI_METRIC_TYPE_THROUGHPUT) return MetricType::throughput;
  return MetricType::counter;
}

std::string str(const char* s) { return s ? s : ""; }

std::vector<const char*> c_names(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(n.c_str());
  return out;
}

}  // namespace

std::vector<std::string> supported_chips() {
  auto p = WL_CUPTI_PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params);
  WL_CUPTI_CALL(cupti(), cuptiProfilerHostGetSupportedChips, p, "");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < p.numChips; ++i) out.push_back(str(p.ppChipNames[i]));
  return out;
}

MetricHost::MetricHost(const std::string& chip, std::vector<std::uint8_t> availability)
    : api_(&cupti()), chip_(chip), availability_(std::move(availability)) {
  auto p = WL_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip_.c_str();
  p.pCounterAvailabilityImage = availability_.empty() ? nullptr : availability_.data();
  const CUptiResult rc = api_->cuptiProfilerHostInitialize(&p);
  if (rc == CUPTI_SUCCESS) {
    obj_ = p.pHostObject;
    return;
  }
  // An unknown chip is the caller's input: name the chips CUPTI knows.
  std::string known;
  try {
    for (const auto& c : supported_chips()) known += (known.empty() ? "" : ", ") + c;
  } catch (const CuptiError&) {
  }
  throw CuptiError(rc, "cuptiProfilerHostInitialize",
                   "chip " + chip_ + (known.empty() ? "" : "; CUPTI knows " + known));
}

MetricHost::~MetricHost() {
  if (!obj_) return;
  auto p = WL_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
  p.pHostObject = obj_;
  api_->cuptiProfilerHostDeinitialize(&p);  // nothing to do about a failure here
}

const std::vector<std::string>& MetricHost::base_metrics(MetricType type) const {
  const std::lock_guard<std::mutex> lock(kept_mu_);
  std::optional<std::vector<std::string>>& kept = bases_[static_cast<std::size_t>(type)];
  if (kept) return *kept;
  auto p = WL_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params);
  p.pHostObject = obj_;
  p.metricType = to_cupti(type);
  WL_CUPTI_CALL(*api_, cuptiProfilerHostGetBaseMetrics, p, "chip " + chip_);
  // The first answer of a host object holds each name once; kept whole, so later calls
  // never see the copies CUPTI goes on adding (a "did you mean" that grew with each lookup).
  std::vector<std::string> out;
  out.reserve(p.numMetrics);
  for (std::size_t i = 0; i < p.numMetrics; ++i) out.push_back(str(p.ppMetricNames[i]));
  return kept.emplace(std::move(out));
}

std::vector<std::string> MetricHost::sub_metrics(const std::string& name, MetricType type) const {
  auto p = WL_CUPTI_PARAMS(CUpti_Profiler_Host_GetSubMetrics_Params);
  p.pHostObject = obj_;
  p.metricType = to_cupti(type);
  p.pMetricName = name.c_str();
  const CUptiResult rc = api_->cuptiProfilerHostGetSubMetrics(&p);
  if (rc == CUPTI_ERROR_INVALID_METRIC_NAME) return {};
  if (rc != CUPTI_SUCCESS)
    throw CuptiError(rc, "cuptiProfilerHostGetSubMetrics", "chip " + chip_ + ", " + name);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < p.numOfSubmetrics; ++i) out.push_back(str(p.ppSubMetrics[i]));
  return out;
}

std::optional<MetricProperties> MetricHost::properties(const std::string& name) const {
  const std::lock_guard<std::mutex> lock(kept_mu_);
  if (const auto it = properties_.find(name); it != properties_.end()) return it->second;
  auto p = WL_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
  p.pHostObject = obj_;
  p.pMetricName = name.c_str();
  const CUptiResult rc = api_->cuptiProfilerHostGetMetricProperties(&p);
  if (rc == CUPTI_ERROR_INVALID_METRIC_NAME) return std::nullopt;
  if (rc != CUPTI_SUCCESS)
    throw CuptiError(rc, "cuptiProfilerHostGetMetricProperties", "chip " + chip_ + ", " + name);
  return properties_
      .emplace(name, MetricProperties{str(p.pDescription), str(p.pHwUnit), str(p.pDimUnit),
                                      from_cupti(p.metricType)})
      .first->second;
}

std::vector<std::uint8_t> MetricHost::config_image(const std::vector<std::string>& metrics) {
  std::vector<const char*> names = c_names(metrics);
  auto add = WL_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  add.pHostObject = obj_;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  WL_CUPTI_CALL(*api_, cuptiProfilerHostConfigAddMetrics, add, "chip " + chip_);
  auto size = WL_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  size.pHostObject = obj_;
  WL_CUPTI_CALL(*api_, cuptiProfilerHostGetConfigImageSize, size, "chip " + chip_);
  std::vector<std::uint8_t> image(size.configImageSize);
  auto get = WL_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  get.pHostObject = obj_;
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  WL_CUPTI_CALL(*api_, cuptiProfilerHostGetConfigImage, get, "chip " + chip_);
  return image;
}

std::size_t MetricHost::passes(std::vector<std::uint8_t>& image) {
  auto p = WL_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  p.configImageSize = image.size();
  p.pConfigImage = image.data();
  WL_CUPTI_CALL(cupti(), cuptiProfilerHostGetNumOfPasses, p, "");
  return p.numOfPasses;
}

std::vector<double> MetricHost::evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range,
                                         const std::vector<std::string>& metrics) const {
  std::vector<const char*> names = c_names(metrics);
  std::vector<double> values(metrics.size(), 0.0);
  auto p = WL_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  p.pHostObject = obj_;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  WL_CUPTI_CALL(*api_, cuptiProfilerHostEvaluateToGpuValues, p,
                "chip " + chip_ + ", range " + std::to_string(range));
  return values;
}

}  // namespace warplab::cu
