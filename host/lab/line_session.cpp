// line_session.cpp: LineSession (lines.hpp): CUPTI's SASS metrics or PC sampling around a
// front end's launches, their records matched to the launched modules by CUBIN CRC and
// function, each record's SASS offset mapped to its source line (line_map.hpp), and the
// rows summed per line.
//
// Measured on an H200 (CUPTI 13.0, driver 580): with the module loaded before CUPTI was
// first used, SASS metrics alone patched nothing and flushed no record (lazy patching) or
// patched without records (eager); with PC sampling enabled and started on the context
// too, the same launch gave every record, exactly (32.0x wavefronts on a stride-32 shared
// load). So a count session runs a sampler beside the metrics, at a long period, and drops
// its samples (they fall in CUPTI's patches, not in the kernel's code).
#include <algorithm>
#include <cmath>
#include <map>

#include "cu/pc_sampling.hpp"
#include "cu/range_profiler.hpp"
#include "cu/sass_metrics.hpp"
#include "cu/trace.hpp"
#include "lab/counters.hpp"
#include "lab/lines.hpp"
#include "sys/shown.hpp"

namespace warplab::lab {
namespace {

// Collected for every count session (CUPTI keeps a process's first configuration): the
// order is the one counts_into() reads.
const std::vector<std::string>& line_metrics() {
  static const std::vector<std::string> m = {
      "smsp__sass_inst_executed",
      "smsp__sass_thread_inst_executed",
      "smsp__sass_thread_inst_executed_pred_on",
      "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
      "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
      "smsp__sass_sectors_mem_global",
      "smsp__sass_sectors_mem_global_ideal",
      "smsp__sass_sectors_mem_local",
      "smsp__sass_branch_targets_threads_divergent",
  };
  return m;
}

// The period PC sampling uses: 2^10 cycles gave ~34,000 samples on a 2.9 ms kernel on an
// H200 (2^5 dropped 70 % of them: the hardware buffer overflowed).
constexpr unsigned kStallPeriod = 10;
constexpr unsigned kQuietPeriod = 20;  // beside the SASS metrics: few samples, all dropped

void add(double& to, double v) { to = std::isnan(to) ? v : to + v; }

// "smsp__pcsamp_warps_issue_stalled_short_scoreboard" -> "short_scoreboard"; "" for the
// not-issued twins (each sample is counted in both) and the sample counters.
std::string reason_short(const std::string& cupti) {
  static const std::string prefix = "smsp__pcsamp_warps_issue_stalled_";
  if (cupti.rfind(prefix, 0) != 0) return {};
  std::string r = cupti.substr(prefix.size());
  if (r.size() > 11 && r.compare(r.size() - 11, 11, "_not_issued") == 0) return {};
  return r;
}

}  // namespace

LineColumns line_columns(const std::vector<std::string>& words) {
  if (words.empty()) return {};
  LineColumns c;
  c.instructions = c.shared = c.global = c.local = false;
  for (const std::string& w : words) {
    if (w == "counts") {
      c.instructions = c.shared = c.global = c.local = true;
    } else if (w == "instructions") {
      c.instructions = true;
    } else if (w == "shared") {
      c.shared = true;
    } else if (w == "global") {
      c.global = true;
    } else if (w == "local") {
      c.local = true;
    } else if (w == "stalls") {
      c.stalls = true;
    } else if (w == "all") {
      c.instructions = c.shared = c.global = c.local = c.stalls = true;
    } else {
      throw Error(ErrorKind::bad_input,
                  "'" + sys::shown(w) + "' is no set of line columns: the sets are " + kLineSets);
    }
  }
  return c;
}

std::string lines_need_gpu() {
  return "per-line counts need a GPU, and this run has none: offline, warplab maps each kernel's "
         "instructions "
         "to its lines (compile --lines, cuda.lines(m)), but nothing is counted";
}

LineSession::LineSession(cu::ContextPtr ctx, LineColumns columns) : ctx_(std::move(ctx)), columns_(columns) {
  if (!ctx_) throw Error(ErrorKind::no_gpu, lines_need_gpu());
  if (active_)
    throw Error(ErrorKind::bad_input,
                "per-line counts are already being collected: one collection at a time");
  if (CounterSession::active())
    throw Error(ErrorKind::bad_input,
                "per-line counts cannot be collected while hardware counters count (the counters would count "
                "the patched code): ask for them in two runs");
  if (columns_.twice())
    throw Error(ErrorKind::internal,
                "one line collection cannot count and sample stalls (counting patches the code whose stalls "
                "the sampling would watch): collect the counts, then the stalls");
  cu::require_profiler();  // no CUPTI (3), another NVIDIA tool attached (6): its sentence
  cu::trace(columns_.stalls ? "per-line stalls: collection starts" : "per-line counts: collection starts");
  if (columns_.stalls) {
    sampler_ = std::make_unique<cu::PcSampler>(ctx_, kStallPeriod);
    sampler_->start();
  } else {
    sass_ = std::make_unique<cu::SassMetrics>(ctx_, cu::chip_name(ctx_->ordinal()), line_metrics());
    sampler_ = std::make_unique<cu::PcSampler>(ctx_, kQuietPeriod);  // see the top of this file
    sampler_->start();
  }
  active_ = this;
  sessions_before_ = sessions_++;
}

LineSession::~LineSession() {
  if (active_ == this) active_ = nullptr;
}

void LineSession::record_launch(const KernelObj& k) {
  for (Launched& l : launched_)
    if (l.module == k.module && l.mangled == k.mangled) {
      ++l.launches;
      return;
    }
  launched_.push_back({k.module, k.mangled, k.display, 1});
}

void LineSession::abandon() noexcept {
  ended_ = true;
  if (active_ == this) active_ = nullptr;
  // Left enabled and leaked: disabling would call into a broken or busy context.
  if (sass_) sass_->abandon();
  if (sampler_) sampler_->abandon();
  (void)sass_.release();
  (void)sampler_.release();
}

LineReport LineSession::end() {
  if (ended_) throw Error(ErrorKind::internal, "this line collection has already ended");
  ended_ = true;
  active_ = nullptr;
  ctx_->synchronize();  // a fault of a collected kernel surfaces here
  std::vector<cu::SassRecord> counted;
  cu::PcSamples sampled;
  sampler_->stop();
  const std::map<std::uint32_t, std::string> reasons = sampler_->reasons();
  if (sass_) {
    (void)sampler_->take();  // read out first (as measured), so nothing is left in CUPTI's buffers
    counted = sass_->flush();
  } else {
    sampled = sampler_->take();
  }
  sampler_.reset();
  sass_.reset();
  cu::trace("per-line counts: collection ended");

  LineReport report;
  report.columns = columns_;
  // Each launched kernel's map, its rows by line, and its CUBIN's CRC.
  struct Mapped {
    KernelLines map;
    std::vector<LineRow> rows;
    std::map<std::pair<std::string, unsigned>, std::size_t> row_of;  // (file, line) as shown -> row
    std::uint64_t crc = 0;
  };
  std::vector<Mapped> maps;
  for (const Launched& l : launched_) {
    Mapped m;
    m.map = kernel_lines(*l.module, l.mangled, l.display);
    m.rows = line_rows(m.map);
    for (std::size_t i = 0; i < m.rows.size(); ++i) {
      LineRow& r = m.rows[i];
      if (columns_.counts()) r.inst = r.thread_inst = r.thread_inst_pred_on = 0;
      if (columns_.shared) r.shared_wavefronts = r.shared_ideal = 0;
      if (columns_.global) r.global_sectors = r.global_ideal = 0;
      if (columns_.local) r.local_sectors = 0;
      if (columns_.instructions) r.divergent_branches = 0;
      if (columns_.stalls) r.samples = 0;
    }
    for (std::size_t i = 0; i < m.rows.size(); ++i) m.row_of[{m.rows[i].file, m.rows[i].line}] = i;
    m.crc = l.module->result.cubin.empty() ? 0 : cu::cubin_crc(l.module->result.cubin);
    report.kernels.push_back({l.display, l.launches, 0, m.map});
    maps.push_back(std::move(m));
  }
  // The row of instruction `at` of map m: its file and line as the rows show them.
  auto row = [](Mapped& m, const LineInst& at) -> LineRow* {
    std::pair<std::string, unsigned> key{"", 0};
    if (at.line > 0 && at.file >= 0) {
      const auto f = static_cast<std::size_t>(at.file);
      key = {m.map.files[f], at.line + static_cast<unsigned>(std::max(0, m.map.line_offsets[f]))};
    }
    const auto it = m.row_of.find(key);
    return it == m.row_of.end() ? nullptr : &m.rows[it->second];
  };
  auto find = [&](std::uint64_t crc, bool low32, const std::string& fn) -> Mapped* {
    for (Mapped& m : maps)
      if ((low32 ? (m.crc & 0xffffffffu) == crc : m.crc == crc) && m.map.kernel == fn) return &m;
    return nullptr;
  };
  std::size_t unknown = 0;
  // The row of the line a record's instruction is on, or nullptr (counted as unknown).
  auto row_at = [&](std::uint64_t crc, bool low32, const std::string& fn, std::uint64_t pc) -> LineRow* {
    Mapped* m = find(crc, low32, fn);
    const LineInst* at = m ? m->map.at(pc) : nullptr;
    LineRow* r = at ? row(*m, *at) : nullptr;
    if (!r) ++unknown;
    return r;
  };
  for (const cu::SassRecord& rec : counted) {
    // CUPTI patches every function of a launched module and reports each instruction, run
    // or not: the ones that never ran say nothing.
    if (std::all_of(rec.values.begin(), rec.values.end(), [](std::uint64_t v) { return v == 0; })) continue;
    LineRow* rp = row_at(rec.crc, true, rec.function, rec.pc);
    if (!rp) continue;
    LineRow& r = *rp;
    const auto& v = rec.values;  // in line_metrics() order
    if (columns_.counts()) {
      add(r.inst, static_cast<double>(v[0]));
      add(r.thread_inst, static_cast<double>(v[1]));
      add(r.thread_inst_pred_on, static_cast<double>(v[2]));
    }
    if (columns_.shared)
      add(r.shared_wavefronts, static_cast<double>(v[3])), add(r.shared_ideal, static_cast<double>(v[4]));
    if (columns_.global)
      add(r.global_sectors, static_cast<double>(v[5])), add(r.global_ideal, static_cast<double>(v[6]));
    if (columns_.local) add(r.local_sectors, static_cast<double>(v[7]));
    if (columns_.instructions) add(r.divergent_branches, static_cast<double>(v[8]));
  }
  for (const cu::PcRecord& rec : sampled.pcs) {
    LineRow* rp = row_at(rec.crc, false, rec.function, rec.pc);
    if (!rp) continue;
    LineRow& r = *rp;
    for (const auto& [index, n] : rec.stalls) {
      const auto named = reasons.find(index);
      const std::string name = named == reasons.end() ? std::string() : reason_short(named->second);
      if (name.empty()) continue;
      add(r.samples, n);
      auto it =
          std::find_if(r.reasons.begin(), r.reasons.end(), [&](const auto& p) { return p.first == name; });
      if (it == r.reasons.end())
        r.reasons.emplace_back(name, n);
      else
        it->second += n;
    }
  }
  for (std::size_t k = 0; k < maps.size(); ++k) {
    double total = 0;
    for (const LineRow& r : maps[k].rows) total += std::isnan(r.samples) ? 0 : r.samples;
    report.kernels[k].samples = total;
    for (LineRow& r : maps[k].rows) {
      if (columns_.stalls) r.share = total > 0 ? r.samples / total : 0;
      std::sort(r.reasons.begin(), r.reasons.end(),
                [](const auto& a, const auto& b) { return a.second > b.second; });
      report.rows.push_back(std::move(r));
    }
  }
  // Measured on an H200 (CUPTI 13.0): a collection after another one in the same process can
  // come back empty; the sentence says how to get it anyway.
  const std::string again =
      sessions_before_ > 0 ? " (this process collected before: run the launches in a process of their own, "
                             "e.g. with run --lines)"
                           : "";
  double samples = 0;
  for (const LineKernel& k : report.kernels) samples += k.samples;
  if (columns_.counts() && counted.empty() && !launched_.empty())
    report.note = "CUPTI returned no per-line counts for these launches" + again;
  else if (columns_.stalls && samples == 0 && !launched_.empty())
    report.note = "PC sampling returned no stall samples for these launches" + again;
  else if (columns_.stalls && sampled.dropped > 0)
    report.note = std::to_string(sampled.dropped) + " of " + std::to_string(sampled.total) +
                  " stall samples were dropped by the hardware (its buffer was full)";
  else if (unknown > 0)
    report.note = std::to_string(unknown) + " instructions with records belong to no kernel warplab launched";
  return report;
}

}  // namespace warplab::lab
