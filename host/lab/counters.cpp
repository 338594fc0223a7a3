// counters.cpp: words -> a CounterSelection for a chip (set names, short names, raw CUPTI
// names checked with CUPTI's host library), "did you mean" for the rest (a word that is no
// name at all: counter_search.cpp's guesses, before CUPTI loads), the replay passes of the
// selection, and the chip of a device or a profile.
#include "lab/counters.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>

#include "cu/metric_host.hpp"
#include "cu/range_profiler.hpp"
#include "sys/shown.hpp"
#include "sys/text.hpp"

namespace warplab::lab {
namespace {

// The metric catalog of a chip: one host object per chip for the life of the process (its
// answers never change; creating one reads CUPTI's tables, ~0.1 s). Never freed, so no
// destructor runs into CUPTI while the process exits.
const cu::MetricHost& catalog(const std::string& chip) {
  static std::mutex mu;
  static std::map<std::string, const cu::MetricHost*> hosts;
  std::lock_guard<std::mutex> lock(mu);
  auto it = hosts.find(chip);
  if (it == hosts.end()) it = hosts.emplace(chip, new cu::MetricHost(chip)).first;
  return *it->second;
}

// Up to three names closest to `word` by spelling, else those that contain it, shortest
// first.
std::vector<std::string> closest(const std::string& word, const std::vector<std::string>& names) {
  std::vector<std::string> out = closest_names(word, names);
  if (!out.empty()) return out;
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& n : names)
    if (n.find(word) != std::string::npos) scored.emplace_back(n.size(), n);
  std::sort(scored.begin(), scored.end());
  for (std::size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
  return out;
}

std::string set_names() {
  std::string out;
  for (const auto& s : counter_sets()) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

const std::vector<cu::MetricType> kTypes = {cu::MetricType::counter, cu::MetricType::ratio,
                                            cu::MetricType::throughput};

// The suffixes of `base` a user most likely means, at most three: the usual rollups first.
std::vector<std::string> likely_suffixes(const cu::MetricHost& host, const std::string& base,
                                         cu::MetricType type) {
  const std::vector<std::string> subs = host.sub_metrics(base, type);
  std::vector<std::string> out;
  for (const char* s : {".sum", ".ratio", ".pct", ".avg.pct_of_peak_sustained_elapsed", ".avg", ".max"})
    if (out.size() < 3 && std::find(subs.begin(), subs.end(), s) != subs.end()) out.emplace_back(s);
  for (std::size_t i = 0; out.empty() && i < subs.size() && i < 3; ++i) out.push_back(subs[i]);
  return out;
}

// "did you mean" for a raw name the chip lacks: a known base with a wrong suffix gets the
// closest suffixes; an unknown base gets the closest bases, each with the asked suffix when
// it fits, else with the first suffix the base takes.
std::string no_such_metric(const cu::MetricHost& host, const std::string& name) {
  const std::string base = name.substr(0, name.find('.'));
  const std::string suffix = name.size() > base.size() ? name.substr(base.size()) : "";
  std::vector<std::string> bases, guesses;
  // At most three guesses, each once, whatever CUPTI's lists hold.
  auto guess = [&](std::string g) {
    if (guesses.size() < 3 && std::find(guesses.begin(), guesses.end(), g) == guesses.end())
      guesses.push_back(std::move(g));
  };
  for (cu::MetricType t : kTypes)
    for (const auto& b : host.base_metrics(t)) {
      if (b != base) {
        bases.push_back(b);
        continue;
      }
      for (const auto& s : closest(suffix, host.sub_metrics(base, t))) guess(base + s);
    }
  if (guesses.empty())
    for (const auto& b : closest(base, bases)) {
      if (!suffix.empty() && host.properties(b + suffix)) {
        guess(b + suffix);
        continue;
      }
      const auto p = host.properties(b);
      const auto subs = p ? likely_suffixes(host, b, p->type) : std::vector<std::string>{};
      guess(b + (subs.empty() ? "" : subs.front()));
    }
  std::string msg = "chip " + host.chip() + " has no counter metric '" + sys::shown(name) + "'";
  if (!guesses.empty()) return msg + ": did you mean " + quoted_names(guesses) + "?";
  return msg + " (CUPTI metric names look like 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum')";
}

// A word that is not a set, a short name or a raw name (raw names have "__"): the
// guesses, and where to see them all (`warplab counters WORD` for a word a shell passes
// as it is).
std::string unknown_word(const std::string& word) {
  const std::string guesses = counter_guesses(word);
  std::size_t matched = 0;
  for (const CounterMatch& m : search_counters(word)) matched += m.metrics.size();
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  const std::string where = plain && matched > 0 && word.front() != '-'
                                ? "warplab counters " + word + " lists the " +
                                      sys::plural(static_cast<long long>(matched), "metric") + " that match"
                                : "warplab counters lists them all";
  return "unknown counter set or metric '" + sys::shown(word) + "'" +
         (guesses.empty() ? "" : ": did you mean " + guesses + "?") + " (sets: " + set_names() +
         "; or a CUPTI metric name; " + where + ")";
}

// The first alternative of "a|b" the chip has; "" when none.
std::string available(const cu::MetricHost& host, std::string_view alternatives) {
  std::size_t start = 0;
  while (start <= alternatives.size()) {
    const std::size_t bar = alternatives.find('|', start);
    std::string one(alternatives.substr(start, bar == std::string_view::npos ? bar : bar - start));
    if (!one.empty() && host.properties(one)) return one;
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return "";
}

const CounterDef* find_short_name(std::string_view name, const CounterSet** set) {
  for (const auto& s : counter_sets())
    for (const auto& m : s.metrics)
      if (m.name == name) {
        *set = &s;
        return &m;
      }
  return nullptr;
}

}  // namespace

void check_counter_spelling(const std::vector<std::string>& words) {
  if (words.empty())
    throw Error(ErrorKind::bad_input,
                "no counters asked for: name a set (" + set_names() + ") or a CUPTI metric");
  for (const std::string& word : words) {
    const CounterSet* set = nullptr;
    if (!find_counter_set(word) && !find_short_name(word, &set) && word.find("__") == std::string::npos)
      throw Error(ErrorKind::bad_input, unknown_word(word));
  }
}

CounterSelection resolve_counters(const std::vector<std::string>& words, const std::string& chip) {
  check_counter_spelling(words);  // a word that is no set, short name or CUPTI name: before CUPTI loads
  const cu::MetricHost& host = catalog(chip);
  CounterSelection sel;
  sel.chip = chip;
  auto seen = [&](const std::string& name) {
    return std::any_of(sel.counters.begin(), sel.counters.end(),
                       [&](const Counter& c) { return c.name == name; });
  };
  // A set's metric: left out (and listed) when the chip lacks it, unless asked for by name.
  auto add_def = [&](const CounterDef& d, const CounterSet& s, bool by_name) {
    const std::string name(d.name);
    if (seen(name)) return;
    const std::string raw = available(host, d.raw);
    const std::string per = d.per.empty() ? "" : available(host, d.per);
    const std::string of = d.of.empty() ? "" : available(host, d.of);
    const bool lacks_per = !d.per.empty() && per.empty(), lacks_of = !d.of.empty() && of.empty();
    if (raw.empty() || lacks_per || lacks_of) {
      if (by_name)
        throw Error(ErrorKind::bad_input, "chip " + chip + " has no counter for '" + name +
                                              "' (CUPTI metric " +
                                              std::string(raw.empty() ? d.raw
                                                          : lacks_per ? d.per
                                                                      : d.of) +
                                              ")");
      if (std::find(sel.unavailable.begin(), sel.unavailable.end(), name) == sel.unavailable.end())
        sel.unavailable.push_back(name);
      return;
    }
    sel.counters.push_back(
        {name, std::string(s.name), std::string(d.unit), std::string(d.meaning), raw, per, of});
  };
  for (const std::string& word : words) {
    const CounterSet* set = find_counter_set(word);
    if (set) {
      for (const auto& d : set->metrics) add_def(d, *set, false);
    } else if (const CounterDef* d = find_short_name(word, &set)) {
      add_def(*d, *set, true);
    } else if (word.find("__") != std::string::npos) {
      const auto p = host.properties(word);
      if (!p) throw Error(ErrorKind::bad_input, no_such_metric(host, word));
      // CUPTI knows a bare base name but cannot collect it: a rollup must say how to sum.
      if (word.find('.') == std::string::npos) {
        std::vector<std::string> guesses;
        for (const auto& s : likely_suffixes(host, word, p->type)) guesses.push_back(word + s);
        throw Error(ErrorKind::bad_input, "counter metric '" + word +
                                              "' needs a rollup such as .sum or .avg: did you mean " +
                                              quoted_names(guesses) + "?");
      }
      if (!seen(word)) sel.counters.push_back({word, "", p->dim_unit, p->description, word, "", ""});
    } else {
      throw Error(ErrorKind::bad_input, unknown_word(word));
    }
  }
  if (sel.counters.empty())
    throw Error(ErrorKind::bad_input, "chip " + chip + " has none of the counters asked for (it lacks " +
                                          quoted_names(sel.unavailable, " and ") + ")");
  for (const Counter& c : sel.counters)
    for (const std::string* m : {&c.raw, &c.per, &c.of})
      if (!m->empty() && std::find(sel.collect.begin(), sel.collect.end(), *m) == sel.collect.end())
        sel.collect.push_back(*m);
  return sel;
}

CounterSelection select_counters(const std::vector<std::string>& words, const std::string& chip) {
  CounterSelection sel = resolve_counters(words, chip);
  // A fresh host object: CUPTI adds every configured metric to the one it is given.
  cu::MetricHost config(chip);
  std::vector<std::uint8_t> image = config.config_image(sel.collect);
  sel.passes = cu::MetricHost::passes(image);
  return sel;
}

void check_counter_words(const std::vector<std::string>& words, const cu::DeviceSnapshot& device) {
  // The chip of the device's compute capability answers for its names with CUPTI's host
  // library alone; a capability warplab knows no chip for is checked once CUPTI started.
  const std::string chip = chip_for_compute_capability(device.cc_major, device.cc_minor);
  if (!chip.empty()) (void)resolve_counters(words, chip);
}

std::string chip_for_compute_capability(int major, int minor) {
  // The first chip CUPTI lists for each compute capability; chips of one capability share
  // their metrics (GA102..GA107 all answer to sm_86).
  static const std::map<int, const char*> chips = {
      {70, "GV100"}, {72, "GV11B"}, {75, "TU102"}, {80, "GA100"},  {86, "GA102"},
      {87, "GA10B"}, {89, "AD102"}, {90, "GH100"}, {100, "GB100"}, {120, "GB202"},
  };
  const auto it = chips.find(major * 10 + minor);
  return it == chips.end() ? "" : it->second;
}

std::string counter_chip(const cu::DeviceSnapshot& device) {
  if (device.live()) return cu::chip_name(device.ordinal);
  std::string chip = chip_for_compute_capability(device.cc_major, device.cc_minor);
  if (chip.empty())
    throw Error(ErrorKind::bad_input, "warplab knows no CUPTI chip for " + device.arch() + " (" +
                                          device.source +
                                          "), so its counter names cannot be checked offline");
  return chip;
}

std::string counters_need_gpu() {
  return "hardware counters need a GPU, and this run has none: offline, warplab checks the counter names and "
         "counts the replay passes, but nothing is counted";
}

}  // namespace warplab::lab
