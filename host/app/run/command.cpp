// run/command.cpp: `warplab run SCRIPT.lua [-p key=value ...] [args ...]`: runs a Lua
// experiment script against the live GPU or, offline, a device profile. Exit 0, or 1 when
// the script raised an error or a warplab.check failed, 3 when it needed a GPU the run does
// not have or read a value its profile does not know, 5 when it raised a failed compile's
// diagnostics; --sanitize TOOL runs it again under compute-sanitizer (cli/sanitize.hpp: 8, 9);
// --counters counts every launch (run/counters.hpp); --params lists the parameters the script
// declares. SCRIPT may be an example's `warplab list` name (cli/examples.cpp). Also
// run_prepared, the same run made ready ahead of its start (watch's standby: the context and
// the last run's modules first).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>

#include "app/cli/command.hpp"
#include "app/cli/exit_codes.hpp"
#include "app/cli/lua_state.hpp"
#include "app/cli/page.hpp"
#include "app/cli/sanitize.hpp"
#include "app/run/counters.hpp"
#include "app/run/lines.hpp"
#include "app/run/quiet.hpp"
#include "bind/state.hpp"
#include "cu/profile.hpp"
#include "cu/trace.hpp"
#include "lab/prebuilt.hpp"
#include "lab/run.hpp"
#include "lab/script.hpp"
#include "lab/sync.hpp"
#include "lab/watch_feed.hpp"
#include "sys/output.hpp"
#include "sys/shown.hpp"

namespace warplab::app {
namespace {

struct RunArgs {
  std::string script;
  std::vector<std::string> params;  // key=value
  std::vector<std::string> args;
  std::string sanitize;  // --sanitize TOOL: run again under compute-sanitizer
  CounterArgs counters;  // --counters SET[,SET], --counters-by, --json
  LineArgs lines;        // --lines[=SET], --sass (run/lines.hpp)
  bool list_params = false;
  PageOptions page;  // --serve, --html FILE: the run's page (cli/page.hpp)
};

// After "no CUDA device: <call> needs a GPU (...)": how a script keeps its offline part,
// and where: the line of its top level that made the call (what comes before still runs).
std::string needs_gpu_hint(const bind::RunResult& r, const std::string& script) {
  const std::string where = r.top_line > 0 ? " (line " + std::to_string(r.top_line) + " of " +
                                                 std::filesystem::path(script).filename().string() + ")"
                                           : "";
  return "hint: without a GPU, end the script before its GPU part" + where +
         " with `if not cuda.device().live then return end`: what comes before it still runs offline, as in "
         "the examples (docs/tutorial.md)";
}

// How `run` ends a script by the kind of the error that escaped it (bind::RunResult): these
// kinds end it with their own exit code (exit_codes.hpp) and no traceback, the message as
// the message handler left it, after `prefix` and before a hint; every other kind (the
// script's own error, API misuse, a driver failure inside the script) is exit 1 with the
// message and its traceback (docs/exit-codes.md).
struct Ending {
  ErrorKind kind;
  const char* prefix;
  bool hint;  // the needs-a-GPU hint after the sentence
};
constexpr Ending kEndings[] = {
    {ErrorKind::no_gpu, "", true},                    // a GPU-only call on a run without one
    {ErrorKind::not_in_profile, "warplab: ", false},  // the run needs a GPU or a fuller profile
    {ErrorKind::parameter, "warplab: ", false},       // a -p value: the command line's fault
    {ErrorKind::usage, "warplab: ", false},           // a forgotten -p (n=4096 for -p n=4096)
    {ErrorKind::compile, "", false},                  // the diagnostics once and where the script stopped
    {ErrorKind::timeout, "", false},                  // the watchdog's sentence, with its traceback
};

// The script arguments given before `--` that look like key=value, as the global
// WARPLAB_PARAMS_BARE: warplab.params refuses one that names a declared parameter
// ("pass it as -p n=4096"); after `--` a word is the script's alone.
void set_bare_params(lua_State* L, const std::vector<std::string>& before_dashes) {
  lua_newtable(L);  // +1
  lua_Integer n = 0;
  for (const std::string& w : before_dashes)
    if (const auto eq = w.find('='); eq != std::string::npos && eq > 0 && w[0] != '-') {
      lua_pushlstring(L, w.data(), w.size());  // +1
      lua_rawseti(L, -2, ++n);                 // -1
    }
  lua_setglobal(L, "WARPLAB_PARAMS_BARE");  // -1
}

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

// `run SCRIPT --params`: the script runs until its params{...} (warplab.params records the
// declaration in WARPLAB_PARAMS_LIST and stops it), then one line per parameter: name,
// default, type, in columns. A script that never mentions warplab.params is not run.
int print_params(const Globals& g, const std::string& script) {
  std::string text;
  if (auto why = lab::read_script(script, text)) throw Error(ErrorKind::bad_input, std::move(*why));
  if (text.find("warplab.params") == std::string::npos) {
    std::cout << script << " declares no parameters (it does not use warplab.params)\n";
    return kOk;
  }
  Globals quiet = g;
  quiet.offline_noted = true;  // the list alone: no note about the missing GPU
  bind::StatePtr state = open_lua_state(quiet);
  lua_State* L = state.get();
  lua_newtable(L);                          // +1
  lua_setglobal(L, "WARPLAB_PARAMS_LIST");  // -1
  bind::RunResult r;
  with_stdout_silenced([&] { r = bind::run_file(L, script, {}); });
  struct Row {
    std::string name, value, type;
  };
  std::vector<Row> rows;
  bool declared = false;
  lua_getglobal(L, "WARPLAB_PARAMS_LIST");                                    // +1
  if (lua_istable(L, -1) && lua_getfield(L, -1, "declared") == LUA_TTABLE) {  // +1
    declared = true;
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TTABLE; ++i) {  // +1 row
      Row row;
      for (auto [key, field] : {std::pair{"name", &row.name}, {"default", &row.value}, {"type", &row.type}}) {
        lua_getfield(L, -1, key);  // +1
        if (const char* v = lua_tostring(L, -1)) *field = v;
        lua_pop(L, 1);  // -1
      }
      rows.push_back(row);
      lua_pop(L, 1);  // -1 row
    }
  }
  lua_settop(L, 0);
  if (!declared) {
    if (!r.ok) {
      std::cerr << r.error << "\n";
      return kFailed;
    }
    std::cout << script << " declares no parameters\n";
    return kOk;
  }
  std::size_t wn = 0, wv = 0;
  for (const Row& row : rows) wn = std::max(wn, row.name.size()), wv = std::max(wv, row.value.size());
  for (const Row& row : rows)
    std::cout << row.name << std::string(wn - row.name.size() + 2, ' ') << row.value
              << std::string(wv - row.value.size() + 2, ' ') << row.type << "\n";
  return kOk;
}

// A new Lua state for the run, with its -p values.
bind::StatePtr state_with(const Globals& g, const std::map<std::string, std::string>& params) {
  bind::StatePtr s = open_lua_state(g);
  bind::set_params(s.get(), params);
  return s;
}

// The script in `state`, counted when `ca` names counters (run --counters) or its lines
// collected (`la`: run --lines; `fresh`, a new state for the stall pass), and run's exit
// code for how it went.
int run_in_state(bind::StatePtr& state, const std::string& script, const std::vector<std::string>& args,
                 const CounterArgs& ca, const LineArgs& la, bool color,
                 const std::function<bind::StatePtr()>& fresh) {
  std::unique_ptr<RunCounters> counters;
  if (!ca.words.empty()) counters = std::make_unique<RunCounters>(ca, state.get());
  std::unique_ptr<RunLines> lines;
  if (la.on()) lines = std::make_unique<RunLines>(la, color, state.get());
  const bind::RunResult r = bind::run_file(state.get(), script, args);
  const bool timed_out = !r.ok && r.kind == ErrorKind::timeout;
  const bool counts = r.ok || r.kind != ErrorKind::parameter;  // a wrong -p: nothing ran
  int counted = counters && counts ? counters->finish(timed_out) : kOk;
  if (lines && counts && counted == kOk) counted = lines->finish(timed_out, {script, args, fresh});
  if (!r.ok) {
    // The kernel still runs and the context cannot be torn down under it: leave the state
    // unclosed and let the process exit end the GPU work (the driver does).
    if (timed_out) (void)state.release();
    for (const Ending& e : kEndings)
      if (e.kind == r.kind) {
        std::cerr << e.prefix << r.error << "\n";
        if (e.hint) std::cerr << needs_gpu_hint(r, script) << "\n";
        return exit_code_for(e.kind);
      }
    std::cerr << r.error << "\n";
    return kFailed;
  }
  if (counted != kOk) return counted;
  return checks_ok(state.get()) ? kOk : kFailed;
}

// run --counters --json FILE and run --html FILE, checked before the script runs
// (sys/output.hpp): never the script, a profile file or a script argument, nor a folder, a
// folder that is not there or a symbolic link; an existing file is replaced (docs/cli.md;
// --html only a page warplab wrote: serve/run.cpp), and the one writer refuses at the end a
// file the run read meanwhile (a kernel, a header).
void check_outputs(const CounterArgs& ca, const PageOptions& page, const Globals& g,
                   const std::string& script, const std::vector<std::string>& args) {
  if (ca.json_given && ca.json.empty())
    throw Error(ErrorKind::usage, "--json needs a file name: --json FILE (- for stdout)");
  if (page.html_given && page.html.empty())
    throw Error(ErrorKind::usage, "--html needs a file name: --html FILE");
  if (page.html == "-")
    throw Error(ErrorKind::usage,
                "--html -: the page goes to a file, since the script's output is on stdout: --html FILE");
  if (!ca.json.empty() && ca.json != "-" && !page.html.empty() && sys::same_file(ca.json, page.html))
    throw Error(ErrorKind::usage,
                "--json and --html name one file ('" + sys::shown(page.html) + "'): give each its own");
  std::vector<sys::NamedInput> inputs = {{script, "the script"}};
  if (!g.opts.profile.empty() && !cu::find_embedded_profile(g.opts.profile))
    inputs.push_back({g.opts.profile, "the profile"});
  for (const std::string& arg : args) inputs.push_back({arg, "an argument of the script"});
  if (!ca.json.empty() && ca.json != "-")
    if (const auto why = sys::output_refusal(ca.json, sys::Replace::allowed, inputs))
      throw Error(ErrorKind::bad_input, "--json: " + *why);
  if (!page.html.empty())
    if (const auto why = sys::output_refusal(page.html, sys::Replace::allowed, inputs))
      throw Error(ErrorKind::bad_input, "--html: " + *why);
  // The script's own writes (warplab.write_file, report.save) keep off them meanwhile.
  if (!ca.json.empty() && ca.json != "-") sys::reserve_output(ca.json, "the --json file of this run");
  if (!page.html.empty()) sys::reserve_output(page.html, "the --html file of this run");
}

int run_script(const Globals& g, const RunArgs& given) {
  RunArgs a = given;
  a.script = resolve_script(given.script);
  if (!a.sanitize.empty() && !sanitize::valid_tool(a.sanitize)) {
    std::string valid;
    for (const std::string& t : sanitize::tools()) valid += (valid.empty() ? "" : ", ") + t;
    throw Error(ErrorKind::usage,
                "--sanitize: unknown tool '" + sys::shown(a.sanitize) + "' (valid: " + valid + ")");
  }
  if (!a.sanitize.empty() && !a.counters.words.empty())
    throw Error(ErrorKind::usage,
                "--counters and --sanitize cannot run together: compute-sanitizer and CUPTI's counters both "
                "instrument every launch; run the script once with each");
  if (a.lines.on() && !a.counters.words.empty())
    throw Error(ErrorKind::usage,
                "--lines and --counters cannot run together: per-line counts patch each kernel's code, which "
                "the counters would count too; run the script once with each");
  if (a.lines.on() && !a.sanitize.empty())
    throw Error(ErrorKind::usage,
                "--lines and --sanitize cannot run together: compute-sanitizer and CUPTI both instrument "
                "every launch; run the script once with each");
  if (!a.counters.json.empty() && a.counters.words.empty() && !a.lines.on())
    throw Error(ErrorKind::usage, "--json requires --counters or --lines");
  if (const auto why = lab::script_problem(a.script)) {
    const std::string dir = shipped_examples();
    const bool relative = !std::filesystem::path(a.script).is_absolute();
    std::error_code ec;  // a name the OS refuses (too long) is not there either
    const bool missing = relative && !std::filesystem::exists(a.script, ec);
    const std::string near = missing ? nearest_script(a.script) : "";
    throw Error(
        ErrorKind::bad_input,
        *why +
            (missing && !dir.empty() ? " (nor an example in " + dir + ": `warplab list` names them)" : "") +
            (near.empty() ? "" : "; did you mean '" + near + "'?"));
  }
  check_page_options(a.page);
  if (a.page.any() && (a.list_params || !a.sanitize.empty()))
    throw Error(ErrorKind::usage,
                "--serve and --html show a run's page: they do not go with --params or --sanitize");
  if (a.list_params) return print_params(g, a.script);
  if (!a.sanitize.empty()) return sanitize::run(a.sanitize, g.argv);
  sanitize::die_with_the_tool();  // under compute-sanitizer: not one moment longer than it
  const auto params = parse_params(a.params);
  std::vector<std::string> args = a.args;  // before `--`, then after it
  args.insert(args.end(), g.script_args.begin(), g.script_args.end());
  LineArgs lines = a.lines;
  lines.json = a.counters.json;                          // --json: the counters' or the lines' rows
  check_outputs(a.counters, a.page, g, a.script, args);  // before any work
  if (a.page.any())
    return run_with_page(g, a.page, PreparedRun{a.script, a.params, args, "", a.counters, lines, a.args});
  lab::feed_dependency(a.script);           // for `warplab watch` (a no-op otherwise)
  sys::note_input(a.script, "the script");  // no output of this run replaces it
  auto fresh = [&g, &params, &a] {
    bind::StatePtr s = state_with(g, params);
    set_bare_params(s.get(), a.args);  // a forgotten -p (n=4096 before --) is said
    return s;
  };
  bind::StatePtr state = fresh();
  lab::start_counted_launch_watchdog(g.opts.timeout, kTimeout);  // cuda.counters' launches too
  return run_in_state(state, a.script, args, a.counters, lines, g.opts.color && isatty(STDOUT_FILENO), fresh);
}

// The device chosen, its context made and `modules` built while nobody waits. Whatever
// fails here is left for the script to meet where it would have anyway.
void make_ready(lua_State* L, const std::string& modules) {
  lab::Run* run = prepare_device(L);
  if (!run) return;
  const cu::TraceScope t("modules of the last run built ahead");
  lab::prebuild(lab::read_module_feed(modules), run->cache.get(), run->context);
}

}  // namespace

int run_prepared(const Globals& g, const PreparedRun& a, const std::function<bool()>& ready) {
  const auto params = parse_params(a.params);
  auto fresh = [&g, &params, &a] {
    bind::StatePtr s = state_with(g, params);
    set_bare_params(s.get(), a.bare);  // a forgotten -p, under watch and run --serve too
    return s;
  };
  bind::StatePtr state = fresh();
  lab::start_counted_launch_watchdog(g.opts.timeout, kTimeout);
  if (a.lines.on()) ::setenv("WARPLAB_LINEINFO", "1", 1);  // the modules built ahead too (run/lines.cpp)
  make_ready(state.get(), a.modules);
  cu::trace("ready");
  if (!ready()) return kOk;
  cu::trace("go");
  if (auto why = lab::script_problem(a.script)) throw Error(ErrorKind::bad_input, *why);
  lab::feed_dependency(a.script);
  sys::note_input(a.script, "the script");
  return run_in_state(state, a.script, a.args, a.counters, a.lines, g.opts.color && isatty(STDOUT_FILENO),
                      fresh);
}

void add_run_command(CLI::App& app, Globals& g, Commands& out) {
  auto a = std::make_shared<RunArgs>();
  auto* sub = app.add_subcommand("run", "run a Lua experiment script");
  sub->add_option("script", a->script,
                  "the .lua script, or an example by its `warplab list` name (warps/ids.lua)")
      ->required()
      ->type_name("SCRIPT.lua");
  add_script_options(sub, a->params, g);
  sub->add_option("--sanitize", a->sanitize,
                  "run under compute-sanitizer: memcheck, racecheck, synccheck or initcheck")
      ->type_name("TOOL");
  add_counter_options(sub, a->counters, true);
  add_line_options(sub, a->lines);
  add_page_options(sub, a->page, true);
  sub->add_flag("--params", a->list_params,
                "list the parameters the script declares (name, default, type) and run nothing else");
  sub->add_option("args", a->args, "arguments passed to the script as ...; after --, options too (--flag)")
      ->type_name("ARGS");
  set_help(
      sub,
      {"warplab run reductions/ladder.lua --params   # then -p block=512",
       "warplab run memory/banks.lua --lines --html banks.html   # which line did what",
       "warplab run my.lua input.bin -- --verbose   # --verbose goes to the script"},
      "Exit status: 0 ok; 1 script error or failed check; 2 an argument n=4096 naming a declared "
      "parameter (pass it as -p n=4096; after --, it stays an argument); 3 a GPU-only call without a "
      "GPU, or a value the profile does not know (--profile sm_86: the SM count); 4 bad input (a -p value "
      "the script's params{} refuses); 5 a compile error the script raised; 7 --timeout fired; "
      "8 --sanitize without compute-sanitizer; 9 --sanitize found errors; "
      "with --counters or --lines, 3 no CUPTI library and 6 counters refused "
      "(all codes: docs/exit-codes.md).\n");
  out.push_back({sub, [&g, a] { return run_script(g, *a); }});
}

}  // namespace warplab::app
