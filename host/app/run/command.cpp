// run/command.cpp: `warplab run SCRIPT.lua [-p key=value ...] [args ...]`: runs a Lua
// experiment script against the live GPU or, offline, a device profile. Exit 0, or 1 when
// the script raised an error or a warplab.check failed, 3 when it needed a GPU the run does
// not have, 5 when it raised a failed compile's diagnostics; --sanitize TOOL runs it again under
// compute-sanitizer (cli/sanitize.hpp: 8, 9); --counters counts every launch (run/counters.hpp).
// Depends on cli/command.hpp, cli/lua_state.hpp, bind/state.hpp (run_file) and lab/ (deps, script).
#include <filesystem>
#include <iostream>
#include <map>

#include "app/cli/command.hpp"
#include "app/cli/lua_state.hpp"
#include "app/cli/sanitize.hpp"
#include "app/run/counters.hpp"
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
  CounterArgs counters;  // --counters SET[,SET], --counters-by, --json
};

// After "no CUDA device: <call> needs a GPU (...)": how a script keeps its offline part.
constexpr const char* kNeedsGpuHint =
    "hint: without a GPU, end the script before its GPU part with "
    "`if not cuda.device().live then return end`, as the examples do (docs/tutorial.md)";

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
  if (!a.sanitize.empty() && !a.counters.words.empty())
    throw Failure(
        kUsage,
        "--counters and --sanitize cannot run together: compute-sanitizer and CUPTI's counters both "
        "instrument every launch; run the script once with each");
  if (const std::string why = lab::script_problem(a.script); !why.empty()) throw Failure(kBadInput, why);
  if (!a.sanitize.empty()) return sanitize::run(a.sanitize, g.argv);
  const auto params = parse_params(a.params);
  lab::record_dependency(a.script);  // for `warplab watch` (a no-op otherwise)
  bind::StatePtr state = open_lua_state(g);
  bind::set_params(state.get(), params);
  start_counter_watchdog(g.opts);  // a counted launch, even the script's own cuda.counters
  std::unique_ptr<RunCounters> counters;
  if (!a.counters.words.empty()) counters = std::make_unique<RunCounters>(a.counters, state.get());
  std::vector<std::string> args = a.args;  // before `--`, then after it
  args.insert(args.end(), g.script_args.begin(), g.script_args.end());
  const bind::RunResult r = bind::run_file(state.get(), a.script, args);
  const int counted = counters && !r.bad_input ? counters->finish(r.timed_out) : kOk;
  if (!r.ok) {
    if (r.bad_input) {  // a wrong -p value: the command line's fault (docs/exit-codes.md)
      std::cerr << "warplab: " << r.error << "\n";
      return kBadInput;
    }
    if (r.compile_error) {  // the diagnostics once and where the script stopped, no traceback
      std::cerr << r.error << "\n";
      return kCompileError;
    }
    if (r.needs_gpu) {  // a GPU-only call on a run without one: its own outcome, with the idiom
      std::cerr << r.error << "\n" << kNeedsGpuHint << "\n";
      return kNoDevice;
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
  if (counted != kOk) return counted;
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
  add_counter_options(sub, a->counters, true);
  sub->add_option("args", a->args, "arguments passed to the script as ...; after --, options too (--flag)")
      ->type_name("ARGS");
  set_help(sub,
           {"warplab run examples/reductions/ladder.lua -p block=512 -q",
            "warplab run examples/memory/banks.lua --counters shared",
            "warplab run my.lua input.bin -- --verbose   # --verbose goes to the script"},
           "Exit status: 0 ok; 1 script error or failed check; 3 a GPU-only call without a GPU; "
           "4 bad input (a -p value "
           "the script's params{} refuses); 5 a compile error the script raised; 7 --timeout fired; "
           "8 --sanitize without compute-sanitizer; 9 --sanitize found errors; "
           "with --counters, 3 no CUPTI library and 6 counters refused "
           "(all codes: docs/exit-codes.md).\n");
  out.push_back({sub, [&g, a] { return run_script(g, *a); }});
}

}  // namespace warplab::app
