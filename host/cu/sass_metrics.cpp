// sass_metrics.cpp: the SASS-metrics calls in CUPTI's order: metric ids from names, set
// config (once per process and device), enable (lazy patching), get data properties, flush,
// disable; the configuration unset when the context is released (CUPTI's sample does so
// before destroying its context). Measured on an H200 with CUPTI 13.0: a second SetConfig
// after UnsetConfig fails with CUPTI_ERROR_OUT_OF_MEMORY, so a process configures a device
// once and keeps it while its context lives.
#include "cu/sass_metrics.hpp"

#include <cstdlib>
#include <mutex>

#include "cu/range_profiler.hpp"
#include "cu/trace.hpp"

namespace warplab::cu {
namespace {

// The configuration CUPTI holds per device for this process.
struct Configured {
  std::vector<std::string> metrics;  // empty: not configured
  std::vector<std::uint64_t> ids;
  bool spent = false;   // unset with its context: CUPTI refuses another SetConfig
  bool broken = false;  // a session on it was abandoned (a faulted context): no more calls
};
std::mutex& config_mutex() {
  static std::mutex mu;
  return mu;
}
std::vector<Configured>& configured() {
  static std::vector<Configured> by_device;  // index: device ordinal
  return by_device;
}

}  // namespace

SassMetrics::SassMetrics(ContextPtr ctx, const std::string& chip, const std::vector<std::string>& metrics)
    : api_(&cupti_lines()), ctx_(std::move(ctx)), metrics_(metrics) {
  profiler_initialize();  // another tool attached: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED here
  if (const auto why = profiler_unsupported(ctx_->ordinal(), CUPTI_PROFILER_SASS_METRICS))
    throw CuptiError("per-line counts (CUPTI's SASS metrics) are not available: " + *why,
                     ErrorKind::profiler);
  {
    std::lock_guard<std::mutex> lock(config_mutex());
    auto& all = configured();
    const auto dev = static_cast<std::size_t>(ctx_->ordinal());
    if (all.size() <= dev) all.resize(dev + 1);
    Configured& c = all[dev];
    if (c.broken || c.spent)
      throw CuptiError(c.broken ? "per-line counts cannot be collected after a collected kernel faulted on " +
                                      ctx_->label() + ": restart the script"
                                : "CUPTI allows one per-line configuration of " + ctx_->label() +
                                      " per process, and this process used it with an earlier context: "
                                      "collect in a new process",
                       ErrorKind::profiler);
    if (c.metrics.empty()) {
      std::vector<CUpti_SassMetrics_Config> config;
      std::vector<std::uint64_t> ids;
      for (const std::string& name : metrics_) {
        auto p = WL_CUPTI_PARAMS(CUpti_SassMetrics_GetProperties_Params);
        p.pChipName = chip.c_str();
        p.pMetricName = name.c_str();
        WL_CUPTI_CALL(*api_, cuptiSassMetricsGetProperties, p, name + " on " + chip);
        ids.push_back(p.metric.metricId);
        config.push_back({p.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
      }
      auto set = WL_CUPTI_PARAMS(CUpti_SassMetricsSetConfig_Params);
      set.pConfigs = config.data();
      set.numOfMetricConfig = config.size();
      set.deviceIndex = static_cast<std::uint32_t>(dev);
      WL_CUPTI_CALL(*api_, cuptiSassMetricsSetConfig, set, ctx_->label());
      c.metrics = metrics_;
      c.ids = std::move(ids);
      // Unset while the context still exists: left to the process exit, CUPTI frees it
      // after the driver has destroyed the context.
      const CuptiLinesApi* api = api_;
      ctx_->at_release([api, dev] {
        std::lock_guard<std::mutex> l(config_mutex());
        Configured& mine = configured()[dev];
        if (!mine.broken && !mine.metrics.empty()) {
          auto u = WL_CUPTI_PARAMS(CUpti_SassMetricsUnsetConfig_Params);
          u.deviceIndex = static_cast<std::uint32_t>(dev);
          api->cuptiSassMetricsUnsetConfig(&u);  // nothing to do about a failure here
          trace("per-line counts: SASS-metric configuration unset");
        }
        mine.metrics.clear();
        mine.spent = true;
      });
    } else if (c.metrics != metrics_) {
      throw CuptiError(
          "CUPTI keeps the first SASS-metric configuration of a process; a later one must ask for "
          "the same metrics",
          ErrorKind::profiler);
    }
    ids_ = c.ids;
  }
  auto p = WL_CUPTI_PARAMS(CUpti_SassMetricsEnable_Params);
  p.ctx = ctx_->get();
  p.enableLazyPatching = 1;
  WL_CUPTI_CALL(*api_, cuptiSassMetricsEnable, p, ctx_->label());
  enabled_ = true;
  trace("per-line counts: SASS metrics enabled");
}

void SassMetrics::abandon() noexcept {
  enabled_ = false;
  std::lock_guard<std::mutex> lock(config_mutex());
  auto& all = configured();
  const auto dev = static_cast<std::size_t>(ctx_->ordinal());
  if (dev < all.size()) all[dev].broken = true;
}

SassMetrics::~SassMetrics() {
  if (!enabled_) return;
  auto p = WL_CUPTI_PARAMS(CUpti_SassMetricsDisable_Params);
  p.ctx = ctx_->get();
  api_->cuptiSassMetricsDisable(&p);  // nothing to do about a failure here
  trace("per-line counts: SASS metrics disabled");
}

std::vector<SassRecord> SassMetrics::flush() {
  auto props = WL_CUPTI_PARAMS(CUpti_SassMetricsGetDataProperties_Params);
  props.ctx = ctx_->get();
  WL_CUPTI_CALL(*api_, cuptiSassMetricsGetDataProperties, props, ctx_->label());
  std::vector<SassRecord> out;
  const std::size_t n = props.numOfPatchedInstructionRecords, per = props.numOfInstances;
  if (n == 0 || per == 0) return out;
  // Each record holds numOfInstances values for each configured metric (GPU granularity:
  // one instance), each tagged with its metric id.
  const std::size_t slots = per * ids_.size();
  std::vector<CUpti_SassMetrics_InstanceValue> values(n * slots);
  std::vector<CUpti_SassMetrics_Data> data(n);
  for (std::size_t i = 0; i < n; ++i) {
    data[i].structSize = sizeof(CUpti_SassMetrics_Data);
    data[i].pInstanceValues = values.data() + i * slots;
  }
  auto f = WL_CUPTI_PARAMS(CUpti_SassMetricsFlushData_Params);
  f.ctx = ctx_->get();
  f.numOfPatchedInstructionRecords = n;
  f.numOfInstances = per;
  f.pMetricsData = data.data();
  WL_CUPTI_CALL(*api_, cuptiSassMetricsFlushData, f, ctx_->label());
  trace("per-line counts: SASS records flushed");
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    SassRecord r;
    r.crc = data[i].cubinCrc;
    r.pc = data[i].pcOffset;
    if (data[i].functionName) r.function = data[i].functionName;
    std::free(const_cast<char*>(data[i].functionName));  // allocated per record, the caller's to free
    r.values.assign(ids_.size(), 0);
    for (std::size_t k = 0; k < slots; ++k)
      for (std::size_t m = 0; m < ids_.size(); ++m)
        if (data[i].pInstanceValues[k].metricId == ids_[m]) r.values[m] += data[i].pInstanceValues[k].value;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace warplab::cu
