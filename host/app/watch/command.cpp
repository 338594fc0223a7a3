// watch/command.cpp: `warplab watch SCRIPT.lua [-p k=v ...] [--clear] [--diff] [--timeout S]`:
// runs the script again after every save of it, a kernel file or a header (lab/watch_feed.hpp), in
// a child forked ahead of the save (child.hpp: the standby, with its Lua state, context and
// the last run's modules) that compiles with the headers this process keeps warm (warm.hpp).
// A failing, crashing or hanging run ends that run only; --counters and --lines show what
// changed (reports.hpp); --serve shows the runs on a live page too (page.hpp). This process
// never starts the CUDA driver.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "app/cli/child_group.hpp"
#include "app/cli/cleanup.hpp"
#include "app/cli/command.hpp"
#include "app/watch/child.hpp"
#include "app/watch/diff.hpp"
#include "app/watch/files.hpp"
#include "app/watch/page.hpp"
#include "app/watch/reports.hpp"
#include "app/watch/signals.hpp"
#include "app/watch/status.hpp"
#include "app/watch/warm.hpp"
#include "cu/profile.hpp"
#include "cu/trace.hpp"
#include "lab/counters.hpp"
#include "lab/lines.hpp"
#include "lab/run.hpp"
#include "lab/script.hpp"
#include "rtc/cache.hpp"
#include "sys/shown.hpp"

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
  int diff_lines = 40;   // --diff-lines N: at most N lines of each diff (0: all)
  double timeout = 0;    // seconds per run, 0 = none
  CounterArgs counters;  // --counters SET[,SET]: passed to each run, changes shown
  LineArgs lines;        // --lines[=SET]: passed to each run, changes shown
  PageOptions page;      // --serve: the runs on a live page too (watch/page.hpp)
};

long long ms_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

void set_or_unset(const char* name, const std::string& value) {
  if (value.empty())
    ::unsetenv(name);
  else
    ::setenv(name, value.c_str(), 1);
}

class Watch {
 public:
  Watch(const Globals& g, const WatchArgs& a, watch::Signals& sig, Cleanup& keep, Page* page)
      : g_(g),
        a_(a),
        sig_(sig),
        keep_(keep),
        page_(page),
        reports_(counter_words(a.counters), a.lines, keep.dir()) {
    g_.offline_noted = true;  // said once by run_watch, never by a run
    script_ = fs::absolute(a.script).lexically_normal().string();
    deps_ = {script_};
    files_.set_files(deps_);
    args_ = a.args;
    args_.insert(args_.end(), g.script_args.begin(), g.script_args.end());
    if (!keep.dir().empty()) {
      pch_dir_ = keep.dir() + "/pch";
      std::error_code ec;
      if (!fs::create_directories(pch_dir_, ec) && ec) pch_dir_.clear();  // no warm headers then
    }
  }

  // One poll over the signalfd, inotify and the standby's "ready"; the timeout is the
  // nearer of the pending batch's deadline and the run's --timeout.
  int loop() {
    if (!keep_.dir().empty()) code_ = std::make_unique<watch::CodeDiff>(a_.diff, keep_.dir(), a_.diff_lines);
    start(nullptr);
    for (;;) {
      int timeout = files_.timeout_ms();
      if (run_ && a_.timeout > 0) {
        // In double, clamped to poll's int: a --timeout of weeks must not wrap around.
        const double left = a_.timeout * 1000 - static_cast<double>(ms_since(run_->started()));
        const int left_ms = static_cast<int>(std::clamp(left, 0.0, static_cast<double>(INT_MAX)));
        timeout = timeout < 0 ? left_ms : std::min(timeout, left_ms);
      }
      check_standby();  // (its "ready" may have come with the last wake-up)
      const bool waiting = standby_ && !standby_->ready();
      if (standby_ && !waiting) check_standby();  // or just now: said before poll waits
      pollfd fds[5] = {
          {sig_.fd(), POLLIN, 0}, {files_.fd(), POLLIN, 0}, {waiting ? standby_->ready_fd() : -1, POLLIN, 0}};
      page_.poll_fds(run_.get(), fds + 3);  // --serve: the run's output comes through us
      ::poll(fds, 5, timeout);
      page_.pump(run_.get(), false);
      if ((fds[0].revents & POLLIN) && sig_.leave()) break;
      if (run_) {
        if (const auto st = run_->finished())
          finish(*st, {});
        else if (a_.timeout > 0 && ms_since(run_->started()) >= a_.timeout * 1000)
          finish(run_->kill(), "timed out after " + fmt_seconds(a_.timeout) + " s");
      }
      check_standby();
      if (fds[1].revents & POLLIN) files_.read_events();
      if (const auto batch = files_.take_due()) changed(*batch);
      // The next run gets ready while the user edits: after a run, never beside one.
      if (!run_ && !standby_ && standby_wanted_) standby_ = fork_run();
    }
    drop(run_);  // no child left behind
    drop(standby_);
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

  // A process that will be run N (runs_ + 1 when it goes): ready as soon as it can be,
  // and the script read only when it goes. Its deps file is its own.
  // Without a folder of ours a run gets neither file ("" unsets them: only the script is
  // watched, and nothing is compared).
  std::unique_ptr<watch::ChildRun> fork_run() {
    ++forks_;
    const std::string deps = keep_.dir().empty() ? "" : keep_.dir() + "/deps." + std::to_string(forks_);
    const PreparedRun pr{a_.script,           a_.params,        args_,  modules_,
                         reports_.counters(), reports_.lines(), a_.args};
    const std::string code = code_ ? code_->dir() : "";
    const Globals& g = g_;
    auto body = [&g, pr, deps, code](const watch::ChildRun::Ready& ready) {
      cu::trace_reset("run forked");
      set_or_unset("WARPLAB_DEPS_FILE", deps);  // lab/watch_feed.hpp, lab/prebuilt.hpp
      set_or_unset("WARPLAB_CODE_DIR", code);
      return run_command([&] { return run_prepared(g, pr, ready); });
    };
    auto child = std::make_unique<watch::ChildRun>(page_.prepare(body),
                                                   std::vector<int>{sig_.fd(), files_.fd(), keep_.fd()});
    page_.forked(child.get());
    keep_.adopt_group(child->pid());
    deps_of_[child.get()] = deps;
    return child;
  }

  // Kills and reaps a child (if any), and what it started that left its group (ours once
  // it died: reap_orphans), and forgets it.
  void drop(std::unique_ptr<watch::ChildRun>& c) {
    if (!c) return;
    c->kill();
    const auto pid = [&c](const std::unique_ptr<watch::ChildRun>& o) { return &o != &c && o ? o->pid() : 0; };
    kill_adopted({pid(run_), pid(standby_), keep_.keeper()}, c->pid());
    keep_.forget_group(c->pid());
    std::error_code ec;
    if (const std::string& deps = deps_of_[c.get()]; !deps.empty()) fs::remove(deps, ec);
    deps_of_.erase(c.get());
    page_.forget(c.get());
    c.reset();
  }

  // A standby that died before its run (a broken device, a failing state) is not forked
  // again until a run has ended: the next save starts one at once instead.
  void check_standby() {
    if (!standby_) return;
    if (standby_->finished()) {
      if (cu::tracing()) note("standby " + std::to_string(runs_ + 1) + " ended before its run");
      drop(standby_);
      standby_wanted_ = false;
    } else if (!ready_said_ && standby_->ready()) {
      ready_said_ = true;
      if (cu::tracing())
        note("trace: standby for run " + std::to_string(runs_ + 1) + " ready (" +
             std::to_string(ms_since(standby_->forked())) + " ms after it was forked)");
    }
  }

  // A settled batch: re-run, unless the script is gone (an editor mid-save, a delete):
  // then wait for it. A file the running run said it writes (lab/watch_feed.hpp) is not a
  // save: a script that writes the kernel it compiles would cancel itself without end.
  void changed(watch::Batch b) {
    if (run_) {
      const std::set<std::string> mine = watch::read_deps_file(deps_of_[run_.get()]).written;
      std::erase_if(b.paths, [&mine](const std::string& p) { return mine.count(p) > 0; });
      if (b.paths.empty()) return;
    }
    std::error_code ec;
    if (!fs::exists(script_, ec)) {
      note(sys::shown(a_.script) + " is gone; waiting for it to come back");
      return;
    }
    if (run_) {
      run_->kill();
      page_.pump(run_.get(), true);  // what it printed, before the note
      note("run cancelled: a file was saved");
      page_.cancelled("run cancelled: a file was saved");
      drop(run_);
      if (code_) code_->discard();  // what it wrote is no run's to compare
    }
    start(&b);
  }

  // Starts run N: the standby when there is one, else a process forked now. The header
  // (with the latency) is printed before the run goes, so it never interleaves with the
  // run's own output.
  void start(const watch::Batch* b) {
    ++runs_;
    if (a_.clear) std::fputs("\x1b[H\x1b[2J\x1b[3J", stdout);
    page_.started(runs_, watch::run_header(runs_, b, a_.script), !g_.opts.quiet);
    if (standby_ && standby_->finished()) drop(standby_);
    run_ = standby_ ? std::move(standby_) : fork_run();
    ready_said_ = false;
    run_->go();
  }

  // A run ended: report it, watch what it read (and what a failed run did not get to
  // read, so fixing that file still starts one); then keep its headers warm.
  void finish(int status, const std::string& why) {
    page_.pump(run_.get(), true);  // all it printed, before its end line
    const double secs = ms_since(run_->started()) / 1000.0;
    const watch::RunEnd end{status, run_->returned(), why};
    const bool ok = end.ok();
    watch::RunFiles files = watch::read_deps_file(deps_of_[run_.get()]);
    if (!files.problem.empty()) note(files.problem);
    // What the run wrote is not a save: its events (all queued, now that it has ended) go.
    files_.read_events();
    files_.forget(files.written);
    std::vector<std::string> deps = watch::files_to_watch(std::move(files.read), script_, ok, deps_);
    drop(run_);
    const size_t before = files_.files().size();
    deps_ = deps;
    for (const auto& dir : files_.set_files(deps_)) note("cannot watch " + sys::shown(dir));
    // What it built, for the next run and the warm headers (lab/prebuilt.hpp); a run that
    // built nothing keeps the last list.
    if (code_) {
      watch::FeedFile m = watch::take_feed_file((fs::path(code_->dir()) / "modules").string());
      if (!m.problem.empty()) note(m.problem);
      if (!m.text.empty()) modules_ = std::move(m.text);
    }

    // Our stdout buffer first, so the status line follows whatever we printed before.
    std::fflush(stdout);
    const std::string now = watch::wall_clock();
    const std::string line = watch::end_line(runs_, end, secs, now, last_good_);
    page_.ended(ok, line, !ok || !g_.opts.quiet);
    if (ok) last_good_ = now;
    // What the compile made, whatever came after it: an error after the compile, or the
    // first launch of an offline run, leaves the feedback of the kernels it compiled.
    if (code_) page_.say(code_->collect(ok));
    if (ok && !reports_.counters().json.empty()) page_.counters(reports_.counters().json);
    page_.say(reports_.after(ok));  // --counters, --lines: what changed
    if (!g_.opts.quiet && files_.files().size() != before)
      std::fprintf(stderr, "%s\n",
                   watch::files_line(files_.files().size(), files_.directory_count()).c_str());
    std::fflush(stderr);
    if (!pch_dir_.empty()) watch::warm_headers(modules_, pch_dir_);  // (none without a folder of ours)
    standby_wanted_ = true;
  }

  Globals g_;
  const WatchArgs& a_;
  watch::Signals& sig_;
  Cleanup& keep_;
  watch::PageFeed page_;  // --serve: the page the runs are shown on (else only stderr)
  std::string script_;
  std::vector<std::string> args_;
  std::vector<std::string> deps_;
  watch::FileWatcher files_;
  std::unique_ptr<watch::ChildRun> run_, standby_;
  std::map<const watch::ChildRun*, std::string> deps_of_;  // each child's dependency file
  std::unique_ptr<watch::CodeDiff> code_;  // resource lines; with --diff the PTX/SASS diffs too
  std::string modules_;                    // what the last run built (lab/prebuilt.hpp)
  std::string pch_dir_;
  watch::RunReports reports_;  // --counters, --lines: what each run is given, what changed
  std::string last_good_;
  int runs_ = 0, forks_ = 0;
  bool standby_wanted_ = false, ready_said_ = false;
};

// The script (a file, or an example by its `warplab list` name, as `run` takes it) must
// exist at start and each -p be key=value (exit 4, as `run`); later the script may come
// and go.
int run_watch(const Globals& g, const WatchArgs& given) {
  WatchArgs a = given;
  a.script = resolve_script(given.script);
  if (const auto why = lab::script_problem(a.script)) {
    const std::string dir = shipped_examples();
    const bool relative = !fs::path(a.script).is_absolute();
    std::error_code ec;
    throw Error(ErrorKind::bad_input,
                *why + (relative && !dir.empty() && !fs::exists(a.script, ec)
                            ? " (nor an example in " + dir + ": `warplab list` names them)"
                            : ""));
  }
  parse_params(a.params);
  check_page_options(a.page);
  // --counters and --lines words every run would refuse alike: said once, before any run.
  try {
    if (!a.counters.words.empty()) lab::check_counter_spelling(counter_words(a.counters));
  } catch (const Error& e) {
    throw Error(e.kind(), std::string("--counters: ") + e.what());
  }
  try {
    if (a.lines.on()) (void)lab::line_columns(a.lines.words());
  } catch (const Error& e) {
    throw Error(e.kind(), std::string("--lines: ") + e.what());
  }
  // The keeper first, while this process has no thread: it removes the runs' files and
  // kills their groups however watch ends, SIGKILL included.
  Cleanup keep("watch");
  reap_orphans();  // what a killed run started outside its group comes to us, to be ended
  // The compile cache's note (a bad TMPDIR without HOME), said here once: the runs are
  // forked from this process, which has said it (lab/run.hpp's open_cache says it once).
  const std::unique_ptr<rtc::Cache> cache = lab::open_cache(g.opts);
  const std::string cache_note = cache ? cache->warning() : "";
  if (keep.dir().empty())
    std::fprintf(stderr, "warplab: %s: watching %s alone (no kernel files, resource lines or warm headers)\n",
                 keep.note().c_str(), a.script.c_str());
  else if (!keep.note().empty() && cache_note.rfind(keep.note(), 0) != 0)  // not said by the cache's
    std::fprintf(stderr, "warplab: %s\n", keep.note().c_str());
  // The signals are blocked before any child is forked: the runs unblock them, and a
  // child forked before would not know the mask.
  watch::Signals sig;
  // Said here once (asked in a child: this process never starts the driver).
  // (The child's answer crosses as text: "" when a GPU is there.)
  if (const std::string why = g.opts.profile.empty()
                                  ? watch::answer_in_child([&] { return offline_reason(g).value_or(""); })
                                  : "";
      !why.empty())
    note_offline(g, why, cu::default_profile_name());
  const std::unique_ptr<Page> page(a.page.live() ? new Page(a.page, a.script, keep.dir()) : nullptr);
  Watch w(g, a, sig, keep, page.get());
  return w.loop();
}

}  // namespace

void add_watch_command(CLI::App& app, Globals& g, Commands& out) {
  auto a = std::make_shared<WatchArgs>();
  auto* sub = app.add_subcommand("watch", "run a script, then again on every save of it or its kernels");
  sub->add_option("script", a->script,
                  "the .lua script, or an example by its `warplab list` name (warps/ids.lua)")
      ->required()
      ->type_name("SCRIPT.lua");
  add_script_options(sub, a->params, g);
  sub->add_flag("--clear", a->clear, "clear the screen before each run");
  auto* diff = sub->add_flag(
      "--diff", a->diff, "also show what an edit changed in the PTX (and SASS with cuobjdump or nvdisasm)");
  sub->add_option("--diff-lines", a->diff_lines, "with --diff, show at most N lines of each diff (0: all)")
      ->check(count_upto(1000000))
      ->capture_default_str()
      ->needs(diff)
      ->type_name("N");
  // Shadows the global --timeout after `watch` (docs/cli.md): that one, the kernel
  // watchdog, goes before the subcommand.
  sub->add_option("--timeout", a->timeout,
                  "end a run that takes longer than this, seconds (0: never); the kernel "
                  "watchdog is the global --timeout, before `watch`")
      ->check(seconds())
      ->type_name("SECONDS");
  add_counter_options(sub, a->counters, false);
  add_line_options(sub, a->lines, false);
  add_page_options(sub, a->page, false);
  sub->add_option("args", a->args, "arguments passed to the script as ...; after --, options too")
      ->type_name("ARGS");
  set_help(sub,
           {"warplab watch my.lua --clear",
            "warplab watch my.lua --diff --lines   # what an edit changed, in the code and line by line",
            "warplab --timeout 2 watch my.lua --timeout 30 -p n=4096"},
           "Ctrl-C stops watching. A failing, crashing or hanging run ends that run only.\n");
  out.push_back({sub, [&g, a] { return run_watch(g, *a); }});
}

}  // namespace warplab::app
