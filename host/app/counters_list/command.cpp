// counters_list/command.cpp: `warplab counters [WORD...]`: the named counter sets, each
// metric with its short name, unit, meaning and CUPTI name, from warplab's own tables
// (lab/counters.hpp), so it loads neither CUPTI nor the driver; with WORDs, the sets and
// metrics that have one of them (lab::search_counters), "did you mean" when a word finds
// nothing; with --profile or --device, checked against that GPU's chip with CUPTI's host
// library (each set's replay passes, the metrics it lacks). `run --counters list` prints
// the same listing (cli/counters.cpp). The --counters option itself is cli/counters.cpp's.
#include <algorithm>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "app/cli/command.hpp"
#include "cu/cupti.hpp"
#include "lab/counters.hpp"
#include "sys/shown.hpp"
#include "sys/text.hpp"

namespace warplab::app {
namespace {

// What a chip says of the sets: filled only when a GPU or a profile was named.
struct ChipCheck {
  std::string chip;                           // "GH100"; "" when not checked against one
  std::string target;                         // "profile h100", "device 0"
  std::string note;                           // why the chip could not answer, or ""
  bool checked = false;                       // CUPTI answered for the chip
  std::map<std::string, std::size_t> passes;  // set -> replay passes per launch
  std::map<std::string, std::string> raw;     // short name -> the CUPTI metric this chip has
  std::set<std::string> lacking;              // short names the chip has no counter for
};

ChipCheck check_chip(const Globals& g) {
  ChipCheck c;
  if (g.opts.profile.empty() && !g.device_given) return c;  // the tables alone: nothing loaded
  const cu::DeviceSnapshot target = select_target(g, false);
  c.target = target.source;
  c.chip = lab::chip_for_compute_capability(target.cc_major, target.cc_minor);
  if (c.chip.empty()) {
    c.note = "warplab knows no CUPTI chip for " + target.arch() + " (" + target.source +
             "): the sets are not checked against it";
    return c;
  }
  if (const auto why = cu::cupti_unavailable()) {
    c.note = *why + ": the sets are not checked against " + c.chip;
    return c;
  }
  for (const lab::CounterSet& s : lab::counter_sets()) {
    try {
      const lab::CounterSelection sel = lab::select_counters({std::string(s.name)}, c.chip);
      c.passes[std::string(s.name)] = sel.passes;
      for (const lab::Counter& k : sel.counters) c.raw[k.name] = k.raw;
      c.lacking.insert(sel.unavailable.begin(), sel.unavailable.end());
    } catch (const cu::Error& e) {  // CUPTI refused the chip: nothing more to ask it
      ChipCheck none;
      none.chip = c.chip;
      none.target = c.target;
      none.note = std::string(e.what()) + ": the sets are not checked against " + c.chip;
      return none;
    } catch (const Error& e) {  // the chip has none of the set's counters
      if (e.kind() != ErrorKind::bad_input) throw;
      for (const lab::CounterDef& d : s.metrics) c.lacking.insert(std::string(d.name));
    }
  }
  c.checked = true;
  return c;
}

// The union of what each word finds, in the sets' order; each word must find something.
std::vector<lab::CounterMatch> find_words(const std::vector<std::string>& words) {
  if (words.empty()) return lab::search_counters("");
  std::vector<lab::CounterMatch> out;
  for (const std::string& word : words) {
    const std::vector<lab::CounterMatch> found = lab::search_counters(word);
    if (found.empty()) {
      const std::string guesses = lab::counter_guesses(word);
      throw Error(ErrorKind::bad_input,
                  "no counter set or metric matches '" + sys::shown(word) + "'" +
                      (guesses.empty() ? " (a word is looked for in set names, short names, CUPTI names and "
                                         "meanings; warplab counters lists them all; any other CUPTI metric "
                                         "counts by its name too: run --counters smsp__inst_executed.sum)"
                                       : ": did you mean " + guesses + "?"));
    }
    for (const lab::CounterMatch& m : found) {
      auto it =
          std::find_if(out.begin(), out.end(), [&](const lab::CounterMatch& o) { return o.set == m.set; });
      if (it == out.end()) {
        out.push_back(m);
        continue;
      }
      it->whole = it->whole || m.whole;
      std::vector<const lab::CounterDef*> merged;  // the set's order, each once
      for (const lab::CounterDef& d : m.set->metrics)
        if (std::find(it->metrics.begin(), it->metrics.end(), &d) != it->metrics.end() ||
            std::find(m.metrics.begin(), m.metrics.end(), &d) != m.metrics.end())
          merged.push_back(&d);
      it->metrics = std::move(merged);
    }
  }
  std::sort(out.begin(), out.end(), [](const lab::CounterMatch& a, const lab::CounterMatch& b) {
    return a.set < b.set;  // counter_sets() is one vector: its order
  });
  return out;
}

// "a or b": the alternatives of a set's CUPTI name ("a|b"), as a sentence says them.
std::string alternatives(std::string_view raw) {
  const std::vector<std::string> parts = sys::split(raw, '|');
  return parts.size() == 1 ? parts.front() : sys::join(parts, " or ") + " (the first the chip has)";
}

// The CUPTI line of a metric: what is collected, what it is divided by, what it is a share of.
std::string cupti_line(const lab::CounterDef& d, const ChipCheck& c) {
  const std::string name(d.name);
  if (c.lacking.count(name)) return std::string(d.raw) + " (" + c.chip + " has no counter for it: left out)";
  const auto chosen = c.raw.find(name);
  std::string out = chosen != c.raw.end() ? chosen->second : alternatives(d.raw);
  if (!d.per.empty()) out += " / " + alternatives(d.per);
  if (!d.of.empty()) out += " (- when " + std::string(d.of) + " counted 0)";
  return out;
}

std::string quoted(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "'" : ", '") + sys::shown(w) + "'";
  return out;
}

std::size_t metric_count(const std::vector<lab::CounterMatch>& found) {
  std::set<std::string_view> names;
  for (const lab::CounterMatch& m : found)
    for (const lab::CounterDef* d : m.metrics) names.insert(d->name);
  return names.size();
}

std::string listing_text(const std::vector<std::string>& words, const std::vector<lab::CounterMatch>& found,
                         const ChipCheck& c) {
  const std::size_t metrics = metric_count(found);
  std::string out;
  if (words.empty())
    out = "counter sets: " + sys::plural(static_cast<long long>(found.size()), "set") + ", " +
          sys::plural(static_cast<long long>(metrics), "metric");
  else
    out = "counters matching " + quoted(words) + ": " +
          sys::plural(static_cast<long long>(metrics), "metric") + " in " +
          sys::plural(static_cast<long long>(found.size()), "set");
  if (c.checked) out += ", checked for chip " + c.chip + " (" + c.target + ")";
  out += "\n";
  for (const lab::CounterMatch& m : found) {
    const std::string set(m.set->name);
    out += "\n" + set + ": " + std::string(m.set->meaning);
    if (const auto p = c.passes.find(set); p != c.passes.end())
      out += " [" + sys::plural(static_cast<long long>(p->second), "replay pass", "replay passes") + "]";
    out += "\n";
    for (const lab::CounterDef* d : m.metrics) {
      out += "  " + std::string(d->name) + "  " + std::string(d->unit) + "\n";
      out += "      " + std::string(d->meaning) + "\n";
      out += "      CUPTI: " + cupti_line(*d, c) + "\n";
    }
  }
  out +=
      "\ncount them: warplab run SCRIPT.lua --counters SET,NAME (any CUPTI metric name too), or\n"
      "cuda.counters(fn, {...}) and k:counters in a script; a ratio over a count of 0 shows as -\n";
  return out;
}

nlohmann::ordered_json listing_json(const std::vector<std::string>& words,
                                    const std::vector<lab::CounterMatch>& found, const ChipCheck& c) {
  using J = nlohmann::ordered_json;
  auto text_or_null = [](const std::string& s) { return s.empty() ? J() : J(s); };
  J j;
  j["words"] = words;
  j["chip"] = c.checked ? J(c.chip) : J();
  j["target"] = text_or_null(c.target);
  j["note"] = text_or_null(c.note);
  j["sets"] = J::array();
  for (const lab::CounterMatch& m : found) {
    const std::string set(m.set->name);
    const auto p = c.passes.find(set);
    J metrics = J::array();
    for (const lab::CounterDef* d : m.metrics) {
      const std::string name(d->name);
      const auto chosen = c.raw.find(name);
      metrics.push_back({{"name", name},
                         {"unit", std::string(d->unit)},
                         {"meaning", std::string(d->meaning)},
                         {"raw", chosen != c.raw.end() ? chosen->second : std::string(d->raw)},
                         {"per", d->per.empty() ? J() : J(std::string(d->per))},
                         {"of", d->of.empty() ? J() : J(std::string(d->of))},
                         {"available", c.checked ? J(c.lacking.count(name) == 0) : J()}});
    }
    j["sets"].push_back({{"name", set},
                         {"meaning", std::string(m.set->meaning)},
                         {"passes", p != c.passes.end() ? J(p->second) : J()},
                         {"metrics", std::move(metrics)}});
  }
  return j;
}

int list_counters(const Globals& g, const std::vector<std::string>& given, bool json) {
  std::vector<std::string> words;
  for (const std::string& w : given)
    if (!sys::trim(w).empty()) words.push_back(sys::trim(w));
  // A word that finds nothing is said before any GPU or CUPTI is looked for.
  const std::vector<lab::CounterMatch> found = find_words(words);
  const ChipCheck chip = check_chip(g);
  if (!chip.note.empty()) std::cerr << "warplab: " << chip.note << "\n";
  if (json)
    std::cout << listing_json(words, found, chip).dump(2) << "\n";
  else
    std::cout << listing_text(words, found, chip);
  return kOk;
}

}  // namespace

std::string counter_list_text() { return listing_text({}, lab::search_counters(""), ChipCheck{}); }

void add_counters_list_command(CLI::App& app, const Globals& g, Commands& out) {
  auto words = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand(
      "counters",
      "the hardware counter sets and their metrics (unit, meaning, CUPTI name), or those matching WORD");
  sub->add_option("words", *words,
                  "words looked for in set names, short names, CUPTI names and meanings (bank, stall, l2)")
      ->type_name("WORD");
  sub->add_flag("--json", *json,
                "print {words, chip, target, note, sets: [{name, meaning, passes, metrics: [{name, unit, "
                "meaning, raw, per, of, available}]}]}");
  set_help(sub,
           {"warplab counters", "warplab counters bank   # shared-memory bank conflicts",
            "warplab counters --profile a100   # replay passes, what the chip lacks"},
           "Without --profile or --device nothing is loaded: the sets are warplab's own tables. With one, "
           "each set is checked for that GPU's chip with CUPTI's host library (no GPU needed for a "
           "profile). Exit status: 0; 2 bad options; 3 --device without that GPU; 4 a WORD that matches "
           "nothing (with did you mean) or a bad profile.\n");
  out.push_back({sub, [&g, words, json] { return list_counters(g, *words, *json); }});
}

}  // namespace warplab::app
