// repl/pretty.hpp: how the REPL shows a Lua value: nested tables with sorted keys, cut at
// a depth and a width; strings quoted inside tables; warplab objects (userdata) and anything
// with __tostring through tostring. Runs in the worker; depends on Lua only.
#pragma once
#include <lua.hpp>

#include <cstddef>
#include <string>

namespace warplab::app::repl {

struct PrettyOptions {
  int max_depth = 3;             // deeper tables show as {...}
  int max_items = 24;            // entries shown per table, then "... (N more)"
  std::size_t line_width = 72;   // a table that fits stays on one line
  std::size_t max_string = 200;  // longer strings inside tables are cut
};

// The value at `idx`, formatted. A string at top level is shown raw (as print does).
// May run __tostring metamethods, so call it inside a protected call.
std::string pretty(lua_State* L, int idx, const PrettyOptions& opts = {});

// `s` as a Lua string literal ("a\"b\n").
std::string quote(const std::string& s);

// True for a Lua identifier that is not a reserved word.
bool is_identifier(const std::string& s);

}  // namespace warplab::app::repl
