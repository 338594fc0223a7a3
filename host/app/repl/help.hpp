// repl/help.hpp: `:help NAME` in the REPL: the rows of docs/lua-api.md (the table the
// docs and their test use) whose name column mentions NAME, as "name: what (example)".
#pragma once
#include <string>

namespace warplab::app::repl {

// The help text for NAME ("cuda.array", "k:launch", "a:fill", "dev.attr"), or one
// sentence saying there is none or where lua-api.md was looked for.
std::string api_help(const std::string& name);

}  // namespace warplab::app::repl
