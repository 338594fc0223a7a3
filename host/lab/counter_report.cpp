// counter_report.cpp: by_kernel, the counters' table and their JSON (counter_report.hpp).
#include "lab/counter_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "sys/text.hpp"

namespace warplab::lab {
namespace {

bool is_count(const std::string& metric) {
  return metric.size() > 4 && metric.compare(metric.size() - 4, 4, ".sum") == 0;
}

bool same_dim(const cu::Dim3& a, const cu::Dim3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

std::string dim_text(const cu::Dim3& d) {
  if (d.x == 0) return "(varied)";
  if (d.y == 1 && d.z == 1) return std::to_string(d.x);
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

bool same_values(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

bool same_kernel(const CounterRow& a, const CounterRow& b) {
  return a.kernel == b.kernel && a.signature == b.signature && a.module == b.module;
}

// Launch rows i and j (j after i) are one line of the table.
bool alike(const CounterRow& a, const CounterRow& b) {
  return same_kernel(a, b) && a.site == b.site && same_dim(a.grid, b.grid) && same_dim(a.block, b.block) &&
         same_values(a.values, b.values);
}

// The CUPTI value `metric` of a row (its `collected`, in sel.collect's order); NaN when it
// was not collected.
double collected_value(const CounterSelection& sel, const CounterRow& row, const std::string& metric) {
  for (std::size_t i = 0; i < sel.collect.size() && i < row.collected.size(); ++i)
    if (sel.collect[i] == metric) return row.collected[i];
  return std::nan("");
}

// "shared, memory and 1 CUPTI metric": what was asked for, as the heading names it.
std::string what_counted(const CounterSelection& sel) {
  std::vector<std::string> sets;
  std::size_t raw = 0;
  for (const Counter& c : sel.counters) {
    if (c.set.empty()) {
      ++raw;
      continue;
    }
    bool seen = false;
    for (const auto& s : sets) seen = seen || s == c.set;
    if (!seen) sets.push_back(c.set);
  }
  if (raw > 0) sets.push_back(sys::plural(raw, "CUPTI metric"));
  std::string out;
  for (std::size_t i = 0; i < sets.size(); ++i)
    out += (i == 0 ? "" : i + 1 == sets.size() ? " and " : ", ") + sets[i];
  return out;
}

}  // namespace

std::vector<std::string> kernel_labels(const std::vector<CounterRow>& rows) {
  // For each name, the kernels (signature, module) that bear it and its signatures; for
  // each name and signature, the modules. The label adds only what tells kernels apart:
  // the signature for overloads, the module for one name in two modules.
  std::map<std::string, std::set<std::pair<std::string, std::string>>> kernels;
  std::map<std::string, std::set<std::string>> signatures;
  std::map<std::pair<std::string, std::string>, std::set<std::string>> modules;
  for (const CounterRow& row : rows) {
    kernels[row.kernel].insert({row.signature, row.module});
    signatures[row.kernel].insert(row.signature);
    modules[{row.kernel, row.signature}].insert(row.module);
  }
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (const CounterRow& row : rows) {
    const std::string overload = row.signature.empty() ? row.kernel : row.signature;
    const std::string name = signatures[row.kernel].size() == 1 ? row.kernel : overload;
    if (row.kernel.empty() || kernels[row.kernel].size() == 1)
      out.push_back(row.kernel);
    else if (modules[{row.kernel, row.signature}].size() == 1)
      out.push_back(overload);
    else
      out.push_back(name + (row.module.empty() ? "" : " in " + row.module));
  }
  return out;
}

CounterReport by_kernel(const CounterReport& r) {
  CounterReport out;
  out.selection = r.selection;
  out.note = r.note;
  const CounterSelection& sel = r.selection;
  // A group per kernel: its name, signature and module (overloads, or one name in two
  // modules, are kinds apart, never summed), in the order each was first launched.
  std::vector<std::vector<const CounterRow*>> groups;
  for (const CounterRow& row : r.rows) {
    std::size_t g = 0;
    while (g < groups.size() && !same_kernel(*groups[g].front(), row)) ++g;
    if (g == groups.size()) groups.emplace_back();
    groups[g].push_back(&row);
  }
  for (const auto& group : groups) {
    CounterRow row;
    const CounterRow& first = *group.front();
    row.kernel = first.kernel;
    row.signature = first.signature;
    row.module = first.module;
    row.site = first.site;
    row.grid = first.grid;
    row.block = first.block;
    row.launches = 0;
    row.collected.assign(sel.collect.size(), 0.0);
    for (const CounterRow* x : group) {
      if (!same_dim(x->grid, row.grid)) row.grid = {0, 0, 0};
      if (!same_dim(x->block, row.block)) row.block = {0, 0, 0};
      if (x->site != row.site) row.site.clear();
      row.launches += x->launches;
      for (std::size_t i = 0; i < row.collected.size() && i < x->collected.size(); ++i)
        row.collected[i] += is_count(sel.collect[i]) ? x->collected[i] : x->collected[i] * x->launches;
    }
    for (std::size_t i = 0; i < row.collected.size(); ++i)
      if (!is_count(sel.collect[i])) row.collected[i] /= static_cast<double>(row.launches);
    auto collected = [&](const std::string& m) { return collected_value(sel, row, m); };
    for (std::size_t c = 0; c < sel.counters.size(); ++c) {
      const Counter& k = sel.counters[c];
      if (!k.per.empty() && is_count(k.raw) && is_count(k.per)) {
        const double per = collected(k.per);
        row.values.push_back(per == 0.0 ? std::nan("") : collected(k.raw) / per);
      } else if (!k.of.empty()) {  // a share of a count: the launches weighed by it
        double sum = 0, weight = 0;
        for (const CounterRow* x : group) {
          const double w = collected_value(sel, *x, k.of);
          if (w > 0 && !std::isnan(x->values[c])) sum += x->values[c] * w, weight += w;
        }
        row.values.push_back(weight > 0 ? sum / weight : std::nan(""));
      } else if (!k.per.empty()) {  // a ratio of rates: the mean of the launches' ratios
        double sum = 0;
        for (const CounterRow* x : group) sum += x->values[c] * x->launches;
        row.values.push_back(sum / static_cast<double>(row.launches));
      } else {
        row.values.push_back(collected(k.raw));
      }
    }
    out.rows.push_back(std::move(row));
  }
  // One name a row: the kernel's own, or as much of its signature and module as tells it
  // from the others of its name.
  const std::vector<std::string> labels = kernel_labels(out.rows);
  for (std::size_t i = 0; i < out.rows.size(); ++i) out.rows[i].kernel = labels[i];
  return out;
}

std::string counter_value_text(double v) {
  if (std::isnan(v)) return "-";
  char buf[64];
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  else if (std::fabs(v) >= 1e15)  // past what a count reaches: 4 significant digits, never 300
    std::snprintf(buf, sizeof buf, "%.4g", v);
  else if (v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (std::fabs(v) < 1)
    std::snprintf(buf, sizeof buf, "%.3g", v);
  else
    std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string counters_text(const CounterReport& r, bool by_kernel_rows) {
  const CounterSelection& sel = r.selection;
  std::size_t launches = 0;
  for (const CounterRow& row : r.rows) launches += row.launches;
  std::string out = "hardware counters: " + what_counted(sel) + " on " + sel.chip + ", " +
                    sys::plural(sel.passes, "replay pass", "replay passes") + " per launch, " +
                    sys::plural(launches, "launch", "launches") +
                    (by_kernel_rows ? " of " + sys::plural(r.rows.size(), "kernel") : "") + "\n";
  if (!sel.unavailable.empty()) {
    out += "  (this chip has no counter for";
    for (std::size_t i = 0; i < sel.unavailable.size(); ++i) out += (i ? ", " : " ") + sel.unavailable[i];
    out += ")\n";
  }
  std::size_t name_w = 0, value_w = 0;
  for (const Counter& c : sel.counters) name_w = std::max(name_w, c.name.size());
  for (const CounterRow& row : r.rows)
    for (double v : row.values) value_w = std::max(value_w, counter_value_text(v).size());
  const std::vector<std::string> labels = kernel_labels(r.rows);
  for (std::size_t i = 0; i < r.rows.size();) {
    const CounterRow& row = r.rows[i];
    std::size_t j = i + 1;
    while (!by_kernel_rows && j < r.rows.size() && alike(row, r.rows[j])) ++j;
    std::string head;
    if (by_kernel_rows)
      head = (labels[i].empty() ? "(unnamed launches)" : labels[i]) + "  " +
             sys::plural(row.launches, "launch", "launches");
    else
      head = "#" + std::to_string(i + 1) + (j > i + 1 ? "-#" + std::to_string(j) : "") + " " +
             (labels[i].empty() ? "(unnamed)" : labels[i]);
    head += "  grid " + dim_text(row.grid) + "  block " + dim_text(row.block);
    if (!row.site.empty()) head += "  " + row.site;
    if (j > i + 1) head += "  (" + std::to_string(j - i) + " launches, the same counts)";
    out += head + "\n";
    for (std::size_t c = 0; c < sel.counters.size() && c < row.values.size(); ++c) {
      const std::string v = counter_value_text(row.values[c]);
      out += "    " + sel.counters[c].name + std::string(name_w - sel.counters[c].name.size() + 2, ' ') +
             std::string(value_w - v.size(), ' ') + v + "  " + sel.counters[c].unit + "\n";
    }
    i = j;
  }
  if (r.rows.empty()) out += "  (no kernel was launched)\n";
  if (!r.note.empty()) out += "note: " + r.note + "\n";
  return out;
}

nlohmann::json counters_json(const CounterReport& r, bool by_kernel_rows) {
  const CounterSelection& sel = r.selection;
  nlohmann::json j;
  j["chip"] = sel.chip;
  j["passes"] = sel.passes;
  j["by"] = by_kernel_rows ? "kernel" : "launch";
  j["counters"] = nlohmann::json::array();
  for (const Counter& c : sel.counters)
    j["counters"].push_back({{"name", c.name},
                             {"set", c.set},
                             {"unit", c.unit},
                             {"meaning", c.meaning},
                             {"raw", c.raw},
                             {"per", c.per.empty() ? nlohmann::json() : nlohmann::json(c.per)},
                             {"of", c.of.empty() ? nlohmann::json() : nlohmann::json(c.of)}});
  j["rows"] = nlohmann::json::array();
  const std::vector<std::string> labels = kernel_labels(r.rows);
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const CounterRow& row = r.rows[i];
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t c = 0; c < sel.counters.size() && c < row.values.size(); ++c)
      values[sel.counters[c].name] =
          std::isfinite(row.values[c]) ? nlohmann::json(row.values[c]) : nlohmann::json();
    auto dim = [](const cu::Dim3& d) { return nlohmann::json::array({d.x, d.y, d.z}); };
    j["rows"].push_back({{"kernel", labels[i]},
                         {"signature", row.signature},
                         {"module", row.module},
                         {"site", row.site},
                         {"grid", dim(row.grid)},
                         {"block", dim(row.block)},
                         {"launches", row.launches},
                         {"values", std::move(values)}});
  }
  j["unavailable"] = sel.unavailable;
  j["note"] = r.note.empty() ? nlohmann::json() : nlohmann::json(r.note);
  return j;
}

}  // namespace warplab::lab
