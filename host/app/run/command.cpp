// run/command.cpp: `warplab run SCRIPT.lua [-p key=value ...] [args ...]`: runs a Lua
// experiment script against the live GPU or, offline, a device profile. Exit 0, or 1 when
// the script raised an error or a warplab.check failed; --sanitize TOOL runs it again under
// compute-sanitizer (cli/sanitize.hpp: 8, 9); --counters counts every launch (run/counters.hpp).
// Also run_prepared, the same run made ready ahead of its start (watch's standby: the
// context and the last run's modules first). Depends on cli/command.hpp, cli/lua_state.hpp,
// bind/state.hpp (run_file), lab/ (run: the device, made ready; deps, prebuilt, script)
// and cu/trace.hpp.
#include <filesystem>
#include <iostream>
#include <map>

#include "app/cli/command.hpp"
#include "app/cli/lua_state.hpp"
#include "app/cli/sanitize.hpp"
#include "app/run/counters.hpp"
#include "bind/state.hpp"
#include "cu/trace.hpp"
#include "lab/deps.hpp"
#include "lab/prebuilt.hpp"
#include "lab/run.hpp"
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

// The script in `state`, counted when `ca` names counters (run --counters), and run's exit
// code for how it went.
int run_in_state(bind::StatePtr& state, const std::string& script, const std::vector<std::string>& args,
                 const CounterArgs& ca) {
  std::unique_ptr<RunCounters> counters;
  if (!ca.words.empty()) counters = std::make_unique<RunCounters>(ca, state.get());
  const bind::RunResult r = bind::run_file(state.get(), script, args);
  const int counted = counters && !r.bad_input ? counters->finish(r.timed_out) : kOk;
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
  if (counted != kOk) return counted;
  return checks_ok(state.get()) ? kOk : kFailed;
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
  start_counter_watchdog(g.opts);          // a counted launch, even the script's own cuda.counters
  std::vector<std::string> args = a.args;  // before `--`, then after it
  args.insert(args.end(), g.script_args.begin(), g.script_args.end());
  return run_in_state(state, a.script, args, a.counters);
}

// The device chosen, its context made and `modules` built while nobody waits. Whatever
// fails here is left for the script to meet where it would have anyway.
void make_ready(lua_State* L, const std::string& modules) {
  lab::Run* run = prepare_device(L);
  if (!run) return;
  const cu::TraceScope t("modules of the last run built ahead");
  lab::prebuild(lab::read_module_records(modules), run->cache.get(), run->context);
}

}  // namespace

int run_prepared(const Globals& g, const PreparedRun& a, const std::function<bool()>& ready) {
  const auto params = parse_params(a.params);
  bind::StatePtr state = open_lua_state(g);
  bind::set_params(state.get(), params);
  start_counter_watchdog(g.opts);
  make_ready(state.get(), a.modules);
  cu::trace("ready");
  if (!ready()) return kOk;
  cu::trace("go");
  if (const std::string why = lab::script_problem(a.script); !why.empty()) throw Failure(kBadInput, why);
  lab::record_dependency(a.script);
  return run_in_state(state, a.script, a.args, a.counters);
}

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
           "Exit status: 0 ok; 1 script error or failed check; 4 bad input (a -p value "
           "the script's params{} refuses); 7 --timeout fired; "
           "8 --sanitize without compute-sanitizer; 9 --sanitize found errors; "
           "with --counters, 3 no CUPTI library and 6 counters refused "
           "(all codes: docs/exit-codes.md).\n");
  out.push_back({sub, [&g, a] { return run_script(g, *a); }});
}

}  // namespace warplab::app
