// range_profiler.hpp: CUPTI's Range Profiler on one context: every kernel launched between
// start() and stop() is one range (CUPTI_AutoRange), replayed by CUPTI as often as the
// config image needs passes (CUPTI_KernelReplay); decode() then fills the counter data that
// MetricHost::evaluate reads. Also a device's chip name and counter availability.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cu/context.hpp"
#include "cu/cupti.hpp"

namespace warplab::cu {

// cuptiProfilerInitialize, once per process (thread-safe). Throws CuptiError.
void profiler_initialize();

// CUPTI, able to count in this process, else CuptiError: no CUPTI (kind no_gpu); another
// NVIDIA tool injected into the process (Nsight Compute, Nsight Systems: CUDA_INJECTION64_PATH
// is set), which CUPTI cannot count beside (kind profiler); cuptiProfilerInitialize refused.
void require_profiler();
// The same question as a value: why not (one sentence), or nullopt; never throws.
std::optional<std::string> profiler_unavailable();

// cuptiDeviceGetChipName for device `ordinal`: "GH100" on an H100 or H200. Initializes the
// profiler first. Throws CuptiError.
std::string chip_name(int ordinal);

// cuptiProfilerGetCounterAvailability for the context: the image MetricHost uses to leave out
// counters this device cannot count now. Empty when this CUPTI lacks the call or the call
// fails, except CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, which throws CuptiError.
std::vector<std::uint8_t> counter_availability(const Context& ctx);

class RangeProfiler {
 public:
  // cuptiRangeProfilerEnable on `ctx` (initializing the profiler first). Throws CuptiError.
  explicit RangeProfiler(ContextPtr ctx);
  ~RangeProfiler();  // stops if started, then cuptiRangeProfilerDisable; never throws
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  // Sizes and initializes the counter data for up to `max_ranges` ranges of `metrics`, then
  // cuptiRangeProfilerSetConfig: auto range, kernel replay, one nesting level.
  void configure(const std::vector<std::string>& metrics, std::vector<std::uint8_t> config_image,
                 std::size_t max_ranges);
  void start();  // cuptiRangeProfilerStart
  // cuptiRangeProfilerStop: true when every pass was submitted (kernel replay does them all).
  bool stop();
  // cuptiRangeProfilerDecodeData: fills counter_data(); returns the ranges dropped (launches
  // beyond max_ranges).
  std::size_t decode();
  // Ranges in the decoded counter data (cuptiRangeProfilerGetCounterDataInfo).
  std::size_t ranges() const;
  const std::vector<std::uint8_t>& counter_data() const noexcept { return counter_data_; }

 private:
  std::string label() const { return ctx_->label(); }

  const CuptiApi* api_;  // the CUPTI this object was made with
  ContextPtr ctx_;
  CUpti_RangeProfiler_Object* obj_ = nullptr;
  std::vector<std::uint8_t> config_;        // CUPTI reads these while enabled
  std::vector<std::uint8_t> counter_data_;  // filled by decode()
  bool started_ = false;
};

}  // namespace warplab::cu
