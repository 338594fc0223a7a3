// counter_session.cpp: CounterSession: the CUPTI sequence around a front end's launches
// (chip name -> selection -> config image with the device's counter availability -> range
// profiler enabled, counter data sized, configured for auto range and kernel replay ->
// start ... stop -> decode -> one evaluation per range) and the match of ranges to the
// launches the front end recorded. Depends on cu/metric_host.hpp, cu/range_profiler.hpp.
#include <cmath>
#include <limits>

#include "cu/metric_host.hpp"
#include "cu/range_profiler.hpp"
#include "lab/counters.hpp"

namespace warplab::lab {
namespace {

CounterSession* g_active = nullptr;  // the session counting now; launch paths read it

// The counters' values from one range's CUPTI values (in the order of sel.collect).
std::vector<double> counter_values(const CounterSelection& sel, const std::vector<double>& collected) {
  auto value_of = [&](const std::string& metric) {
    for (std::size_t i = 0; i < sel.collect.size(); ++i)
      if (sel.collect[i] == metric) return collected[i];
    return std::numeric_limits<double>::quiet_NaN();  // unreachable: collect holds every metric
  };
  std::vector<double> out;
  out.reserve(sel.counters.size());
  for (const Counter& c : sel.counters) {
    const double raw = value_of(c.raw);
    if (c.per.empty()) {
      out.push_back(raw);
      continue;
    }
    const double per = value_of(c.per);
    out.push_back(per == 0.0 ? std::numeric_limits<double>::quiet_NaN() : raw / per);
  }
  return out;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

CounterSession::CounterSession(cu::ContextPtr ctx, const std::vector<std::string>& words,
                               std::size_t max_launches)
    : ctx_(std::move(ctx)), max_launches_(max_launches) {
  if (!ctx_) throw Error(counters_need_gpu());
  if (g_active) throw Error("hardware counters are already being counted: counter sessions do not nest");
  if (max_launches_ == 0) throw Error("a counter session must allow at least one launch");
  const std::string chip = cu::chip_name(ctx_->ordinal());
  selection_ = select_counters(words, chip);
  // The device's availability image leaves out counters it cannot count now; the passes
  // are those of this configuration. Should CUPTI refuse a configuration made with it, one
  // without it is tried: SetConfig then says whether the device can count them.
  std::vector<std::uint8_t> availability = cu::counter_availability(*ctx_);
  std::vector<std::uint8_t> image;
  try {
    host_ = std::make_unique<cu::MetricHost>(chip, availability);
    image = host_->config_image(selection_.collect);
  } catch (const cu::CuptiError&) {
    if (availability.empty()) throw;
    host_ = std::make_unique<cu::MetricHost>(chip);
    image = host_->config_image(selection_.collect);
  }
  selection_.passes = cu::MetricHost::passes(image);
  profiler_ = std::make_unique<cu::RangeProfiler>(ctx_);
  profiler_->configure(selection_.collect, std::move(image), max_launches_);
  profiler_->start();
  g_active = this;
}

CounterSession::~CounterSession() {
  if (g_active == this) g_active = nullptr;
  // profiler_ stops and disables itself; host_ deinitializes.
}

void CounterSession::record_launch(std::string kernel, cu::Dim3 grid, cu::Dim3 block) {
  launches_.push_back({std::move(kernel), grid, block});
}

CounterReport CounterSession::end() {
  if (ended_) throw Error("this counter session has already ended");
  ended_ = true;
  if (g_active == this) g_active = nullptr;
  // Every counted launch must have finished before the counter data is read; a fault in
  // one surfaces here as the driver's error.
  ctx_->synchronize();
  if (!profiler_->stop())
    throw Error("CUPTI did not run every replay pass of the counted launches (cuptiRangeProfilerStop)");
  const std::size_t dropped = profiler_->decode();
  const std::size_t ranges = profiler_->ranges();
  CounterReport report;
  report.selection = selection_;
  // Ranges are launches in order; the first `ranges` recorded launches are those counted
  // when the counts agree (launches beyond max_launches are dropped at the end).
  const bool matched = ranges + dropped == launches_.size();
  for (std::size_t i = 0; i < ranges; ++i) {
    CounterRow row;
    if (matched) {
      row.kernel = launches_[i].kernel;
      row.grid = launches_[i].grid;
      row.block = launches_[i].block;
    }
    row.values =
        counter_values(selection_, host_->evaluate(profiler_->counter_data(), i, selection_.collect));
    report.rows.push_back(std::move(row));
  }
  if (dropped > 0)
    report.note = plural(dropped, "launch was", "launches were") +
                  " not counted: a counter session counts at most " +
                  plural(max_launches_, "launch", "launches");
  else if (!matched)
    report.note = "the GPU counted " + plural(ranges, "launch", "launches") + " but warplab recorded " +
                  std::to_string(launches_.size()) + ", so the rows carry no kernel names";
  profiler_.reset();  // disables the range profiler: the context launches as before
  return report;
}

CounterSession* CounterSession::active() noexcept { return g_active; }

}  // namespace warplab::lab
