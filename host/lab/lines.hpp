// lines.hpp: per-line hardware counts and stall reasons, with no Lua. LineSession collects
// what the launches between its start and end() did, per SASS instruction, and returns one
// row per source line of each kernel (line_map.hpp's rows, filled in): exact counts from
// CUPTI's SASS metrics (the kernels run patched), or stall samples from PC sampling (they
// run unpatched). The listing and the JSON the front ends show are line_report.cpp's.
#pragma once
#include <nlohmann/json.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cu/context.hpp"
#include "lab/line_map.hpp"
#include "sys/error.hpp"

namespace warplab::cu {
class SassMetrics;
class PcSampler;
}  // namespace warplab::cu

namespace warplab::lab {

// The columns asked for: `--lines SET[,SET]` and cuda.lines' `columns`.
struct LineColumns {
  bool instructions = true;  // warp and thread instructions, the predicated-off share
  bool shared = true;        // shared wavefronts against the ideal (N-way)
  bool global = true;        // global sectors against the ideal
  bool local = true;         // local sectors (spills)
  bool stalls = false;       // where warps stalled (PC sampling: never in the collection that counts)
  bool counts() const { return instructions || shared || global || local; }
  // Both asked: two collections, the counts then the stalls (a collection that counts
  // patches the code whose stalls the sampling would watch).
  bool twice() const { return counts() && stalls; }
  LineColumns counts_only() const {
    LineColumns c = *this;
    c.stalls = false;
    return c;
  }
  static LineColumns stalls_only() { return {false, false, false, false, true}; }
};

// The names the sets go by, for help and for "did you mean".
inline constexpr const char* kLineSets =
    "instructions, shared, global, local, stalls (or counts: the first four; all: every one)";

// Reads "shared,global" / {"stalls"} / "counts,stalls": throws Error (bad_input) naming an
// unknown word (with the sets). An empty list is the counts.
LineColumns line_columns(const std::vector<std::string>& words);

struct LineKernel {
  std::string kernel;        // display name
  std::size_t launches = 0;  // 0 for a map without counts
  double samples = 0;        // stall samples in this kernel (stalls only)
  KernelLines map;           // its instructions by line, its files' text; map.note: how it was mapped
};

struct LineReport {
  LineColumns columns;
  std::vector<LineKernel> kernels;  // in the order first launched
  std::vector<LineRow> rows;        // per kernel (in that order), file, line
  std::string note;                 // "" or one sentence about the whole collection
};

// Collects per-line counts (or stall samples) of every launch on a context between its
// start and end(). One at a time per process; none while hardware counters count.
class LineSession {
 public:
  // Starts collecting on `ctx`: counts enable CUPTI's SASS metrics (the kernels launched
  // from now on are patched at their first launch), stalls start PC sampling. Throws
  // Error offline (null ctx, no_gpu), inside a counter session or another line session,
  // for counts and stalls together (collect twice: columns.twice()); cu::CuptiError when
  // CUPTI refuses (another NVIDIA tool attached: its sentence).
  LineSession(cu::ContextPtr ctx, LineColumns columns);
  ~LineSession();  // stops collecting if end() was not called; never throws
  LineSession(const LineSession&) = delete;
  LineSession& operator=(const LineSession&) = delete;

  // What a launch path tells the session for each launch the driver took (the kernel's
  // module is kept: its CUBIN maps the records to lines).
  void record_launch(const KernelObj& k);

  // Waits for the context, stops collecting and returns the rows. Once only. The caller
  // waits behind the kernel watchdog first (sync.hpp).
  LineReport end();
  // For a context that cannot be used any more: no further CUPTI or driver call, ever.
  void abandon() noexcept;

  static LineSession* active() noexcept { return active_; }

 private:
  struct Launched {
    ModuleRef module;
    std::string mangled, display;
    std::size_t launches = 0;
  };
  static inline LineSession* active_ = nullptr;
  static inline std::size_t sessions_ = 0;  // started in this process

  cu::ContextPtr ctx_;
  LineColumns columns_;
  std::unique_ptr<cu::SassMetrics> sass_;
  std::unique_ptr<cu::PcSampler> sampler_;
  std::vector<Launched> launched_;
  std::size_t sessions_before_ = 0;
  bool ended_ = false;
};

// The sentence for lines asked for with no GPU: the map needs none, the counts do.
std::string lines_need_gpu();

// Why hardware counters do not count while per-line counts are collected (cuda.counters
// refuses, cuda.counters_available answers false).
inline constexpr const char* kCountersBesideLines =
    "per-line counts are being collected in this run (run --lines, cuda.lines), and hardware counters "
    "would count their patched code: count them in a run without --lines";

// ---- what front ends show (line_report.cpp) -------------------------------------------

// The annotated listing: per kernel a heading, then its files' lines from the first to the
// last with instructions, each with the asked columns and the source text; lines with no
// instructions dimmed (`color`) and long runs of them left out; the hottest lines marked
// with '>'. A map without counts (compile --lines, cuda.lines(m)) shows instructions and kinds.
// `sass`: each line's SASS instructions under it.
std::string lines_text(const LineReport& r, bool color, bool sass = false);

// The indexes in r.rows of the `n` hottest rows (by warp instructions, or by stall
// samples), hottest first.
std::vector<std::size_t> hot_lines(const LineReport& r, std::size_t n);

// {"columns": [...], "kernels": [{kernel, launches, samples, note}], "rows": [{kernel, file,
// line, text, instructions, kinds, offsets, inst, thread_inst, thread_inst_pred_on,
// predicated_off, shared_wavefronts, shared_ideal, shared_way, global_sectors,
// global_ideal, local_sectors, divergent_branches, samples, share, reasons: {name:
// samples}}], "note"} (docs/cli.md); a count not collected is null.
nlohmann::json lines_json(const LineReport& r);

// The report of maps alone (no counts): compile --lines, cuda.lines(m), k:lines() offline.
LineReport map_report(const std::vector<KernelLines>& maps);

// The stall columns of `stalls` (a collection of the same launches, sampled) put into the
// rows of `counts`, by kernel, file and line; kernels, rows or notes only `stalls` has are
// added.
void merge_stalls(LineReport& counts, LineReport stalls);

}  // namespace warplab::lab
