// repl/complete.hpp: tab completion for the REPL. The prompt finds the dotted path at the
// end of the line; the worker, which holds the Lua state, lists candidates: globals and
// keywords, table fields (dev.attr.max_<Tab>), methods after ':' (the metatable's __index
// tables) and the names a metatable's `__fields` gives, for objects whose __index is a
// function.
#pragma once
#include <lua.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace warplab::app::repl {

struct CompletionWord {
  std::vector<std::string> path;  // "dev.attr.max_" -> {"dev", "attr"}
  char sep = 0;                   // '.' or ':' before `partial`; 0 for a global
  std::string partial;            // "max_"
  bool valid = true;              // false when the text cannot be completed ("1.5", "a:b.")
};

// The dotted/colon path that ends at the end of `line` (the text before the cursor).
CompletionWord completion_word(std::string_view line);

// Sorted, distinct names that start with the word's `partial`. Resolving the path may
// run __index metamethods; errors give no candidates. Leaves the stack as it was.
std::vector<std::string> complete(lua_State* L, std::string_view line);

// The longest common prefix of `words` (empty list: "").
std::string common_prefix(const std::vector<std::string>& words);

}  // namespace warplab::app::repl
