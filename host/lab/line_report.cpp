// line_report.cpp: what the front ends show of a LineReport (lines.hpp): the annotated
// listing, the hottest lines, the JSON, and the report of maps alone.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "lab/lines.hpp"
#include "sys/text.hpp"

namespace warplab::lab {
namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// A count as the listing shows it: "-" when not counted, whole numbers as integers.
std::string count(double v) { return std::isnan(v) ? "-" : fmt("%.0f", v); }

std::string pad(const std::string& s, std::size_t w, bool right = true) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

// What the rows of a kernel are ranked by: warp instructions, else stall samples.
double heat(const LineRow& r) {
  if (!std::isnan(r.inst)) return r.inst;
  if (!std::isnan(r.samples)) return r.samples;
  return static_cast<double>(r.instructions);
}

std::string line_text(const KernelLines& k, std::size_t f, unsigned line) {
  const std::string& text = k.texts[f];
  std::size_t at = 0;
  for (unsigned l = 1; l < line; ++l) {
    at = text.find('\n', at);
    if (at == std::string::npos) return {};
    ++at;
  }
  if (at >= text.size()) return {};
  std::string out = text.substr(at, text.find('\n', at) - at);
  while (!out.empty() && (out.back() == '\r' || out.back() == ' ')) out.pop_back();
  return out;
}

std::size_t file_index(const KernelLines& k, const std::string& file) {
  for (std::size_t i = 0; i < k.files.size(); ++i)
    if (k.files[i] == file) return i;
  return k.files.size();
}

struct Columns {
  bool counted, instructions, shared, global, local, stalls;
};

std::string header(const Columns& c) {
  std::string h = "  " + pad("line", 6);
  if (!c.counted && !c.stalls) h += pad("instr", 7);
  if (c.instructions) h += pad("warp inst", 12) + pad("thread inst", 14) + pad("pred off", 10);
  if (c.shared) h += pad("shared", 10);
  if (c.global) h += pad("global", 9);
  if (c.local) h += pad("local", 10);
  if (c.stalls) h += pad("stalls", 8) + "  " + pad("top reasons", 36, false);
  return h + "  source\n";
}

std::string cells(const Columns& c, const LineRow& r) {
  std::string s;
  if (!c.counted && !c.stalls) s += pad(std::to_string(r.instructions), 7);
  if (c.instructions) {
    const double off = r.predicated_off();
    s += pad(count(r.inst), 12) + pad(count(r.thread_inst), 14) +
         pad(std::isnan(off) ? "-" : fmt("%.1f %%", 100 * off), 10);
  }
  if (c.shared) s += pad(std::isnan(r.shared_way()) ? "-" : fmt("%.1f-way", r.shared_way()), 10);
  if (c.global)
    s += pad(r.global_ideal > 0 ? fmt("%.2fx", r.global_sectors / r.global_ideal) : std::string("-"), 9);
  if (c.local) s += pad(r.local_sectors > 0 ? count(r.local_sectors) : std::string("-"), 10);
  if (c.stalls) {
    std::string top;
    for (std::size_t i = 0; i < r.reasons.size() && i < 2; ++i)
      top += (i ? ", " : "") + r.reasons[i].first + " " +
             fmt("%.0f%%", r.samples > 0 ? 100 * r.reasons[i].second / r.samples : 0);
    s +=
        pad(r.samples > 0 ? fmt("%.1f %%", 100 * r.share) : std::string("-"), 8) + "  " + pad(top, 36, false);
  }
  return s;
}

std::string kinds_text(const LineRow& r) {
  std::string out;
  for (const std::string& k : r.kinds) out += (out.empty() ? "" : ", ") + k;
  return out.empty() ? out : "   [" + out + "]";
}

}  // namespace

std::string lines_text(const LineReport& r, bool color, bool sass) {
  const LineColumns& lc = r.columns;
  const bool counted = !r.kernels.empty() && r.kernels[0].launches > 0 && lc.counts();
  const Columns c{counted,
                  counted && lc.instructions,
                  counted && lc.shared,
                  counted && lc.global,
                  counted && lc.local,
                  !r.kernels.empty() && r.kernels[0].launches > 0 && lc.stalls};
  const char* dim = color ? "\x1b[2m" : "";
  const char* off = color ? "\x1b[0m" : "";
  std::string out;
  std::vector<std::string> said;  // the kernels' notes already in the listing
  for (const LineKernel& k : r.kernels) {
    std::vector<const LineRow*> rows;
    for (const LineRow& row : r.rows)
      if (row.kernel == k.kernel) rows.push_back(&row);
    std::size_t insts = 0;
    for (const LineRow* row : rows) insts += row->instructions;
    out += k.kernel + ": ";
    if (k.launches > 0)
      out += sys::plural(static_cast<long long>(k.launches), "launch", "launches") +
             (c.counted ? ", exact counts (CUPTI's SASS metrics)" : "") +
             (c.stalls ? std::string(c.counted ? " and " : ", ") + fmt("%.0f", k.samples) +
                             " stall samples (PC sampling" + (c.counted ? ", launched again)" : ")")
                       : std::string());
    else
      out += std::to_string(insts) + (k.map.from == LineSource::sass ? " SASS" : " PTX") +
             " instructions on " + std::to_string(rows.size()) + " lines";
    out += "\n";
    // A note all kernels share (no disassembler) is said under the first one only.
    if (!k.map.note.empty() && std::find(said.begin(), said.end(), k.map.note) == said.end()) {
      out += "  (" + k.map.note + ")\n";
      said.push_back(k.map.note);
    }
    // The hottest lines of this kernel: up to three with a share of the heat.
    std::vector<const LineRow*> ranked = rows;
    std::stable_sort(ranked.begin(), ranked.end(), [](auto* a, auto* b) { return heat(*a) > heat(*b); });
    std::vector<const LineRow*> hot(ranked.begin(), ranked.begin() + std::min<std::size_t>(3, ranked.size()));
    out += header(c);
    std::string file;
    unsigned last = 0;
    for (const LineRow* row : rows) {
      if (row->file != file) {
        file = row->file;
        out += "  " + (file.empty() ? std::string("(no line information)") : file) + "\n";
        last = 0;
      }
      // Lines between two with instructions: dimmed, a long run left out.
      const std::size_t f = file_index(k.map, file);
      if (last > 0 && row->line > last + 1 && f < k.map.files.size()) {
        const unsigned gap = row->line - last - 1;
        const int base = k.map.line_offsets[f];
        if (gap > 4) {
          out += std::string(dim) + "     ...\n" + off;
        } else {
          for (unsigned l = last + 1; l < row->line; ++l)
            out += std::string(dim) + "  " + pad(std::to_string(l), 6) +
                   std::string(header(c).size() - 15, ' ') +
                   line_text(k.map, f, static_cast<unsigned>(static_cast<int>(l) - base)) + off + "\n";
        }
      }
      last = row->line;
      const bool is_hot = heat(*row) > 0 && std::find(hot.begin(), hot.end(), row) != hot.end();
      out += (is_hot ? "> " : "  ") + pad(row->line ? std::to_string(row->line) : "-", 6) + cells(c, *row) +
             "  " + row->text + kinds_text(*row) + "\n";
      if (sass)
        for (const LineInst& i : k.map.insts) {
          if (i.offset == 0xffffffffu) continue;
          const bool same =
              i.line > 0 && i.file >= 0
                  ? k.map.files[static_cast<std::size_t>(i.file)] == row->file &&
                        i.line + static_cast<unsigned>(
                                     std::max(0, k.map.line_offsets[static_cast<std::size_t>(i.file)])) ==
                            row->line
                  : row->line == 0;
          if (!same) continue;
          char at[16];
          std::snprintf(at, sizeof at, "/*%04x*/", static_cast<unsigned>(i.offset));
          out += std::string(dim) + "          " + (k.map.from == LineSource::sass ? at : "") + " " +
                 (i.text.empty() ? "(no disassembler)" : i.text) + off + "\n";
        }
    }
  }
  if (!r.note.empty()) out += "(" + r.note + ")\n";
  return out;
}

std::vector<std::size_t> hot_lines(const LineReport& r, std::size_t n) {
  std::vector<std::size_t> order(r.rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&r](std::size_t a, std::size_t b) { return heat(r.rows[a]) > heat(r.rows[b]); });
  if (order.size() > n) order.resize(n);
  return order;
}

nlohmann::json lines_json(const LineReport& r) {
  using nlohmann::json;
  auto num = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
  json cols = json::array();
  if (r.columns.instructions) cols.push_back("instructions");
  if (r.columns.shared) cols.push_back("shared");
  if (r.columns.global) cols.push_back("global");
  if (r.columns.local) cols.push_back("local");
  if (r.columns.stalls) cols.push_back("stalls");
  json kernels = json::array();
  for (const LineKernel& k : r.kernels)
    kernels.push_back({{"kernel", k.kernel},
                       {"symbol", k.map.kernel},
                       {"launches", k.launches},
                       {"samples", k.samples},
                       {"from", k.map.from == LineSource::sass ? "sass" : "ptx"},
                       {"note", k.map.note}});
  json rows = json::array();
  for (const LineRow& row : r.rows) {
    json reasons = json::object();
    for (const auto& [name, n] : row.reasons) reasons[name] = n;
    rows.push_back({{"kernel", row.kernel},
                    {"file", row.file},
                    {"line", row.line},
                    {"text", row.text},
                    {"instructions", row.instructions},
                    {"kinds", row.kinds},
                    {"offsets", row.offsets},
                    {"inst", num(row.inst)},
                    {"thread_inst", num(row.thread_inst)},
                    {"thread_inst_pred_on", num(row.thread_inst_pred_on)},
                    {"predicated_off", num(row.predicated_off())},
                    {"shared_wavefronts", num(row.shared_wavefronts)},
                    {"shared_ideal", num(row.shared_ideal)},
                    {"shared_way", num(row.shared_way())},
                    {"global_sectors", num(row.global_sectors)},
                    {"global_ideal", num(row.global_ideal)},
                    {"global_excess", num(row.global_excess())},
                    {"local_sectors", num(row.local_sectors)},
                    {"divergent_branches", num(row.divergent_branches)},
                    {"samples", num(row.samples)},
                    {"share", num(row.share)},
                    {"reasons", reasons}});
  }
  return {{"columns", cols}, {"kernels", kernels}, {"rows", rows}, {"note", r.note}};
}

LineReport map_report(const std::vector<KernelLines>& maps) {
  LineReport r;
  r.columns = LineColumns{};
  for (const KernelLines& k : maps) {
    for (LineRow& row : line_rows(k)) r.rows.push_back(std::move(row));
    r.kernels.push_back({k.display, 0, 0, k});
  }
  return r;
}

void merge_stalls(LineReport& counts, LineReport stalls) {
  counts.columns.stalls = true;
  for (LineRow& s : stalls.rows) {
    auto same = std::find_if(counts.rows.begin(), counts.rows.end(), [&s](const LineRow& c) {
      return c.kernel == s.kernel && c.file == s.file && c.line == s.line;
    });
    if (same == counts.rows.end()) {
      counts.rows.push_back(std::move(s));
      continue;
    }
    same->samples = s.samples;
    same->share = s.share;
    same->reasons = std::move(s.reasons);
  }
  for (LineKernel& s : stalls.kernels) {
    auto same = std::find_if(counts.kernels.begin(), counts.kernels.end(),
                             [&s](const LineKernel& c) { return c.kernel == s.kernel; });
    if (same == counts.kernels.end())
      counts.kernels.push_back(std::move(s));
    else
      same->samples = s.samples;
  }
  if (!stalls.note.empty()) counts.note += (counts.note.empty() ? "" : "; ") + stalls.note;
}

}  // namespace warplab::lab
