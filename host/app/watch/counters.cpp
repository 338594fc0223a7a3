// watch/counters.cpp: CounterDiff (counters.hpp). A value changed when it moved by more than
// 1 % of the larger of old and new: exact counts show every real change (31 -> 0), rates
// and times do not flicker with the noise of one run to the next.
#include "app/watch/counters.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "app/watch/child.hpp"
#include "lab/counter_report.hpp"

namespace warplab::app::watch {
namespace {

std::string value_text(bool known, double v) { return known ? lab::counter_value_text(v) : "-"; }

bool changed(bool a_known, double a, bool b_known, double b) {
  if (a_known != b_known) return true;
  if (!a_known) return false;
  return std::fabs(a - b) > 0.01 * std::max(std::fabs(a), std::fabs(b));
}

}  // namespace

std::string CounterDiff::collect() {
  const FeedFile r = read_feed_file(path_);
  ::unlink(path_.c_str());  // a run that fails before writing leaves nothing to compare
  if (!r.problem.empty()) return "warplab: --counters: " + r.problem + "\n";
  if (r.text.empty()) return "";
  return compare(r.text);
}

void CounterDiff::skip() { ::unlink(path_.c_str()); }

std::string CounterDiff::compare(const std::string& json) {
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.contains("rows") || !j.contains("counters"))
    return "counters: unreadable (" + path_ + ")\n";
  // A run that launched nothing has nothing to list (an empty "counters:" said nothing);
  // the next run that does is compared with the last one that did.
  if (j["rows"].empty()) return "counters: no kernel was launched\n";
  Values now;
  std::vector<std::string> kernels;
  std::map<std::string, std::string> units;
  int column = 0;
  for (const auto& c : j["counters"]) {
    const std::string name = c.value("name", "");
    units[name] = c.value("unit", "");
    order_.emplace(name, column++);
  }
  for (const auto& row : j["rows"]) {
    const std::string kernel = row.value("kernel", "");
    kernels.push_back(kernel);
    for (const auto& [name, v] : row["values"].items())
      now[{kernel, name}] = Value{v.is_number() ? v.get<double>() : 0.0, v.is_number(), units[name]};
  }
  // The table's order: kernels as launched, counters as the sets list them.
  std::vector<std::pair<int, std::string>> cols;
  for (const auto& [name, col] : order_) cols.emplace_back(col, name);
  std::sort(cols.begin(), cols.end());
  std::vector<std::pair<std::string, std::string>> keys;
  for (const auto& k : kernels)
    for (const auto& col : cols)
      if (now.count({k, col.second})) keys.emplace_back(k, col.second);
  std::string out;
  auto line = [&](const std::string& kernel, const std::string& name, const std::string& values,
                  const std::string& unit) {
    out += "  " + (kernel.empty() ? std::string("(unnamed)") : kernel) + "  " + name + "  " + values + " " +
           unit + "\n";
  };
  if (first_) {
    out = "counters:\n";
    for (const auto& k : keys) line(k.first, k.second, value_text(now[k].known, now[k].v), now[k].unit);
  } else {
    for (const auto& k : keys) {
      const Value& n = now[k];
      const auto old = last_.find(k);
      if (old == last_.end()) {
        line(k.first, k.second, "(new) " + value_text(n.known, n.v), n.unit);
      } else if (changed(old->second.known, old->second.v, n.known, n.v)) {
        line(k.first, k.second,
             value_text(old->second.known, old->second.v) + " -> " + value_text(n.known, n.v), n.unit);
      }
    }
    std::set<std::string> gone;
    for (const auto& entry : last_)
      if (std::find(kernels.begin(), kernels.end(), entry.first.first) == kernels.end())
        gone.insert(entry.first.first);
    for (const auto& k : gone)
      out += "  " + (k.empty() ? std::string("(unnamed)") : k) + ": no longer launched\n";
    out = out.empty() ? "counters: no change\n" : "counters changed:\n" + out;
  }
  first_ = false;
  last_ = std::move(now);
  return out;
}

}  // namespace warplab::app::watch
