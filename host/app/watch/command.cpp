// watch/command.cpp: `warplab watch SCRIPT.lua [-p k=v ...] [--clear] [--diff] [--timeout S]`:
// runs the script in a child (`warplab run`), then again after every save of the script, a
// kernel file it compiled or a header those include (lab/deps.hpp). A failing, crashing or
// hanging run ends that run only; signals arrive through a signalfd; --counters shows the
// counters that changed (counters.hpp). Depends on cli/command.hpp, cli/counters.hpp,
// files.hpp (inotify), child.hpp (the runs), diff.hpp, counters.hpp, cu/profile, lab/script.
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>

#include "app/cli/command.hpp"
#include "app/cli/counters.hpp"
#include "app/watch/child.hpp"
#include "app/watch/counters.hpp"
#include "app/watch/diff.hpp"
#include "app/watch/files.hpp"
#include "cu/profile.hpp"
#include "lab/script.hpp"

namespace fs = std::filesystem;

namespace warplab::app {
namespace {

using watch::Clock;

struct WatchArgs {
  std::string script;
  std::vector<std::string> params;  // key=value, passed on to run
  std::vector<std::string> args;
  bool clear = false;
  bool diff = false;
  double timeout = 0;    // seconds per run, 0 = none
  CounterArgs counters;  // --counters SET[,SET]: passed to each run, changes shown
};

std::string wall_clock() {
  const std::time_t t = std::time(nullptr);
  std::tm tm = {};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}

long long ms_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

// The command line of one run: the same global options, then `run`.
std::vector<std::string> run_argv(const Globals& g, const WatchArgs& a) {
  const lab::Options& o = g.opts;
  std::vector<std::string> v = {"warplab", "--device", std::to_string(o.device), "--offline-noted"};
  if (!o.profile.empty()) v.insert(v.end(), {"--profile", o.profile});
  if (o.timeout > 0) v.insert(v.end(), {"--timeout", std::to_string(o.timeout)});
  if (o.sync) v.push_back("--sync");
  if (!o.color) v.push_back("--no-color");
  if (o.quiet) v.push_back("--quiet");
  if (!o.cache) v.push_back("--no-cache");
  v.insert(v.end(), {"run", a.script});
  for (const auto& p : a.params) v.insert(v.end(), {"-p", p});
  if (!o.check) v.push_back("--no-check");
  if (!a.args.empty() || !g.script_args.empty()) {
    v.push_back("--");
    v.insert(v.end(), a.args.begin(), a.args.end());
    v.insert(v.end(), g.script_args.begin(), g.script_args.end());
  }
  return v;
}

// SIGINT, SIGTERM, SIGHUP (leave) and SIGCHLD (a run ended), read through a signalfd;
// blocked while this lives, restored after.
class Signals {
 public:
  Signals() {
    sigemptyset(&set_);
    for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&set_, s);
    ::sigprocmask(SIG_BLOCK, &set_, &old_);
    fd_ = ::signalfd(-1, &set_, SFD_NONBLOCK | SFD_CLOEXEC);
    if (fd_ < 0) throw Failure(kInternal, "cannot create a signalfd");
  }
  ~Signals() {
    ::close(fd_);
    ::sigprocmask(SIG_SETMASK, &old_, nullptr);
  }
  int fd() const { return fd_; }
  // Drains the signalfd; true when a signal asking us to leave arrived. SIGCHLD needs
  // no handling here: the loop checks the run after every wake-up.
  bool leave() {
    bool out = false;
    signalfd_siginfo si;
    while (::read(fd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si))
      out = out || si.ssi_signo != SIGCHLD;
    return out;
  }

 private:
  sigset_t set_, old_;
  int fd_ = -1;
};

class Watch {
 public:
  Watch(const Globals& g, const WatchArgs& a) : g_(g), a_(a), argv_(run_argv(g, a)) {
    script_ = fs::absolute(a.script).lexically_normal().string();
    if (const std::vector<std::string> words = counter_words(a.counters); !words.empty()) {
      // Each run writes its counters per kernel as JSON into a file of ours (not its table).
      counter_file_ = std::make_unique<watch::TempFile>();
      counters_ = std::make_unique<watch::CounterDiff>(counter_file_->path());
      std::string list;
      for (const auto& w : words) list += (list.empty() ? "" : ",") + w;
      const auto at = std::find(argv_.begin(), argv_.end(), "run") + 2;  // after `run SCRIPT`
      argv_.insert(at, {"--counters", list, "--counters-by", "kernel", "--json", counter_file_->path()});
    }
    deps_ = {script_};
    files_.set_files(deps_);
  }

  // One poll over the signalfd and inotify; the timeout is the nearer of the pending
  // batch's deadline and the run's --timeout. Everything else happens between polls.
  int loop(Signals& sig) {
    code_ = std::make_unique<watch::CodeDiff>(a_.diff);
    start(nullptr);
    for (;;) {
      int timeout = files_.timeout_ms();
      if (run_ && a_.timeout > 0) {
        // In double, clamped to poll's int: a --timeout of weeks must not wrap around.
        const double left = a_.timeout * 1000 - static_cast<double>(ms_since(run_->started()));
        const int left_ms = static_cast<int>(std::clamp(left, 0.0, static_cast<double>(INT_MAX)));
        timeout = timeout < 0 ? left_ms : std::min(timeout, left_ms);
      }
      pollfd fds[2] = {{sig.fd(), POLLIN, 0}, {files_.fd(), POLLIN, 0}};
      ::poll(fds, 2, timeout);
      if ((fds[0].revents & POLLIN) && sig.leave()) break;
      if (run_) {
        if (const auto st = run_->finished())
          finish(*st, {});
        else if (a_.timeout > 0 && ms_since(run_->started()) >= a_.timeout * 1000)
          finish(run_->kill(), "timed out after " + fmt_seconds(a_.timeout) + " s");
      }
      if (fds[1].revents & POLLIN) files_.read_events();
      if (const auto batch = files_.take_due()) changed(*batch);
    }
    if (run_) run_->kill();  // no child left behind
    if (!g_.opts.quiet) note("stopped");
    return kOk;
  }

 private:
  static std::string fmt_seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
  }

  void note(const std::string& line) const {
    std::fflush(stdout);
    std::fprintf(stderr, "warplab: %s\n", line.c_str());
  }

  // A settled batch: re-run, unless the script itself is gone (an editor mid-save that
  // the debounce did not cover, or a real delete): then wait for it to come back.
  void changed(const watch::Batch& b) {
    std::error_code ec;
    if (!fs::exists(script_, ec)) {
      note(a_.script + " is gone; waiting for it to come back");
      return;
    }
    if (run_) {
      run_->kill();
      note("run cancelled: a file was saved");
      run_.reset();
    }
    start(&b);
  }

  // Starts run N. The header (with the latency) is printed before the fork, so it never
  // interleaves with the run's own output.
  void start(const watch::Batch* b) {
    ++runs_;
    if (a_.clear) std::fputs("\x1b[H\x1b[2J\x1b[3J", stdout);
    if (!g_.opts.quiet) {
      std::string line = "[" + wall_clock() + "] run " + std::to_string(runs_);
      if (b) {
        line += ": re-run " + std::to_string(ms_since(b->last_event)) + " ms after save (";
        for (size_t i = 0; i < b->paths.size(); ++i)
          line += (i ? ", " : "") + fs::path(b->paths[i]).filename().string();
        line += ")";
      } else {
        line += ": " + a_.script;
      }
      std::fflush(stdout);
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    deps_file_ = std::make_unique<watch::TempFile>();
    watch::ChildRun::Env env{{"WARPLAB_DEPS_FILE", deps_file_->path()}};
    if (code_) env.push_back({"WARPLAB_CODE_DIR", code_->dir()});
    run_ = std::make_unique<watch::ChildRun>("/proc/self/exe", argv_, env);
  }

  // A run ended: report it, and watch what it read (plus what a failed run did not get
  // to read, so fixing that file still triggers a run).
  void finish(int status, const std::string& why) {
    const double secs = ms_since(run_->started()) / 1000.0;
    run_.reset();
    const bool ok = why.empty() && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    std::vector<std::string> deps = watch::read_deps_file(deps_file_->path());
    deps_file_.reset();
    deps.push_back(script_);
    if (!ok) deps.insert(deps.end(), deps_.begin(), deps_.end());
    const size_t before = files_.files().size();
    deps_ = deps;
    for (const auto& dir : files_.set_files(deps_)) note("cannot watch " + dir);

    // Our stdout buffer first, so the status line follows whatever we printed before.
    std::fflush(stdout);
    if (ok) {
      last_good_ = wall_clock();
      if (!g_.opts.quiet) std::fprintf(stderr, "[%s] run %d ok (%.2f s)\n", last_good_.c_str(), runs_, secs);
      if (code_) std::fputs(code_->collect().c_str(), stderr);
      if (counters_) std::fputs(counters_->collect().c_str(), stderr);
    } else {
      if (counters_) counters_->skip();
      std::fprintf(stderr, "run failed (%s) at %s; %s\n",
                   why.empty() ? watch::describe_status(status).c_str() : why.c_str(), wall_clock().c_str(),
                   last_good_.empty() ? "no good run yet" : ("last good run " + last_good_).c_str());
    }
    if (!g_.opts.quiet && files_.files().size() != before)
      std::fprintf(stderr, "watching %zu file%s in %zu director%s; Ctrl-C to stop\n", files_.files().size(),
                   files_.files().size() == 1 ? "" : "s", files_.directory_count(),
                   files_.directory_count() == 1 ? "y" : "ies");
  }

  const Globals& g_;
  const WatchArgs& a_;
  std::vector<std::string> argv_;
  std::string script_;
  std::vector<std::string> deps_;
  watch::FileWatcher files_;
  std::unique_ptr<watch::ChildRun> run_;
  std::unique_ptr<watch::CodeDiff> code_;  // resource lines; with --diff the PTX/SASS diffs too
  std::unique_ptr<watch::TempFile> deps_file_;
  std::unique_ptr<watch::TempFile> counter_file_;  // --counters: what each run writes
  std::unique_ptr<watch::CounterDiff> counters_;
  std::string last_good_;
  int runs_ = 0;
};

// The script must exist at start and each -p be key=value (exit 4, as `run`); later the
// script may come and go.
int run_watch(const Globals& g, const WatchArgs& a) {
  if (const std::string why = lab::script_problem(a.script); !why.empty()) throw Failure(kBadInput, why);
  parse_params(a.params);
  // The signals are blocked first, before anything can start the CUDA driver (asking
  // whether a GPU is there does): its threads inherit the mask, so SIGCHLD always reaches
  // the signalfd. Created after them, a driver thread with SIGCHLD unblocked could take
  // it, and a finished run would go unnoticed (seen on the H100: "run 2" never ended).
  Signals sig;
  // Said here once; each run gets --offline-noted (run_argv) and does not repeat it.
  if (const std::string why = offline_reason(g); !why.empty())
    note_offline(g, why, cu::default_profile_name());
  Watch w(g, a);
  return w.loop(sig);
}

}  // namespace

void add_watch_command(CLI::App& app, Globals& g, Commands& out) {
  auto a = std::make_shared<WatchArgs>();
  auto* sub = app.add_subcommand("watch", "run a script, then again on every save of it or its kernels");
  sub->add_option("script", a->script, "the .lua script")->required()->type_name("SCRIPT.lua");
  add_script_options(sub, a->params, g);
  sub->add_flag("--clear", a->clear, "clear the screen before each run");
  sub->add_flag("--diff", a->diff,
                "also show what an edit changed in the PTX (and SASS with cuobjdump or nvdisasm)");
  // Shadows the global --timeout after `watch` (docs/cli.md): that one, the kernel
  // watchdog, goes before the subcommand.
  sub->add_option("--timeout", a->timeout,
                  "end a run that takes longer than this, seconds (0: never); the kernel "
                  "watchdog is the global --timeout, before `watch`")
      ->check(seconds())
      ->type_name("SECONDS");
  add_counter_options(sub, a->counters, false);
  sub->add_option("args", a->args, "arguments passed to the script as ...; after --, options too")
      ->type_name("ARGS");
  set_help(sub,
           {"warplab watch examples/tour.lua --clear", "warplab watch my.lua --diff --counters shared",
            "warplab --timeout 2 watch my.lua --timeout 30 -p n=4096"},
           "Ctrl-C stops watching. A failing, crashing or hanging run ends that run only.\n");
  out.push_back({sub, [&g, a] { return run_watch(g, *a); }});
}

}  // namespace warplab::app
