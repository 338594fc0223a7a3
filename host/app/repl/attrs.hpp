// repl/attrs.hpp: the REPL's `:attrs [pattern]`: the keys and values of dev.attr that
// match a glob (fnmatch, case-insensitive) or, without glob characters, a substring, one a
// line with the unit from the attribute table.
#pragma once
#include <lua.hpp>

#include <string>

namespace warplab::app::repl {

struct AttrListing {
  bool ok = true;
  std::string text;  // the listing, or one sentence saying why there is none
};

// Reads the global `dev` (a warplab device) of `L`; leaves the stack as it was.
AttrListing list_attrs(lua_State* L, const std::string& pattern);

// True when `name` matches `pattern` as :attrs understands it (empty matches all).
bool attr_matches(const std::string& pattern, const std::string& name);

}  // namespace warplab::app::repl
