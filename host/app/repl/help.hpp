// repl/help.hpp: `:help NAME` in the REPL: the rows of docs/lua-api.md (the table the
// docs and their test use) whose name column mentions NAME, as "name: what (example)" in
// plain text.
#pragma once
#include <string>

namespace warplab::app::repl {

// The help text for NAME ("cuda.array", "k:launch", "a:fill", "dev.attr"), or one
// sentence saying there is none or where lua-api.md was looked for.
std::string api_help(const std::string& name);

// A cell of a Markdown table of `page` ("lua-api.md") as terminal text: code without its
// backticks; a link as its text and where it leads ("Graphs in docs/lua-api.md",
// "docs/cli.md"); "(below)" and "(above)", which point into the page, left out; HTML
// comments dropped.
std::string terminal_text(const std::string& cell, const std::string& page);

}  // namespace warplab::app::repl
