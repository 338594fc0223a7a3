// counters.hpp: hardware counters as warplab reports them, with no Lua: named sets with
// stable short names (shared, memory, warps, stalls, sync, local, time), each metric with a
// unit and a one-line meaning, mapped to CUPTI metrics (or a ratio of two counts, for "per
// request"); any raw CUPTI metric name too, checked against the chip with "did you mean";
// the replay passes a selection needs; and CounterSession, which counts every kernel launch
// on a context between its start and end() (sessions nest). Finding a counter by a word
// needs nothing but the tables; checking names for a chip needs CUPTI's host library, not
// a GPU; what a front end prints of a report is counter_report.hpp's.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cu/context.hpp"
#include "cu/device.hpp"
#include "cu/launch.hpp"
#include "lab/fault.hpp"  // Where
#include "sys/error.hpp"  // warplab::Error, which these throw

namespace warplab::cu {
class Function;
class MetricHost;
class RangeProfiler;
}  // namespace warplab::cu

namespace warplab::lab {

struct KernelObj;  // module.hpp
struct Run;

// ---- the named sets (counter_sets.cpp) ----------------------------------------------

// One metric of a named set: a CUPTI metric, or the ratio of two.
struct CounterDef {
  std::string_view name;     // short, stable, unique across sets: "shared_st_conflicts_per_request"
  std::string_view unit;     // "conflicts/request", "%", "ns", "bytes"
  std::string_view meaning;  // one line
  std::string_view raw;      // CUPTI metric; alternatives "a|b": the first one the chip has
  std::string_view per;      // when not empty: the value is raw / per (NaN when per counted 0)
  // When not empty: the CUPTI count that raw, a percentage CUPTI computes, is a share of
  // (branch_efficiency: of the branch targets). CUPTI says 0 % for a share of nothing;
  // warplab says NaN when this counted 0, and weighs a kernel's launches by it.
  std::string_view of = {};
};

struct CounterSet {
  std::string_view name;     // "shared"
  std::string_view meaning;  // one line
  std::vector<CounterDef> metrics;
};

// Every named set, in a stable order: shared, memory, warps, stalls, sync, local, time. A
// short name in two sets (stall_barrier in stalls and sync) has one definition.
const std::vector<CounterSet>& counter_sets();
// The set called `name`, or null.
const CounterSet* find_counter_set(std::string_view name);

// ---- finding counters by a word (counter_search.cpp): warplab's tables, no CUPTI -------

// What a word found in one set: the set, and those of its metrics to show.
struct CounterMatch {
  const CounterSet* set = nullptr;
  bool whole = false;                      // every metric of the set: its name or meaning has the word
  std::vector<const CounterDef*> metrics;  // in the set's order
};
// The sets and metrics that have `word` in a name, a meaning or a CUPTI name, ignoring
// case, '_' and '-' read as spaces ("bank_conflicts" finds "bank conflicts"): a set whose
// name has it whole, else its metrics that have it, else (only its meaning has it) whole.
// An empty word finds every set whole. In the sets' order.
std::vector<CounterMatch> search_counters(std::string_view word);
// The guesses for a word that names no set or metric, at most three, as "did you mean"
// says them ("'shared_ld_conflicts' or 'shared_st_conflicts' (set shared)", "the set
// 'memory'"); "" when nothing is near. The first of: the sets whose names have the word
// ("mem": 'memory'); the metrics whose short names have it ("global"); the set and short
// names it is a misspelling of ("sahred": 'shared'); the metrics whose CUPTI names have it
// ("sector_hit_rate"); those whose meanings have it. A name that only extends another
// guess's (as _per_request does) is left out; more than three: the sets they are in.
std::string counter_guesses(const std::string& word);
// Up to three of `names` within a third of `word`'s length (at least 2) by edit distance,
// closest first (alphabetical among equals).
std::vector<std::string> closest_names(const std::string& word, const std::vector<std::string>& names);
// "'a', 'b' or 'c'" (`last` between the last two).
std::string quoted_names(const std::vector<std::string>& names, const char* last = " or ");

// ---- a selection, resolved for a chip (counters.cpp) -----------------------------------

// One reported metric.
struct Counter {
  std::string name;     // short name, or the raw CUPTI name as asked
  std::string set;      // the named set it came from; "" when asked by name
  std::string unit;     // the set's unit; CUPTI's dimension for a raw name ("nanosecond")
  std::string meaning;  // the set's line; CUPTI's description for a raw name
  std::string raw;      // the CUPTI metric collected (the alternative this chip has)
  std::string per;      // the CUPTI metric it is divided by; "" for none
  std::string of = {};  // the CUPTI count it is a share of (NaN when 0: CounterDef::of); "" for none
};

struct CounterSelection {
  std::string chip;                      // "GH100"
  std::vector<Counter> counters;         // in the order asked, each once
  std::vector<std::string> collect;      // the CUPTI metrics to collect, each once
  std::vector<std::string> unavailable;  // short names of set metrics this chip lacks, left out
  std::size_t passes = 0;                // replay passes per counted launch
};

// Resolves `words` for `chip`: each is a set name ("shared"), the short name of a set's
// metric ("shared_st_conflicts_per_request") or a raw CUPTI metric name (it has "__").
// Needs CUPTI, not a GPU. Throws Error (bad_input) for a word that is none of these, with "did you
// mean" (counter_guesses) and where `warplab counters` lists them, before CUPTI loads; for
// no words; for a metric asked by name that the chip lacks.
// Throws cu::CuptiError when CUPTI is missing or does not know the chip.
CounterSelection select_counters(const std::vector<std::string>& words, const std::string& chip);
// The same without the replay passes (0): names only, no configuration made (a session
// counts its passes from its own configuration).
CounterSelection resolve_counters(const std::vector<std::string>& words, const std::string& chip);
// The check of the words that needs no CUPTI (what select_counters says first): each a
// set, a short name or shaped like a CUPTI metric ("__"); none at all is an error too.
// Throws Error (bad_input) with select_counters' sentence.
void check_counter_spelling(const std::vector<std::string>& words);
// The names checked for a live device before CUPTI starts on it, so that a misspelling is
// said (bad_input, "did you mean") even where the profiler then fails to start: against the
// chip of its compute capability, with CUPTI's host library only. Throws as select_counters.
void check_counter_words(const std::vector<std::string>& words, const cu::DeviceSnapshot& device);

// The CUPTI chip of a compute capability ("GH100" for 9.0); "" when warplab knows none.
std::string chip_for_compute_capability(int major, int minor);
// The chip counters are checked against: CUPTI's answer for a live device, the table for a
// profile. Throws Error (bad_input) when a profile's compute capability has no known chip.
std::string counter_chip(const cu::DeviceSnapshot& device);

// ---- counting launches (counter_session.cpp) ----------------------------------------

// One counted launch (or, combined by by_kernel in counter_report.hpp, every launch of one
// kernel).
struct CounterRow {
  std::string kernel;  // as recorded at launch; "" when the GPU counted other launches too
  // Which kernel it is, where two share a name: its full signature ("f(int*)"; an extern
  // "C" kernel's name) and its module's source ("a.cu"; "x.lua:12" for a source inline in
  // a script from its line 12; with " -DN=V" for each define). Empty when unknown.
  std::string signature, module;
  std::string site;  // the script line that launched it ("banks.lua:64"); "" when unknown
  cu::Dim3 grid, block;
  std::size_t launches = 1;       // launches this row stands for
  std::vector<double> values;     // parallel to selection.counters; NaN: a ratio over 0
  std::vector<double> collected;  // CUPTI's values, parallel to selection.collect
};

struct CounterReport {
  CounterSelection selection;    // passes: as the device's CUPTI configured them
  std::vector<CounterRow> rows;  // one per counted launch, in launch order
  std::string note;              // "" or one sentence: launches not counted, or unmatched
};

// The counters' values of one counted launch from CUPTI's values (`collected`, in the order
// of sel.collect): each counter's raw metric; raw / per for a ratio (NaN when per counted
// 0); NaN for a share of a count (Counter::of) that counted 0, where CUPTI says 0 %.
std::vector<double> counter_values(const CounterSelection& sel, const std::vector<double>& collected);

// What a counted launch of `k` records of its kernel: CounterRow's kernel, signature and
// module.
struct CountedKernel {
  std::string kernel, signature, module;
};
CountedKernel counted_kernel(const KernelObj& k);

// Counts every kernel launch on a context between its start and end(). Sessions nest (a
// script's cuda.counters inside `run --counters`): a new session pauses the one counting
// (its launches so far are decoded and kept), counts what both ask for, gives every
// enclosing session its rows too, and resumes the paused one when it ends.
class CounterSession {
 public:
  // The launches a session counts at most (CUPTI sizes its counter data by it, a few KiB a
  // launch); the rest are left out and the report's note says how many: cuda.counters and
  // k:counters count up to 1,024 launches a call, `run --counters` a whole script, up to
  // 4,096 (docs/lua-api.md and docs/cli.md say both).
  static constexpr std::size_t kDefaultMaxLaunches = 1024;
  static constexpr std::size_t kScriptMaxLaunches = 4096;

  // Starts counting on `ctx`: resolves `words` for its chip, enables CUPTI's range profiler
  // (auto range: a range per launch; kernel replay: CUPTI reruns each launch once per pass)
  // and starts it. Throws Error (no_gpu) offline (null ctx: "hardware counters need a GPU ...")
  // or for bad words; cu::CuptiError when CUPTI refuses.
  CounterSession(cu::ContextPtr ctx, const std::vector<std::string>& words,
                 std::size_t max_launches = kDefaultMaxLaunches);
  ~CounterSession();  // stops counting if end() was not called, resumes the outer; never throws
  CounterSession(const CounterSession&) = delete;
  CounterSession& operator=(const CounterSession&) = delete;

  const CounterSelection& selection() const noexcept { return selection_; }

  // The counted launch, what every launch path calls while this session is active()
  // (after the preflight and the fault note, launch.hpp): `f` launched with `c` and `args`
  // (cu::launch), its row named by `kernel` (counted_kernel(): name, signature, module) with
  // `where`'s script line. CUPTI replays a counted launch to its end inside the driver call,
  // so the call is clocked for the counted-launch watchdog (overdue(), sync.hpp); a launch
  // the driver refused leaves no row. Throws what cu::launch throws.
  void launch(const cu::Function& f, const cu::LaunchConfig& c, void** args, CountedKernel kernel,
              const Where& where);

  // Waits for the context, stops counting, and returns one row per counted launch. Once
  // only (an Error after). A fault of a counted kernel surfaces as cu::Error here. The
  // caller waits behind the kernel watchdog first (sync.hpp), so this wait finds nothing
  // running.
  CounterReport end();
  // For a context that cannot be used any more (a fault, a kernel still running): the
  // session stops being active and makes no further CUPTI or driver call, ever.
  void abandon() noexcept;

  // The session counting now in this process, or null: launch paths report to it. One
  // load, so a launch with counters off pays a pointer test.
  static CounterSession* active() noexcept { return active_; }

  // The sentence for a counted launch that has been inside the driver for more than
  // `seconds` per replay pass (a kernel that hangs under replay), or "" (thread-safe: the
  // counted-launch watchdog, sync.hpp, asks while the launching thread is blocked).
  static std::string overdue(double seconds);

 private:
  struct Launch {
    std::string kernel, signature, module, site;
    cu::Dim3 grid, block;
  };
  void driver_call(const std::string& kernel, const std::string& site) noexcept;  // overdue()'s clock on
  void driver_done() noexcept;                                                    // ... and off
  void pause();            // the outer session, when an inner one starts: decode, keep, disable
  void resume() noexcept;  // ... and when it ends: counting again with its own image (broken_: why not)
  void take(const cu::MetricHost& host, const cu::RangeProfiler& profiler, std::size_t ranges,
            std::size_t dropped, const std::vector<Launch>& launches);  // rows of one segment
  void stop_segment(std::vector<CounterSession*> also);                 // decode this segment into those

  static inline CounterSession* active_ = nullptr;

  cu::ContextPtr ctx_;
  CounterSelection selection_;
  std::size_t max_launches_;
  CounterSession* outer_ = nullptr;   // the session this one paused
  std::vector<std::string> collect_;  // what this segment collects: ours and the outers'
  std::vector<std::uint8_t> image_;   // its config image (resume() reuses it)
  std::unique_ptr<cu::MetricHost> host_;
  std::unique_ptr<cu::RangeProfiler> profiler_;
  std::vector<Launch> launches_;       // of the running segment
  std::vector<CounterRow> rows_;       // of the segments decoded so far
  std::size_t dropped_ = 0;            // launches beyond max_launches, over every segment
  std::string unmatched_;              // the note for a segment whose ranges and launches differed
  std::optional<std::string> broken_;  // why counting could not resume after an inner session
  bool ended_ = false;
};

// The sentence for counters asked for with no GPU: names and passes can be checked offline
// (select_counters), counting needs a device.
std::string counters_need_gpu();

// A session counting `words` on run's device, started by a front end's call `who`
// ("cuda.counters", "k:counters") around a body of Lua code: refused during a stream capture
// (capture.hpp CaptureOp::counters); offline the names are still checked against the
// profile's chip (a misspelling gets its "did you mean" first), then Error (no_gpu) "no CUDA
// device: hardware counters need a GPU ... (why offline)"; live, the names are checked
// before CUPTI starts (check_counter_words), then a CounterSession on the run's context.
std::unique_ptr<CounterSession> start_counting(Run& run, const std::vector<std::string>& words,
                                               const char* who);

}  // namespace warplab::lab
