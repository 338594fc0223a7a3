// repl/save.hpp: the script `:save FILE` writes from a session's successful inputs, made
// so that `warplab run FILE` runs it and prints what the session printed: `dev` bound first
// as the REPL binds it; a statement as typed (in a do ... end block when it declares a
// local, which lasted for that input only; as a function whose results are shown when it
// ends in `return`); an expression whose values the REPL printed (`m.k`, `x + 1`, a call
// such as `k:occupancy(256)`) and the chunk of :counters and :lines shown with
// warplab.show, which prints as the REPL does; an input whose kernel launch faulted as a
// comment saying so.
#pragma once
#include <string>
#include <vector>

namespace warplab::app::repl {

// How an input reached the worker: typed (or through :time), or as the chunk of
// `:counters SETS CHUNK` / `:lines [SETS] CHUNK`, which printed their table or listing.
enum class Via { kPrompt, kCounters, kLines };

struct SavedInput {
  std::string text;      // the chunk as typed
  bool printed = false;  // the REPL printed its values (a call's too: `k:occupancy(256)`)
  bool faulted = false;  // it made the kernel launch a fault named
  Via via = Via::kPrompt;
  std::string sets{};  // for :counters and :lines: the sets it counted ("": cuda.lines' default)
};

// Whether `chunk` is a bare expression: it compiles as `return <chunk>;` (as the REPL
// evaluates it) and not as statements. A function call is both: a statement.
bool is_bare_expression(const std::string& chunk);

// The script: a header comment, `dev`, then each input in order.
std::string session_script(const std::vector<SavedInput>& inputs);

// The file `:save FILE` writes: FILE with a leading ~ or ~/ meaning $HOME, and ~NAME/ the
// home of user NAME, as a shell would expand it (the REPL has no shell between); else FILE.
std::string save_path(const std::string& file);

}  // namespace warplab::app::repl
