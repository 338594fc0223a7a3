// cli/command.hpp: what every subcommand shares: the global options (before or after the
// subcommand: docs/cli.md) in the one options struct (lab/options.hpp), the exit codes
// (exit_codes.hpp), the hook each folder's command.cpp adds itself to the CLI with, target
// selection, script options, help (footers, the short help, `help`, the man page), the
// environment table, the shipped examples, and option checks. No Lua: the commands that run Lua include
// lua_state.hpp.
#pragma once
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/counters.hpp"
#include "app/cli/exit_codes.hpp"
#include "app/cli/lines.hpp"
#include "cu/device.hpp"
#include "cu/error.hpp"
#include "cu/profile.hpp"
#include "lab/options.hpp"

namespace warplab::app {

// The command line as parsed: the options a run works with, set here once and read as
// they are by the Lua state (open_lua_state), and what only the command line needs.
struct Globals {
  lab::Options opts;  // the global options (main.cpp), --no-check (run, watch)
  // Hidden --offline-noted: the offline note was already printed (by `watch`, which passes
  // it to each run, or by the REPL before a worker restart), so it is not said again.
  bool offline_noted = false;
  bool device_given = false;      // --device was given (`counters` checks that GPU's chip)
  std::vector<std::string> argv;  // the command line as given (run --sanitize runs it again)
  // What follows the first `--`: the script's arguments, after those before it (run, watch).
  std::vector<std::string> script_args;
  bool dashdash = false;
};

// A subcommand's entry point, called when CLI11 parsed that subcommand.
struct Command {
  CLI::App* sub;
  std::function<int()> run;
};
using Commands = std::vector<Command>;

// The device a command works on: --profile if given; else the live device --device;
// else, when `fallback` is true, the default shipped profile (with the offline note on
// stderr, see below); else throws Error(ErrorKind::no_gpu, "... (use --profile h100 ...)").
cu::DeviceSnapshot select_target(const Globals& g, bool fallback);

// Why there is no GPU to work on, in a few words ("libcuda.so.1 not found",
// "WARPLAB_NO_DRIVER is set"); nullopt when a GPU is there or a profile was chosen.
std::optional<std::string> offline_reason(const Globals& g);
// The one line every command prints once when it falls back to the default profile:
// "warplab: no GPU (libcuda.so.1 not found): using profile h100". Said on stderr unless
// --quiet or already noted; --profile and WARPLAB_PROFILE make it unnecessary.
void note_offline(const Globals& g, const std::string& reason, const std::string& profile);

// Each folder's command.cpp defines one of these.
void add_attrs_command(CLI::App& app, const Globals& g, Commands& out);
void add_compile_command(CLI::App& app, const Globals& g, Commands& out);
void add_occupancy_command(CLI::App& app, const Globals& g, Commands& out);
void add_run_command(CLI::App& app, Globals& g, Commands& out);  // sets g.opts.check
void add_cache_command(CLI::App& app, const Globals& g, Commands& out);
void add_repl_command(CLI::App& app, const Globals& g, Commands& out);
void add_watch_command(CLI::App& app, Globals& g, Commands& out);  // sets g.opts.check
void add_list_command(CLI::App& app, const Globals& g, Commands& out);
// `counters [WORD...]` (counters_list/command.cpp): the counter sets; run --counters is cli/counters.cpp's.
void add_counters_list_command(CLI::App& app, const Globals& g, Commands& out);
// The hidden `completion bash|zsh` (completion.cpp): scripts generated from `app`.
void add_completion_command(CLI::App& app, Commands& out);
// `help [COMMAND]` (help.cpp) and the hidden `man` (man.cpp): the manual page in roff.
void add_help_command(CLI::App& app, Commands& out);
void add_man_command(CLI::App& app, Commands& out);
void write_man_page(std::ostream& out, const CLI::App& app);

// Help (help.cpp). CLI11's option lines without a validator's name after the value
// ("--device N", not "--device N:N"): set on the app before any subcommand is added.
std::shared_ptr<CLI::FormatterBase> help_formatter();
// An option's value name as given to type_name(): "N", "PROFILE", "KEY=VALUE".
std::string value_name(const CLI::Option& o);
// The options and subcommands a user is shown: not hidden, not --help/--version.
std::vector<const CLI::Option*> listed_options(const CLI::App& app);
std::vector<const CLI::App*> listed_commands(const CLI::App& app);
// What a bare `warplab` prints: the usage line, the commands, where to start.
std::string short_help(const CLI::App& app);
// "unknown command 'attr'; did you mean 'attrs'?" (or the list of commands).
std::string unknown_command(const CLI::App& app, const std::string& word);
// The command word of a command line (words in order, before any `--`): the first word
// that is neither a global option nor its value, or an option no global option is (it
// starts with '-': unknown_option says so); "" when there is none.
std::string command_word(const CLI::App& app, const std::vector<std::string>& words);
// "unknown option '--prøfile'; did you mean '--profile'?": an option before the command
// that no global option is.
std::string unknown_option(const CLI::App& app, const std::string& word);
// After a command: the first word of `words` (in order, before any `--`) that starts with
// '-', is no negative number, and that neither `sub` nor the global options (`app`) take,
// said as "run: unknown option '--parms'; did you mean '--params'?" (the nearest of both,
// or the long option a lone letter starts: `-p` in occupancy is '--profile'), else where
// its options are listed; "" when every such word is taken (CLI11's sentence stays).
std::string unknown_option_after(const CLI::App& app, const CLI::App& sub,
                                 const std::vector<std::string>& words);
// The examples and notes set_help gave a subcommand (for the man page).
struct HelpNotes {
  std::vector<std::string> examples;
  std::string more;
};
HelpNotes help_notes(const CLI::App* sub);

// Every environment variable warplab reads and where it keeps files (environment.cpp),
// for `warplab --help`, the man page and docs/cli.md.
struct EnvVar {
  std::string name, meaning;
  bool common = false;  // one a user sets: `warplab --help` lists these, `help environment` all
};
const std::vector<EnvVar>& environment();
const std::vector<EnvVar>& files();
// "Environment:\n  NAME  meaning\n...\nFiles:\n...": every variable, or (all = false) the
// common ones and a line naming `warplab help environment` for the rest.
std::string environment_text(bool all);
// The help topic that prints it: `warplab help environment` (a word no command takes).
inline constexpr std::string_view kEnvironmentTopic = "environment";

// The examples shipped with warplab (examples.cpp): the folders looked in, the first that
// exists ("" when none), and a script named by its `warplab list` name ("warps/ids.lua")
// when no such file is here: that example's path; else `script` unchanged.
std::vector<std::string> examples_candidates();
std::string shipped_examples();
std::string resolve_script(const std::string& script);
// The shipped examples by their `warplab list` name ("warps/ids.lua"), sorted.
std::vector<std::string> example_names();
// For a script that is not there: the example or .lua file in its folder it most likely
// meant ("ids.lua": "warps/ids.lua"; "redcue.lua": "reduce.lua"), or "" when none is close.
std::string nearest_script(const std::string& script);

// `run` of a script in this process, made ready before it starts (run/command.cpp): the
// Lua state, and when the device can be chosen without the script, the device, its context
// and the modules of `modules` (a lab/prebuilt.hpp record) built and loaded; then
// `ready()` is called, which returns when the script may start (false: it never will,
// return kOk). The script is read after that, so it is the file as it is then. `watch`
// runs each edit this way in a process forked ahead of the save (its standby).
struct PreparedRun {
  std::string script;
  std::vector<std::string> params;  // -p key=value
  std::vector<std::string> args;    // the script's arguments
  std::string modules;              // what the last run built
  CounterArgs counters;             // watch --counters: each run's, as `run --counters` takes them
  LineArgs lines;                   // watch --lines: each run's, as `run --lines` takes them
  std::vector<std::string> bare;    // the arguments before `--`: a forgotten -p among them is said
};
int run_prepared(const Globals& g, const PreparedRun& r, const std::function<bool()>& ready);

// A command's body with main's answer to its errors: a warplab::Error is its sentence on
// stderr and its kind's exit code (exit_codes.hpp), any other exception an internal error
// (main.cpp; watch's runs too).
int run_command(const std::function<int()>& body);

// What `run` and `watch` both take, defined once (script_options.cpp): `-p,--param
// KEY=VALUE` into `params` (one value each: later words are script arguments) and
// `--no-check`, which clears g.opts.check.
void add_script_options(CLI::App* sub, std::vector<std::string>& params, Globals& g);
// The -p values as a map, or Error (bad_input) naming the one that is not key=value.
std::map<std::string, std::string> parse_params(const std::vector<std::string>& kv);

// A subcommand's --help footer (help.cpp): `examples` (command lines), then the global
// options as the app defines them when help is printed, then `more` (exit codes, notes).
void set_help(CLI::App* sub, std::vector<std::string> examples, std::string more = {});
// Every --arch value `compile` accepts: the real architectures NVRTC builds (sm_90a among
// them), then their virtual compute_XX counterparts (PTX only). For help and completion.
std::vector<std::string> arch_choices();

// The global options, one per line, as a subcommand's help footer shows them; those `sub`
// defines itself are marked as valid before the subcommand only.
std::string global_options_text(const CLI::App& app, const CLI::App* sub = nullptr);

// Option values with one sentence when they are wrong (not CLI11's 309-digit range):
// a device index 0..1023, and seconds: a finite number from 0 (none) to 86400.
inline CLI::Validator device_index() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        char* end = nullptr;
        const long n = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || n < 0 || n > 1023)
          return "a device index is a whole number 0, 1, 2, ... (got '" + v + "')";
        return {};
      },
      "N");
}
inline CLI::Validator seconds() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        char* end = nullptr;
        const double s = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !(s >= 0 && s <= 86400))  // NaN fails both
          return "seconds from 0 (none) to 86400, e.g. 2.5 (got '" + v + "')";
        return {};
      },
      "SECONDS");
}

// What --profile takes, for its help: the shipped names by kind, or a file.
inline std::string profile_help(const std::string& what) {
  return what + ": a shipped profile (" + cu::shipped_profiles() + ") or a .json file";
}

// A profile name or path: never empty (an empty --profile would silently mean "none").
inline CLI::Validator profile_name() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        return v.empty()
                   ? "a profile name (" + cu::shipped_profiles() + ") or a .json path, not an empty value"
                   : std::string();
      },
      "PROFILE");
}
// A count from 0 to `max`, in one sentence.
inline CLI::Validator count_upto(long max) {
  return CLI::Validator(
      [max](std::string& v) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long n = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || errno || n < 0 || n > max)
          return "a whole number from 0 to " + std::to_string(max) + " (got '" + v + "')";
        return {};
      },
      "N");
}

}  // namespace warplab::app
