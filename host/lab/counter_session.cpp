// counter_session.cpp: CounterSession: the CUPTI sequence around a front end's launches
// (chip name -> selection -> config image with the device's counter availability -> range
// profiler enabled, counter data sized, configured for auto range and kernel replay ->
// start ... stop -> decode -> one evaluation per range), the counted launch and the match
// of ranges to the launches it made, nesting (pause, count both, resume), the clock the
// counted-launch watchdog reads while a counted launch is inside the driver; and
// start_counting, a session as a front end starts one.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>

#include "cu/metric_host.hpp"
#include "cu/range_profiler.hpp"
#include "lab/counters.hpp"
#include "lab/lines.hpp"
#include "lab/module.hpp"
#include "lab/run.hpp"
#include "sys/text.hpp"

namespace warplab::lab {
namespace {

// The counted launch inside the driver now, for the watchdog thread (overdue()).
struct InDriver {
  std::mutex mu;
  bool inside = false;
  std::size_t passes = 1;  // the launch runs this often inside the call
  std::chrono::steady_clock::time_point since;
  std::string kernel, site;
};
InDriver& in_driver() {
  static InDriver* d = new InDriver;  // never destroyed: a watchdog thread may ask during exit
  return *d;
}

}  // namespace

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
    if (!c.of.empty() && value_of(c.of) == 0.0) {  // a share of nothing: CUPTI's 0 % is no value
      out.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    if (c.per.empty()) {
      out.push_back(raw);
      continue;
    }
    const double per = value_of(c.per);
    out.push_back(per == 0.0 ? std::numeric_limits<double>::quiet_NaN() : raw / per);
  }
  return out;
}

CountedKernel counted_kernel(const KernelObj& k) {
  CountedKernel out{k.display, k.sig ? k.sig->to_string() : k.mangled, ""};
  // Where the module came from tells two kernels of one signature apart: its file, or the
  // script line of an inline source, and the defines it was compiled with.
  if (k.module) {
    const ModuleSpec& spec = k.module->spec;
    out.module = spec.source.name;
    if (spec.path.empty() && spec.source.line_offset > 0)
      out.module += ":" + std::to_string(spec.source.line_offset + 1);
    for (const auto& [name, value] : spec.options.defines) out.module += " -D" + name + "=" + value;
  }
  return out;
}

CounterSession::CounterSession(cu::ContextPtr ctx, const std::vector<std::string>& words,
                               std::size_t max_launches)
    : ctx_(std::move(ctx)), max_launches_(max_launches) {
  if (!ctx_) throw Error(ErrorKind::no_gpu, counters_need_gpu());
  if (max_launches_ == 0)
    throw Error(ErrorKind::bad_input, "a counter session must allow at least one launch");
  if (LineSession::active()) throw Error(ErrorKind::bad_input, kCountersBesideLines);
  if (active_ && active_->ctx_ != ctx_)
    throw Error(ErrorKind::bad_input, "hardware counters are already being counted on " +
                                          active_->ctx_->label() +
                                          ": a counter session inside it must count the same device");
  const std::string chip = cu::chip_name(ctx_->ordinal());
  selection_ = resolve_counters(words, chip);  // its passes: this configuration's, below
  // What this segment collects: ours, then whatever the sessions around it count, so that
  // the launches made inside this one are theirs too.
  collect_ = selection_.collect;
  for (CounterSession* s = active_; s; s = s->outer_)
    for (const std::string& m : s->selection_.collect)
      if (std::find(collect_.begin(), collect_.end(), m) == collect_.end()) collect_.push_back(m);
  outer_ = active_;
  if (outer_) outer_->pause();  // its launches so far are decoded and kept; CUPTI is ours now
  try {
    // The device's availability image leaves out counters it cannot count now; the passes
    // are those of this configuration. Should CUPTI refuse a configuration made with it,
    // one without it is tried: SetConfig then says whether the device can count them.
    std::vector<std::uint8_t> availability = cu::counter_availability(*ctx_);
    try {
      host_ = std::make_unique<cu::MetricHost>(chip, availability);
      image_ = host_->config_image(collect_);
    } catch (const cu::CuptiError&) {
      if (availability.empty()) throw;
      host_ = std::make_unique<cu::MetricHost>(chip);
      image_ = host_->config_image(collect_);
    }
    selection_.passes = cu::MetricHost::passes(image_);
    profiler_ = std::make_unique<cu::RangeProfiler>(ctx_);
    profiler_->configure(collect_, image_, max_launches_);
    profiler_->start();
  } catch (...) {
    profiler_.reset();
    if (outer_) outer_->resume();
    throw;
  }
  active_ = this;
}

CounterSession::~CounterSession() {
  if (ended_) return;
  if (active_ == this) active_ = outer_;
  profiler_.reset();  // stops and disables the range profiler; never throws
  if (outer_) outer_->resume();
}

void CounterSession::driver_call(const std::string& kernel, const std::string& site) noexcept {
  InDriver& d = in_driver();
  std::lock_guard<std::mutex> lock(d.mu);
  d.inside = true;
  d.passes = selection_.passes > 0 ? selection_.passes : 1;
  d.since = std::chrono::steady_clock::now();
  try {
    d.kernel = kernel;
    d.site = site;
  } catch (...) {  // no memory for a name: the watchdog's sentence goes without it
  }
}

void CounterSession::driver_done() noexcept {
  InDriver& d = in_driver();
  std::lock_guard<std::mutex> lock(d.mu);
  d.inside = false;
}

void CounterSession::launch(const cu::Function& f, const cu::LaunchConfig& c, void** args,
                            CountedKernel kernel, const Where& where) {
  std::string site = where.line > 0 && where.source
                         ? std::string(where.source) + ":" + std::to_string(where.line)
                         : std::string();
  driver_call(kernel.kernel, site);
  try {
    cu::launch(f, c, args);
  } catch (...) {
    driver_done();
    throw;
  }
  driver_done();
  launches_.push_back({std::move(kernel.kernel), std::move(kernel.signature), std::move(kernel.module),
                       std::move(site), c.grid, c.block});
}

std::string CounterSession::overdue(double seconds) {
  InDriver& d = in_driver();
  std::lock_guard<std::mutex> lock(d.mu);
  if (!d.inside || seconds <= 0) return "";
  // Each replay pass runs the kernel once: each gets the whole timeout.
  const std::chrono::duration<double> in = std::chrono::steady_clock::now() - d.since;
  if (in.count() <= seconds * static_cast<double>(d.passes)) return "";
  char secs[64];
  std::snprintf(secs, sizeof secs, "%g s", seconds * static_cast<double>(d.passes));
  return "kernel " + d.kernel + (d.site.empty() ? "" : " launched at " + d.site) + " did not finish within " +
         secs + (d.passes > 1 ? " (" + std::to_string(d.passes) + " replay passes)" : std::string()) +
         " while its hardware counters were counted (CUPTI replays a counted launch to its end inside the "
         "launch call): probable deadlock or endless loop";
}

void CounterSession::take(const cu::MetricHost& host, const cu::RangeProfiler& profiler, std::size_t ranges,
                          std::size_t dropped, const std::vector<Launch>& launches) {
  // Ranges are launches in order; the first `ranges` recorded launches are those counted
  // when the counts agree (launches beyond max_launches are dropped at the end).
  const bool matched = ranges + dropped == launches.size();
  if (!matched)
    unmatched_ = "the GPU counted " + sys::plural(ranges, "launch", "launches") + " but warplab recorded " +
                 std::to_string(launches.size()) + ", so the rows carry no kernel names";
  dropped_ += dropped;
  for (std::size_t i = 0; i < ranges; ++i) {
    CounterRow row;
    if (matched) {
      row.kernel = launches[i].kernel;
      row.signature = launches[i].signature;
      row.module = launches[i].module;
      row.site = launches[i].site;
      row.grid = launches[i].grid;
      row.block = launches[i].block;
    }
    row.collected = host.evaluate(profiler.counter_data(), i, selection_.collect);
    row.values = counter_values(selection_, row.collected);
    rows_.push_back(std::move(row));
  }
}

void CounterSession::stop_segment(std::vector<CounterSession*> also) {
  if (!profiler_) return;  // counting never resumed (broken_ says why)
  const bool all = profiler_->stop();
  if (!all)
    throw Error(ErrorKind::profiler,
                "CUPTI did not run every replay pass of the counted launches (cuptiRangeProfilerStop)");
  const std::size_t dropped = profiler_->decode();
  const std::size_t ranges = profiler_->ranges();
  for (CounterSession* s : also) s->take(*host_, *profiler_, ranges, dropped, launches_);
  launches_.clear();
  profiler_.reset();  // disables the range profiler: the context launches as before
}

void CounterSession::pause() {
  ctx_->synchronize();  // every launch counted so far has finished
  stop_segment({this});
}

void CounterSession::resume() noexcept {
  active_ = this;
  if (broken_) return;
  try {
    profiler_ = std::make_unique<cu::RangeProfiler>(ctx_);
    profiler_->configure(collect_, image_, max_launches_);
    profiler_->start();
  } catch (const std::exception& e) {
    profiler_.reset();
    broken_ = e.what();
  }
}

CounterReport CounterSession::end() {
  if (ended_) throw Error(ErrorKind::bad_input, "this counter session has already ended");
  if (active_ != this && active_ != nullptr)  // null: one inside was abandoned with the context
    throw Error(ErrorKind::bad_input, "a counter session cannot end while one started inside it is counting");
  ended_ = true;
  active_ = outer_;
  // Whatever happens below, the range profiler is disabled and the outer session counts
  // again before this returns.
  struct Finally {
    CounterSession* self;
    ~Finally() {
      self->profiler_.reset();
      if (self->outer_) self->outer_->resume();
    }
  } finally{this};
  // Every counted launch must have finished before the counter data is read; a fault in
  // one surfaces here as the driver's error.
  ctx_->synchronize();
  std::vector<CounterSession*> into = {this};
  for (CounterSession* s = outer_; s; s = s->outer_) into.push_back(s);
  stop_segment(into);
  if (broken_)
    throw Error(ErrorKind::profiler,
                "hardware counters stopped after a counter session inside this one ended: " + *broken_);
  CounterReport report;
  report.selection = selection_;
  report.rows = std::move(rows_);
  if (dropped_ > 0)
    report.note = sys::plural(dropped_, "launch was", "launches were") +
                  " not counted: a counter session counts at most " +
                  sys::plural(max_launches_, "launch", "launches") + " at a time";
  else
    report.note = unmatched_;
  return report;
}

void CounterSession::abandon() noexcept {
  ended_ = true;
  for (CounterSession* s = active_; s; s = s->outer_)
    if (s == this) active_ = nullptr;  // this one and those inside it: nobody counts now
  driver_done();
  // The range profiler is left enabled and its object leaked: disabling it would call into
  // a context that is broken or still running a kernel.
  (void)profiler_.release();
}

std::unique_ptr<CounterSession> start_counting(Run& run, const std::vector<std::string>& words,
                                               const char* who) {
  run.capture.refuse(CaptureOp::counters, who);
  if (run.offline()) {
    select_counters(words, counter_chip(run.target()));  // a misspelling is said first
    throw Error(ErrorKind::no_gpu,
                "no CUDA device: " + counters_need_gpu() + " (" + run.offline_reason() + ")");
  }
  check_counter_words(words, run.target());  // a misspelling first, whatever CUPTI says next
  return std::make_unique<CounterSession>(run.gpu_context(who), words);
}

}  // namespace warplab::lab
