// repl/save.hpp: the script `:save FILE` writes from a session's successful inputs, made
// so that `warplab run FILE` runs it: a statement as typed; a bare expression (`m.k`, `a`:
// the REPL printed its value) as print(...); an input whose kernel launch faulted as a
// comment saying so.
#pragma once
#include <string>
#include <vector>

namespace warplab::app::repl {

struct SavedInput {
  std::string text;
  bool faulted = false;  // it made the kernel launch a fault named
};

// Whether `chunk` is a bare expression: it compiles as `return <chunk>;` (as the REPL
// evaluates it) and not as statements. A function call is both: a statement.
bool is_bare_expression(const std::string& chunk);

// The script: a header comment, then each input in order.
std::string session_script(const std::vector<SavedInput>& inputs);

// The file `:save FILE` writes: FILE with a leading ~ or ~/ meaning $HOME, and ~NAME/ the
// home of user NAME, as a shell would expand it (the REPL has no shell between); else FILE.
std::string save_path(const std::string& file);

}  // namespace warplab::app::repl
