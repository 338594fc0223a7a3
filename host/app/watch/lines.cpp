// watch/lines.cpp: LineDiff (lines.hpp). Lines are compared by kernel, file and line number
// (an edit that moves code compares what now stands at each number, as the listing shows
// it). Exact counts change when they move at all (32.0-way -> 1.0-way; warp instructions by
// more than 1 %); a stall share is sampled, so only a move of 5 points or more is shown.
#include "app/watch/lines.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "app/watch/child.hpp"
#include "lab/counter_report.hpp"
#include "sys/text.hpp"

namespace warplab::app::watch {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kHotPerKernel = 3;

double num(const nlohmann::json& row, const char* key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_number() ? it->get<double>() : kNaN;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string way(double v) { return fmt("%.1f-way", v); }
std::string ratio(double v) { return fmt("%.2fx", v); }
std::string percent(double v) { return fmt("%.0f %%", 100 * v); }

// What a line's values say, the ones counted: "32.0-way shared, 4.00x global sectors".
std::string describe(const LineDiff::Values& v) {
  std::string out;
  auto add = [&out](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  if (!std::isnan(v.inst)) add(lab::counter_value_text(v.inst) + " warp inst");
  if (!std::isnan(v.shared_way)) add(way(v.shared_way) + " shared");
  if (!std::isnan(v.global_ratio)) add(ratio(v.global_ratio) + " global sectors");
  if (!std::isnan(v.predicated_off) && v.predicated_off > 0)
    add(percent(v.predicated_off) + " predicated off");
  if (!std::isnan(v.local) && v.local > 0) add(lab::counter_value_text(v.local) + " local sectors");
  if (!std::isnan(v.share)) add("stalls " + percent(v.share));
  if (out.empty())
    add(std::to_string(v.instructions) + " instructions" + (v.kinds.empty() ? "" : " [" + v.kinds + "]"));
  return out;
}

// "old -> new" for each value that moved, or "".
std::string changes(const LineDiff::Values& a, const LineDiff::Values& b) {
  std::string out;
  auto add = [&out](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  auto moved = [](double x, double y, double by) {
    if (std::isnan(x) != std::isnan(y)) return true;
    return !std::isnan(x) && std::fabs(x - y) > by;
  };
  auto show = [](double x, std::string (*f)(double)) { return std::isnan(x) ? std::string("-") : f(x); };
  if (moved(a.shared_way, b.shared_way, 0.05))
    add(show(a.shared_way, way) + " -> " + show(b.shared_way, way) + " shared");
  if (moved(a.global_ratio, b.global_ratio, 0.005))
    add(show(a.global_ratio, ratio) + " -> " + show(b.global_ratio, ratio) + " global sectors");
  if (moved(a.predicated_off, b.predicated_off, 0.005))
    add(show(a.predicated_off, percent) + " -> " + show(b.predicated_off, percent) + " predicated off");
  if (moved(a.local, b.local, 0.5))
    add((std::isnan(a.local) ? "-" : lab::counter_value_text(a.local)) + " -> " +
        (std::isnan(b.local) ? "-" : lab::counter_value_text(b.local)) + " local sectors");
  if (moved(a.share, b.share, 0.05))
    add("stalls " + show(a.share, percent) + " -> " + show(b.share, percent));
  if (out.empty() && moved(a.inst, b.inst, 0.01 * std::max(std::fabs(a.inst), std::fabs(b.inst))))
    add((std::isnan(a.inst) ? "-" : lab::counter_value_text(a.inst)) + " -> " +
        (std::isnan(b.inst) ? "-" : lab::counter_value_text(b.inst)) + " warp inst");
  if (a.kinds != b.kinds) add("[" + a.kinds + "] -> [" + b.kinds + "]");
  if (out.empty() && a.instructions != b.instructions)
    add(std::to_string(a.instructions) + " -> " + std::to_string(b.instructions) + " instructions");
  return out;
}

std::string where(const LineDiff::Key& k) {
  const std::string& kernel = std::get<0>(k);
  return "  " + (kernel.empty() ? std::string("(unnamed)") : kernel) + "  line " +
         std::to_string(std::get<2>(k));
}

}  // namespace

std::string LineDiff::collect() {
  const FeedFile r = read_feed_file(path_);
  ::unlink(path_.c_str());  // a run that fails before writing leaves nothing to compare
  if (!r.problem.empty()) return "warplab: --lines: " + r.problem + "\n";
  if (r.text.empty()) return "";
  return compare(r.text);
}

void LineDiff::skip() { ::unlink(path_.c_str()); }

std::string LineDiff::compare(const std::string& json) {
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.contains("rows") || !j["rows"].is_array())
    return "lines: unreadable (" + path_ + ")\n";
  std::map<Key, Values> now;
  std::vector<Key> order;  // as the listing: kernel, file, line
  std::map<std::string, std::vector<std::pair<double, Key>>> heat;
  bool counted = false;
  for (const auto& row : j["rows"]) {
    if (!row.is_object()) continue;
    const Key key{row.value("kernel", ""), row.value("file", ""), row.value("line", 0u)};
    if (std::get<2>(key) == 0) continue;  // instructions without line information
    const double sectors = num(row, "global_sectors"), ideal = num(row, "global_ideal");
    Values v{num(row, "inst"),
             num(row, "shared_way"),
             ideal > 0 ? sectors / ideal : kNaN,
             num(row, "predicated_off"),
             num(row, "share"),
             num(row, "local_sectors"),
             row.value("text", ""),
             row.value("instructions", std::size_t{0}),
             {}};
    if (const auto k = row.find("kinds"); k != row.end() && k->is_array()) {
      std::vector<std::string> kinds;
      for (const auto& kind : *k)
        if (kind.is_string()) kinds.push_back(kind.get<std::string>());
      v.kinds = sys::join(kinds, ", ");
    }
    // The map alone (offline): lines with memory accesses first, then branches or
    // barriers, then the rest, each by its instructions.
    const bool memory = v.kinds.find("load") != std::string::npos ||
                        v.kinds.find("store") != std::string::npos ||
                        v.kinds.find("atomic") != std::string::npos;
    const double h = !std::isnan(v.inst)    ? v.inst
                     : !std::isnan(v.share) ? v.share
                                            : (memory            ? 2e6
                                               : v.kinds.empty() ? 0
                                                                 : 1e6) +
                                                  static_cast<double>(v.instructions);
    if (std::isnan(h) || h <= 0) continue;  // lines that did nothing say nothing
    counted = counted || !std::isnan(v.inst) || !std::isnan(v.share);
    if (!now.count(key)) order.push_back(key);
    now[key] = v;
    heat[std::get<0>(key)].emplace_back(h, key);
  }
  std::string out;
  if (first_) {
    // Each kernel's hottest lines.
    for (auto& [kernel, lines] : heat) {
      std::stable_sort(lines.begin(), lines.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      for (std::size_t i = 0; i < lines.size() && i < kHotPerKernel; ++i) {
        const Values& v = now[lines[i].second];
        out += where(lines[i].second) + ": " + describe(v) + "   " + v.text + "\n";
      }
    }
    out = out.empty() ? "lines: nothing counted\n"
          : counted   ? "hot lines:\n" + out
                      : "lines (no GPU: what they compiled to):\n" + out;
  } else {
    for (const Key& k : order) {
      const auto old = last_.find(k);
      if (old == last_.end()) continue;  // a line that did nothing before: its kernel's listing shows it
      if (const std::string c = changes(old->second, now[k]); !c.empty()) out += where(k) + ": " + c + "\n";
    }
    std::set<std::string> gone;
    for (const auto& [k, v] : last_)
      if (!heat.count(std::get<0>(k))) gone.insert(std::get<0>(k));
    for (const std::string& k : gone)
      out += "  " + (k.empty() ? std::string("(unnamed)") : k) + ": no longer launched\n";
    out = out.empty() ? "lines: no change\n" : "lines changed:\n" + out;
  }
  first_ = false;
  last_ = std::move(now);
  return out;
}

}  // namespace warplab::app::watch
