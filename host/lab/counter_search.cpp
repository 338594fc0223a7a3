// counter_search.cpp: finding counters by a word in warplab's own tables (counters.hpp):
// the search behind `warplab counters WORD`, and the "did you mean" of a word that names no
// set or metric, across set names, short names, CUPTI names and meanings. No CUPTI: the
// tables answer, so a misspelling is said before any library loads.
#include <algorithm>

#include "lab/counters.hpp"
#include "sys/text.hpp"

namespace warplab::lab {
namespace {

// Lower case, '_' and '-' read as spaces: "bank_conflicts" finds "shared-memory bank
// conflicts", "Shared memory" finds "shared_ld_requests".
std::string folded(std::string_view s) {
  std::string out = sys::lower(s);
  for (char& c : out)
    if (c == '_' || c == '-') c = ' ';
  return out;
}

bool has(std::string_view text, const std::string& folded_word) {
  return folded(text).find(folded_word) != std::string::npos;
}

// Where a metric has the word: 0 its short name, 1 a CUPTI name, 2 its meaning; -1 nowhere.
int found_in(const CounterDef& d, const std::string& w) {
  if (has(d.name, w)) return 0;
  for (std::string_view cupti : {d.raw, d.per, d.of})
    if (!cupti.empty() && has(cupti, w)) return 1;
  return has(d.meaning, w) ? 2 : -1;
}

}  // namespace

std::vector<CounterMatch> search_counters(std::string_view word) {
  const std::string w = folded(sys::trim(word));
  std::vector<CounterMatch> out;
  for (const CounterSet& s : counter_sets()) {
    CounterMatch m{&s, w.empty() || has(s.name, w), {}};
    for (const CounterDef& d : s.metrics)
      if (m.whole || found_in(d, w) >= 0) m.metrics.push_back(&d);
    if (m.metrics.empty() && has(s.meaning, w)) {  // the set's meaning alone: all of it
      m.whole = true;
      for (const CounterDef& d : s.metrics) m.metrics.push_back(&d);
    }
    if (!m.metrics.empty()) out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::string> closest_names(const std::string& word, const std::vector<std::string>& names) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  for (const auto& n : names)
    if (const std::size_t d = sys::edit_distance(word, n); d <= limit) scored.emplace_back(d, n);
  std::sort(scored.begin(), scored.end());  // closest first; alphabetical among equals
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
  return out;
}

std::string quoted_names(const std::vector<std::string>& names, const char* last) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? last : ", ") + ("'" + names[i] + "'");
  return out;
}

std::string counter_guesses(const std::string& word) {
  // By what the tables say: each metric once (stall_barrier is in two sets: the first),
  // with where it has the word and its set.
  const std::string w = folded(sys::trim(word));
  struct Found {
    const CounterDef* def;
    const CounterSet* set;
    int where;
  };
  std::vector<Found> found;
  std::vector<std::string> sets_named;  // part of a set's name: the set ("mem": 'memory')
  std::vector<const CounterSet*> sets_by_meaning;
  for (const CounterSet& s : counter_sets()) {
    if (w.empty()) break;
    if (has(s.name, w)) sets_named.emplace_back(s.name);
    if (has(s.meaning, w)) sets_by_meaning.push_back(&s);
    for (const CounterDef& d : s.metrics) {
      const int where = found_in(d, w);
      const bool seen =
          std::any_of(found.begin(), found.end(), [&](const Found& f) { return f.def->name == d.name; });
      if (where >= 0 && !seen) found.push_back({&d, &s, where});
    }
  }
  if (sets_named.size() > 3) sets_named.resize(3);
  if (!sets_named.empty())
    return (sets_named.size() == 1 ? "the set " : "the sets ") + quoted_names(sets_named);
  // The best place it was found in only: names beat spelling ("global" is in four names,
  // and one letter from 'local'), which beats CUPTI names, which beat meanings.
  int best = 3;
  for (const Found& f : found) best = std::min(best, f.where);
  if (best > 0) {  // by spelling: "sahred" is 'shared', "stall_barier" 'stall_barrier'
    std::vector<std::string> names;
    for (const CounterSet& s : counter_sets()) {
      names.emplace_back(s.name);
      for (const CounterDef& d : s.metrics)
        if (std::find(names.begin(), names.end(), d.name) == names.end()) names.emplace_back(d.name);
    }
    if (auto near = closest_names(word, names); !near.empty()) return quoted_names(near);
  }
  std::vector<Found> guesses;
  for (const Found& f : found) {
    if (f.where != best) continue;
    // shared_ld_conflicts_per_request only extends shared_ld_conflicts: the shorter says it.
    const bool extends = std::any_of(found.begin(), found.end(), [&](const Found& g) {
      return g.where == best && f.def->name.size() > g.def->name.size() &&
             f.def->name.substr(0, g.def->name.size() + 1) == std::string(g.def->name) + "_";
    });
    if (!extends) guesses.push_back(f);
  }
  if (!guesses.empty() && guesses.size() <= 3) {
    std::vector<std::string> names_out;
    bool one_set = true;
    for (const Found& g : guesses) {
      names_out.emplace_back(g.def->name);
      one_set = one_set && g.set == guesses.front().set;
    }
    return quoted_names(names_out) + (one_set ? " (set " + std::string(guesses.front().set->name) + ")" : "");
  }
  // Too many metrics to name: the sets they are in; or the sets whose meaning has it.
  std::vector<std::string> sets;
  for (const Found& g : guesses)
    if (std::find(sets.begin(), sets.end(), g.set->name) == sets.end()) sets.emplace_back(g.set->name);
  if (sets.empty())
    for (const CounterSet* s : sets_by_meaning) sets.emplace_back(s->name);
  if (sets.empty()) return "";
  if (sets.size() > 3) sets.resize(3);
  return (sets.size() == 1 ? "the set " : "the sets ") + quoted_names(sets);
}

}  // namespace warplab::lab
