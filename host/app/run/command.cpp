// run/command.cpp: `warplab run SCRIPT.lua [-p key=value ...] [args ...]`: runs a Lua
// experiment script against the live GPU or, offline, a device profile. Exit 0, or 1 when
// the script raised an error or a warplab.check failed; --sanitize TOOL runs it again under
// compute-sanitizer (cli/sanitize.hpp: 8, 9). Depends on cli/command.hpp, cli/lua_state.hpp,
// bind/state.hpp (run_file) and lab/ (deps, script).
#include <filesystem>
#include <iostream>
#include <map>

#include "app/cli/command.hpp"
#include "app/cli/lua_state.hpp"
#include "app/cli/sanitize.hpp"
#include "bind/state.hpp"
#include "lab/deps.hpp"
#include "lab/script.hpp"

namespace warplab::app {
namespace {

struct RunArgs {
  std::string script;
  std::vector<std::string> params;  // key=value
  std::vector<std::string> args;
  std::string sanitize;  // --sanitize TOOL: run again under compute-sanitizer
};

// True unless the script loaded warplab.check and some check failed.
bool checks_ok(lua_State* L) {
  bool ok = true;
  lua_getglobal(L, "package");                                       // +1
  lua_getfield(L, -1, "loaded");                                     // +1
  if (lua_getfield(L, -1, "warplab.check") == LUA_TTABLE &&          // +1
      lua_getfield(L, -1, "all_ok") == LUA_TFUNCTION) {              // +1
    if (lua_pcall(L, 0, 1, 0) == LUA_OK) ok = lua_toboolean(L, -1);  // -1 +1
  }
  lua_settop(L, 0);
  return ok;
}

int run_script(const Globals& g, const RunArgs& a) {
  if (!a.sanitize.empty() && !sanitize::valid_tool(a.sanitize)) {
    std::string valid;
    for (const std::string& t : sanitize::tools()) valid += (valid.empty() ? "" : ", ") + t;
    throw Failure(kUsage, "--sanitize: unknown tool '" + a.sanitize + "' (valid: " + valid + ")");
  }
  if (const std::string why = lab::script_problem(a.script); !why.empty()) throw Failure(kBadInput, why);
  if (!a.sanitize.empty()) return sanitize::run(a.sanitize, g.argv);
  sanitize::die_with_the_tool();  // under compute-sanitizer: not one moment longer than it
  const auto params = parse_params(a.params);
  lab::record_dependency(a.script);  // for `warplab watch` (a no-op otherwise)
  bind::StatePtr state = open_lua_state(g);
  bind::set_params(state.get(), params);
  std::vector<std::string> args = a.args;  // before `--`, then after it
  args.insert(args.end(), g.script_args.begin(), g.script_args.end());
  const bind::RunResult r = bind::run_file(state.get(), a.script, args);
  if (!r.ok) {
    if (r.bad_input) {  // a wrong -p value: the command line's fault (docs/exit-codes.md)
      std::cerr << "warplab: " << r.error << "\n";
      return kBadInput;
    }
    std::cerr << r.error << "\n";
    if (r.timed_out) {
      // The kernel still runs and the context cannot be torn down under it: leave the
      // state unclosed and let the process exit end the GPU work (the driver does).
      (void)state.release();
      return kTimeout;
    }
    return kFailed;
  }
  return checks_ok(state.get()) ? kOk : kFailed;
}

}  // namespace

void add_run_command(CLI::App& app, Globals& g, Commands& out) {
  auto a = std::make_shared<RunArgs>();
  auto* sub = app.add_subcommand("run", "run a Lua experiment script");
  sub->add_option("script", a->script, "the .lua script")->required()->type_name("SCRIPT.lua");
  add_script_options(sub, a->params, g);
  sub->add_option("--sanitize", a->sanitize,
                  "run under compute-sanitizer: memcheck, racecheck, synccheck or initcheck")
      ->type_name("TOOL");
  sub->add_option("args", a->args, "arguments passed to the script as ...; after --, options too (--flag)")
      ->type_name("ARGS");
  set_help(sub,
           {"warplab run examples/tour.lua", "warplab run examples/reductions/ladder.lua -p block=512 -q",
            "warplab run my.lua input.bin -- --verbose   # --verbose goes to the script"},
           "Exit status: 0 ok; 1 script error or failed check; 4 bad input (a -p value "
           "the script's params{} refuses); 7 --timeout fired; "
           "8 --sanitize without compute-sanitizer; 9 --sanitize found errors "
           "(all codes: docs/exit-codes.md).\n");
  out.push_back({sub, [&g, a] { return run_script(g, *a); }});
}

}  // namespace warplab::app
