// cli/main.cpp: the warplab program. Parses the command line (CLI11), dispatches to one
// subcommand, and is the only place that turns errors into exit codes.
#include <nvrtc.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include "app/cli/command.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/trace.hpp"
#include "sys/shown.hpp"

namespace {

// The driver's version needs libcuda loaded, not cuInit: --version starts no GPU.
std::string version_text() {
  int major = 0, minor = 0;
  {
    const warplab::cu::TraceScope t("nvrtcVersion (NVRTC's first call)");
    nvrtcVersion(&major, &minor);
  }
  std::string out = std::string("warplab ") + WARPLAB_VERSION + "\nNVRTC " + std::to_string(major) + "." +
                    std::to_string(minor);
  if (const auto why = warplab::cu::driver_not_loaded())
    out += "\nCUDA driver: none (" + *why + ")";
  else
    out += "\nCUDA driver " + warplab::cu::version_string(warplab::cu::driver_version());
  return out;
}

// The global options. They are the app's, and every subcommand falls through to the app
// for an option it does not know, so each works before or after the subcommand. An
// option a subcommand defines itself wins after it (attrs --device/--profile, watch
// --timeout: docs/cli.md). They set the one options struct, g.opts, as lab::Run reads it.
void add_global_options(CLI::App& app, warplab::app::Globals& g) {
  warplab::lab::Options& o = g.opts;
  app.add_option("--device", o.device, "CUDA device index")
      ->check(warplab::app::device_index())
      ->each([&g](const std::string&) { g.device_given = true; })
      ->type_name("N");
  app.add_option("--profile", o.profile,
                 warplab::app::profile_help("work from a device profile instead of a GPU"))
      ->check(warplab::app::profile_name())
      ->type_name("PROFILE");
  app.add_option("--timeout", o.timeout, "kernel watchdog, seconds (0: none)")
      ->check(warplab::app::seconds())
      ->type_name("SECONDS");
  app.add_flag("--sync", o.sync, "synchronize after every launch (debugging)");
  app.add_flag_callback(
      "--no-color", [&o] { o.color = false; }, "no ANSI colours");
  app.add_flag("-q,--quiet", o.quiet, "print less");
  app.add_flag_callback(
      "--no-cache", [&o] { o.cache = false; }, "neither read nor write the compile cache");
  app.add_flag("--offline-noted", g.offline_noted)->group("");  // set by `watch` for its runs
}

// A command's output that could not be written (a full disk, an I/O error) must not look
// like success: flushed here, and a failure is exit 1 with the reason.
int output_written(int rc) {
  errno = 0;
  std::cout.flush();
  int err = errno;
  bool bad = !std::cout;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    bad = true;
    if (err == 0) err = errno;
  }
  if (!bad) return rc;
  // The stream's first failure may be long past and its errno gone: one more byte, on an
  // output that is failing anyway, asks the system for the reason again.
  if (err == 0 && ::write(STDOUT_FILENO, "\n", 1) < 0) err = errno;
  if (err == 0) err = EIO;
  std::cerr << "warplab: cannot write the output: " << std::strerror(err) << "\n";
  return rc == warplab::app::kOk ? warplab::app::kFailed : rc;
}

// Standard streams that were closed when we started (`warplab repl <&-`) stay closed to
// whoever uses them, but their numbers are taken: each is /dev/null opened the other way
// (stdin for writing, stdout and stderr for reading), so a read or a write fails with
// EBADF as on a closed descriptor, and the next socket, pipe or file we open does not get
// number 0, 1 or 2, which everything that reads "standard input" would then read from
// (the REPL's worker socket was read as the prompt's input and waited forever).
void hold_standard_streams() {
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int held = ::open("/dev/null", (fd == STDIN_FILENO ? O_WRONLY : O_RDONLY));  // the lowest free: fd
    if (held >= 0 && held != fd) {
      ::dup2(held, fd);
      ::close(held);
    }
  }
}

// CLI11's sentence for a word nobody takes, with the way to hand it to a script; an
// option the command does not take is said as ours, with the nearest name.
int usage_error(CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& words) {
  if (dynamic_cast<const CLI::ExtrasError*>(&e))
    for (const CLI::App* sub : app.get_subcommands({}))
      if (sub->parsed())
        if (const std::string why = warplab::app::unknown_option_after(app, *sub, words); !why.empty()) {
          std::cerr << "warplab: " << why << "\n";
          for (const char* s : {"run", "watch"})
            if (sub->get_name() == s)
              std::cerr << "To pass options to the script, put them after --: warplab " << s
                        << " SCRIPT.lua -- --flag\n";
          return warplab::app::kUsage;
        }
  const int rc = app.exit(e);
  if (rc == 0) return output_written(warplab::app::kOk);  // --help, --version: said only if written
  if (dynamic_cast<const CLI::ExtrasError*>(&e))
    for (const char* s : {"run", "watch"})
      if (app.get_subcommand(s)->parsed())
        std::cerr << "To pass options to the script, put them after --: warplab " << s
                  << " SCRIPT.lua -- --flag\n";
  return warplab::app::kUsage;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace warplab::app;
  hold_standard_streams();
  warplab::cu::trace_main();
  // A file past the size limit (ulimit -f) is a failed write with its sentence (EFBIG),
  // not a process killed by SIGXFSZ with the old file half replaced.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"warplab: a CUDA playground (driver API, NVRTC, Lua 5.4)", "warplab"};
  app.set_version_flag("-V,--version", version_text);
  // CLI11's sentence, each line kept to one readable line: "The following arguments were
  // not expected: 1000 999 ..." with a thousand words is quoted by its start and length.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    std::string out, line;
    std::istringstream in(CLI::FailureMessage::simple(a, e));
    while (std::getline(in, line)) out += warplab::sys::shown(line) + "\n";
    return out;
  });
  // One subcommand at most, none required: a bare `warplab` prints the short help and exits
  // 0, as cargo does (git exits 1, which here means a failed check: docs/cli.md). After the
  // one, a command's name is a word like any other (`warplab help run`).
  app.require_subcommand(0, 1);
  app.fallthrough();                // inherited by the subcommands added below
  app.formatter(help_formatter());  // likewise: "--device N", not "--device N:N"
  Globals g;
  g.argv.assign(argv, argv + argc);
  // `--` ends warplab's options: what follows goes to the script untouched (CLI11 would
  // hand a `--` after the script's first argument back to the app's options).
  std::vector<std::string> words(argv + 1, argv + argc);
  if (const auto dd = std::find(words.begin(), words.end(), "--"); dd != words.end()) {
    g.script_args.assign(dd + 1, words.end());
    g.dashdash = true;
    words.erase(dd, words.end());
  }
  std::reverse(words.begin(), words.end());  // CLI11 takes them last first
  if (const char* p = std::getenv("WARPLAB_PROFILE")) g.opts.profile = p;
  add_global_options(app, g);
  if (std::getenv("NO_COLOR")) g.opts.color = false;

  Commands commands;
  add_attrs_command(app, g, commands);
  add_compile_command(app, g, commands);
  add_occupancy_command(app, g, commands);
  add_run_command(app, g, commands);
  add_cache_command(app, g, commands);
  add_repl_command(app, g, commands);
  add_watch_command(app, g, commands);
  add_list_command(app, g, commands);
  add_counters_list_command(app, g, commands);
  add_completion_command(app, commands);
  add_help_command(app, commands);
  add_man_command(app, commands);
  app.footer([&app] {
    return "Global options work before or after the subcommand; `warplab help COMMAND` (or\n"
           "`warplab COMMAND --help`) shows its own. Exit codes: docs/exit-codes.md.\n"
           "Completion: warplab completion bash|zsh. Manual: man warplab.\n\n" +
           environment_text(false);
  });

  // A word that names no command is a usage error with the nearest command, before CLI11
  // would call it an unexpected argument.
  if (const std::string cmd = command_word(app, {words.rbegin(), words.rend()}); !cmd.empty()) {
    if (cmd[0] == '-') {  // an option no command defines before the command: `--prøfile h100`
      std::cerr << "warplab: " << unknown_option(app, cmd) << "\n";
      return kUsage;
    }
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) known = known || sub->get_name() == cmd;
    if (!known) {
      std::cerr << "warplab: " << unknown_command(app, cmd) << "\n";
      return kUsage;
    }
  }
  try {
    app.parse(words);
    if (g.dashdash && !app.get_subcommand("run")->parsed() && !app.get_subcommand("watch")->parsed())
      throw CLI::ExtrasError({"--"});
  } catch (const CLI::ParseError& e) {
    return usage_error(app, e, {words.rbegin(), words.rend()});
  }
  warplab::cu::trace("command line parsed");
  for (const Command& c : commands)
    if (c.sub->parsed()) {
      const int rc = run_command([&c] { return output_written(c.run()); });
      warplab::cu::trace("command done");
      return rc;
    }
  // No command: the short help, what git and cargo show.
  return run_command([&app] {
    std::cout << short_help(app);
    return output_written(kOk);
  });
}

namespace warplab::app {
namespace {

// An error's sentence as the terminal shows it: a name the user gave (a profile, a path)
// may hold an escape sequence, which is written as \x1b rather than sent to the terminal.
std::string printable(const char* what) { return warplab::sys::printable(what, "\n\t"); }

}  // namespace

int run_command(const std::function<int()>& body) {
  try {
    return body();
  } catch (const Error& e) {  // the one table: its kind's code (exit_codes.hpp)
    std::cerr << "warplab: " << printable(e.what()) << "\n";
    return exit_code_for(e);
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the OS refuses (a name too long, a loop of links, no permission) met by a
    // std::filesystem call that throws: the path (its start, when long) and the reason.
    std::cerr << "warplab: cannot use '" << warplab::sys::shown(e.path1().string())
              << "': " << e.code().message() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "warplab: internal error: " << printable(e.what()) << "\n";
    return kInternal;
  }
}

}  // namespace warplab::app
