// attrs/select.cpp: which attributes `warplab attrs PATTERN ...` shows (render.hpp). Globs
// match names (fnmatch); other patterns are case-insensitive substrings of the name, unit
// and meaning, so `attrs warp`, `attrs bytes` and `attrs '*shared*'` do the obvious thing.
#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "app/attrs/render.hpp"
#include "app/cli/exit_codes.hpp"
#include "cu/attributes.hpp"
#include "sys/shown.hpp"
#include "sys/text.hpp"

namespace warplab::app {
namespace {

// `needle` is already lower case; the haystack is folded here.
bool contains(std::string_view hay, const std::string& needle) {
  return sys::lower(hay).find(needle) != std::string::npos;
}

// Position in attribute_groups(); unknown groups sort after all known ones.
size_t group_rank(std::string_view group) {
  const auto groups = cu::attribute_groups();
  return static_cast<size_t>(std::find(groups.begin(), groups.end(), group) - groups.begin());
}

// Within a group the table's (enum) order keeps x/y/z together; only the compute
// capability, added to the enum late, is moved to the top of its group.
int headline_rank(std::string_view name) {
  if (name == "compute_capability_major") return 0;
  if (name == "compute_capability_minor") return 1;
  return 2;
}

}  // namespace

bool attribute_matches(const std::string& pattern, const std::string& name) {
  const std::string p = sys::lower(pattern);
  const cu::AttributeInfo* info = cu::find_attribute(name);
  // Globs match whole names (fnmatch), both sides folded to lower case: '*shared*' is
  // the user asking for a name shape, so units and meanings are not searched.
  if (p.find_first_of("*?[") != std::string::npos) {
    if (fnmatch(p.c_str(), sys::lower(name).c_str(), 0) == 0) return true;
    if (info)
      for (std::string_view alias : info->aliases)
        if (fnmatch(p.c_str(), std::string(alias).c_str(), 0) == 0) return true;
    return false;
  }
  if (contains(name, p)) return true;
  if (!info) return false;
  if (contains(info->unit, p) || contains(info->meaning, p)) return true;
  return std::any_of(info->aliases.begin(), info->aliases.end(),
                     [&](std::string_view alias) { return contains(alias, p); });
}

std::vector<std::string> select_attributes(const std::vector<cu::DeviceSnapshot>& snaps,
                                           const std::vector<std::string>& patterns) {
  // The universe: every table attribute in display order, then names only a snapshot has.
  std::vector<const cu::AttributeInfo*> known;
  for (const cu::AttributeInfo& a : cu::attribute_table()) known.push_back(&a);
  std::stable_sort(known.begin(), known.end(), [](const auto* x, const auto* y) {
    const size_t gx = group_rank(x->group), gy = group_rank(y->group);
    return gx != gy ? gx < gy : headline_rank(x->name) < headline_rank(y->name);
  });
  std::vector<std::string> all;
  for (const cu::AttributeInfo* a : known) all.emplace_back(a->name);
  std::set<std::string> unknown;
  for (const cu::DeviceSnapshot& s : snaps)
    for (const auto& [name, value] : s.attributes)
      if (!cu::find_attribute(name)) unknown.insert(name);
  all.insert(all.end(), unknown.begin(), unknown.end());
  if (patterns.empty()) return all;

  // Each pattern must match something on its own (a typo is an error, not silence);
  // the union is returned in display order, not in pattern order.
  std::vector<std::string> out;
  std::vector<bool> taken(all.size(), false);
  for (const std::string& p : patterns) {
    bool any = false;
    for (size_t i = 0; i < all.size(); ++i) {
      if (!attribute_matches(p, all[i])) continue;
      any = true;
      taken[i] = true;
    }
    if (any) continue;
    // A misspelled name gets the nearest one; anything else, how patterns match.
    if (const std::string near = cu::suggest_attribute(p); !near.empty())
      throw Error(ErrorKind::bad_input,
                  "no attribute matches '" + sys::shown(p) + "': did you mean '" + near + "'?");
    throw Error(ErrorKind::bad_input, "no attribute matches '" + sys::shown(p) +
                                          "' (a glob like '*shared*' matches names; other patterns "
                                          "match names, units and meanings as substrings)");
  }
  for (size_t i = 0; i < all.size(); ++i)
    if (taken[i]) out.push_back(all[i]);
  return out;
}

}  // namespace warplab::app
