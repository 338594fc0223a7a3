// repl/command.cpp: `warplab repl`: an interactive Lua prompt with the warplab API and
// `dev` bound to cuda.device(). The prompt (prompt.hpp, libedit, when stdin is a terminal)
// runs here; the Lua state lives in a worker process (worker.hpp). Piped stdin is read line
// by line with no prompts; the exit status is 1 when any chunk failed.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <vector>

#include "app/cli/child_group.hpp"
#include "app/cli/command.hpp"
#include "app/cli/exit_codes.hpp"
#include "app/cli/lua_state.hpp"
#include "app/repl/counters.hpp"
#include "app/repl/help.hpp"
#include "app/repl/open_chunk.hpp"
#include "app/repl/prompt.hpp"
#include "app/repl/save.hpp"
#include "app/repl/worker.hpp"
#include "cu/error.hpp"
#include "cu/profile.hpp"
#include "lab/sync.hpp"
#include "sys/output.hpp"
#include "sys/text.hpp"
#include "sys/write.hpp"

namespace warplab::app {
namespace {

constexpr const char* kHelp =
    "Lua 5.4 with the warplab API; `dev` is cuda.device().\n"
    "  EXPR              prints its value (tables nested, warplab objects via tostring)\n"
    "  :attrs [PATTERN]  dev.attr entries matching a glob (max_*) or a part of a name\n"
    "  :reload           start a fresh worker (the Lua state is lost)\n"
    "  :replay           run this session's successful inputs again (after a restart)\n"
    "  :help NAME        the API reference rows for NAME (cuda.array, k:launch, a:fill, ...)\n"
    "  :time CHUNK       run CHUNK and print how long it took (add cuda.synchronize() for GPU work)\n"
    "  :counters [SETS] CHUNK  run CHUNK and print the hardware counters of its launches\n"
    "                    (SETS: shared,memory,... or CUPTI names; default memory,warps)\n"
    "  :lines [SETS] CHUNK  run CHUNK and print each kernel's source lines with what the GPU\n"
    "                    did on each (SETS: instructions,shared,global,local; stalls; all)\n"
    "  :save FILE        write this session's successful inputs to FILE as a script `run` runs,\n"
    "                    printing what they printed; :save! FILE replaces an existing FILE\n"
    "  :help             this text\n"
    "  :quit             leave (Ctrl-D too)\n"
    "Tab completes globals, fields (dev.attr.max_<Tab>) and methods (obj:<Tab>).\n"
    "Ctrl-C stops running code (a second Ctrl-C kills the worker); at the prompt it\n"
    "clears the line.\n";

// Runs in each new worker. `notes` is the parent's copy of the globals at fork time;
// after the first start it has offline_noted set, so the offline note is said once.
bind::StatePtr open_worker_state(const Globals& g, const Globals& notes) {
  lab::start_counted_launch_watchdog(g.opts.timeout, kTimeout);  // a hung counted launch costs the worker
  return open_lua_state(g, &notes);  // an Error's kind reaches the prompt (repl::serve)
}

// What both front ends share: commands, accumulating multi-line chunks, printing.
class Session {
 public:
  // `more_waiting`: whether the next input line is already there (a paste, a pipe).
  Session(repl::Worker& w, std::function<bool()> more_waiting)
      : w_(w), more_waiting_(std::move(more_waiting)) {}

  bool continuing() const { return !pending_.empty(); }
  // The chunk that just ended (one history entry, however many lines), and whether it did
  // not parse (then the prompt offers it again for editing).
  const std::string& last_chunk() const { return last_chunk_; }
  bool last_was_syntax_error() const { return last_syntax_error_; }
  bool failed() const { return failed_; }
  void drop_pending() {
    pending_.clear();
    open_.reset();
  }

  // One input line; false when the user asked to leave. A line starting with ':' is a
  // command only at the start of a chunk, and "::" starts a Lua goto label.
  bool line(const std::string& text) {
    if (pending_.empty() && text.rfind(':', 0) == 0 && text.rfind("::", 0) != 0) return command(text);
    pending_ += (pending_.empty() ? "" : "\n") + text;
    if (pending_.find_first_not_of(" \t\r") == std::string::npos) {
      drop_pending();
      return true;
    }
    // While more lines are already there (a paste), a chunk that surely goes on is not
    // sent to be parsed after each of its lines: only when it may be complete.
    open_.add_line(text);
    if (open_.surely_incomplete() && more_waiting_()) return true;
    const repl::Reply r = w_.eval(pending_, false);
    if (r.status != repl::Status::kIncomplete) {
      if (r.status == repl::Status::kOk) inputs_.push_back({{pending_, !r.text.empty()}, r.eval});
      last_chunk_ = pending_;
      last_syntax_error_ = r.status == repl::Status::kSyntax;
      drop_pending();
      show(r);
    }
    return true;
  }

  // End of input: a chunk still open is evaluated as is (its syntax error shows).
  void finish() {
    if (pending_.empty()) return;
    show(w_.eval(pending_, true));
    drop_pending();
  }

  // Values to stdout, errors to stderr (stdout flushed first, so a terminal shows them
  // in order); a dead worker is replaced at once.
  void show(const repl::Reply& r) {
    switch (r.status) {
      case repl::Status::kOk:
        if (!r.text.empty()) std::printf("%s\n", r.text.c_str());
        break;
      case repl::Status::kDied:
        std::fflush(stdout);
        std::fprintf(stderr, "%s\n", worker_died(r.text, "").c_str());
        failed_ = true;
        break;
      case repl::Status::kLost: {
        // The error, then a new process: the only way to a usable GPU context. The input
        // that made the launch the fault names is marked, so :replay does not fault again.
        std::fflush(stdout);
        std::fprintf(stderr, "%s\n", r.text.c_str());
        for (Input& in : inputs_)
          for (const unsigned long long e : r.faulted)
            if (in.eval != 0 && in.eval == e) in.faulted = true;
        restart();
        std::fprintf(stderr, "the GPU context is unusable after that error: new worker started. %s\n",
                     lost_text().c_str());
        failed_ = true;
        break;
      }
      default:
        std::fflush(stdout);
        std::fprintf(stderr, "%s\n", r.text.c_str());
        failed_ = true;
    }
    std::fflush(stdout);
    std::fflush(stderr);
  }

  // A new worker; the inputs' numbers belonged to the old one.
  void restart() {
    w_.restart();
    for (Input& in : inputs_) in.eval = 0;
  }

  // The worker died (`death`: "worker died (signal 11)") during a request (`during`: ""
  // for an evaluation, " while completing"): a new one is started; the sentence that says
  // so and what was lost, for the caller to show.
  std::string worker_died(std::string death, const std::string& during) {  // a copy: restart() clears it
    restart();
    return death + during + "; state lost, new worker started. " + lost_text();
  }

  // What a lost worker took with it, and what :replay will do.
  std::string lost_text() const {
    const std::size_t n = inputs_.size();
    std::string out = "Lost: every global, array, module and kernel of the session (" +
                      sys::plural(n, "successful input") + ")";
    if (n == 0) return out;
    out += "; :replay runs them again";
    for (std::size_t i = 0; i < n; ++i)
      if (inputs_[i].faulted)
        out += ", without input " + std::to_string(i + 1) + " (" + first_line(inputs_[i].text) +
               "), whose kernel launch faulted";
    return out;
  }

 private:
  bool command(const std::string& text) {
    const auto sp = text.find_first_of(" \t");
    const std::string cmd = text.substr(0, sp);
    const auto arg_at = text.find_first_not_of(" \t", sp == std::string::npos ? text.size() : sp);
    std::string arg = arg_at == std::string::npos ? "" : text.substr(arg_at);
    while (!arg.empty() && (arg.back() == ' ' || arg.back() == '\t')) arg.pop_back();
    if (cmd == ":quit" || cmd == ":q") return false;
    if ((cmd == ":help" || cmd == ":h") && arg.empty())
      std::fputs(kHelp, stdout);
    else if (cmd == ":help" || cmd == ":h")
      std::printf("%s\n", repl::api_help(arg).c_str());
    else if (cmd == ":time")
      time_chunk(arg);
    else if (cmd == ":counters")
      wrapped_chunk(repl::counted_chunk(arg), repl::Via::kCounters,
                    ":counters needs a chunk: :counters shared k:launch(1, 32, a)");
    else if (cmd == ":lines")
      wrapped_chunk(repl::lined_chunk(arg), repl::Via::kLines,
                    ":lines needs a chunk: :lines k:launch(1, 32, a)");
    else if (cmd == ":attrs")
      show(w_.attrs(arg));
    else if (cmd == ":reload") {
      restart();
      std::fflush(stdout);
      std::fprintf(stderr, "new worker started; state cleared\n");
    } else if (cmd == ":replay")
      replay();
    else if (cmd == ":save" || cmd == ":save!")
      save(arg, cmd == ":save!");
    else
      show({repl::Status::kError, "unknown command '" + cmd + "' (:help lists them)"});
    std::fflush(stdout);
    return true;
  }

  // Runs the successful inputs again, in order, in the current worker; stops at the first
  // that fails now (the rest are kept, so a fixed session can be replayed again). The input
  // that made the launch a fault named is skipped, saying so: run again it would fault
  // again. It is left out of the session from then on.
  void replay() {
    const std::vector<Input> all = std::move(inputs_);
    inputs_.clear();
    std::size_t done = 0, skipped = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
      const Input& in = all[i];
      if (in.faulted) {
        std::fflush(stdout);
        std::fprintf(stderr, "replay skips input %zu (%s): its kernel launch faulted\n", i + 1,
                     first_line(in.text).c_str());
        ++skipped;
        continue;
      }
      const repl::Reply r = w_.eval(in.text, true);
      inputs_.push_back(in);
      inputs_.back().eval = r.eval;  // numbered in this worker: a fault it caused is marked
      if (r.status != repl::Status::kOk) {
        inputs_.insert(inputs_.end(), all.begin() + static_cast<long>(i) + 1, all.end());
        show(r);
        std::fprintf(stderr, "replay stopped at input %zu of %zu\n", i + 1, all.size());
        return;
      }
      ++done;
    }
    std::printf("replayed %s", sys::plural(done, "input").c_str());
    if (skipped) std::printf(" (skipped %zu whose launch faulted)", skipped);
    std::printf("\n");
  }

  // An input as a message shows it: its first line, cut to 60 characters.
  static std::string first_line(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    if (line.size() > 60 || line.size() < text.size()) line = line.substr(0, 60) + " ...";
    return line;
  }

  // Runs the chunk as an input of the session (kept for :replay when it succeeds) and says
  // how long it took, prompt to prompt.
  void time_chunk(const std::string& chunk) {
    if (chunk.empty()) return show({repl::Status::kError, ":time needs a chunk: :time k:launch(1, 32, a)"});
    const auto t0 = std::chrono::steady_clock::now();
    const repl::Reply r = w_.eval(chunk, true);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r.status == repl::Status::kOk) inputs_.push_back({{chunk, !r.text.empty()}, r.eval});
    show(r);
    std::printf("(%.3f ms)\n", ms);
    std::fflush(stdout);
  }

  // :counters [SETS] CHUNK and :lines [SETS] CHUNK: the chunk run inside cuda.counters or
  // cuda.lines (an input of the session when it succeeds), the table of its launches or the
  // listing of its kernels printed. SETS is a first word made only of counter or column
  // names (repl/counters.cpp), else the chunk starts there.
  void wrapped_chunk(const repl::CountedChunk& c, repl::Via via, const char* usage) {
    if (c.chunk.empty()) return show({repl::Status::kError, usage});
    const repl::Reply r = w_.eval(c.lua, true);
    if (r.status == repl::Status::kOk) inputs_.push_back({{c.chunk, true, false, via, c.sets}, r.eval});
    show(r);
  }

  // :save FILE never replaces a file; :save! FILE does. Through the one writer: a failed
  // write leaves the old file as it was. Checked here (sys/output.hpp), then by the worker,
  // which read the kernels and headers the session compiled, before anything is written.
  void save(const std::string& given, bool replace) {
    if (given.empty()) return show({repl::Status::kError, ":save needs a file name: :save FILE"});
    const std::string file = repl::save_path(given);
    const sys::Replace mode = replace ? sys::Replace::allowed : sys::Replace::never;
    const auto refuse = [&](const std::string& why) {
      const bool exists = why.ends_with("already exists");
      show({repl::Status::kError, ":save: " + why + (exists ? ": :save! " + given + " replaces it" : "")});
    };
    if (const auto why = sys::output_refusal(file, mode)) return refuse(*why);
    if (const repl::Reply c = w_.check_output(file); c.status == repl::Status::kError) return refuse(c.text);
    const std::vector<repl::SavedInput> saved(inputs_.begin(), inputs_.end());
    const sys::WriteResult w = sys::write_file(file, repl::session_script(saved), mode);
    if (!w) return refuse(w.message);  // already there by now, a full disk: the reason
    std::printf("saved %s to %s\n", sys::plural(inputs_.size(), "input").c_str(), file.c_str());
  }

  // A successful input (save.hpp: what :save writes of it; :replay runs its chunk alone)
  // and its number in the worker that ran it (0 once that worker is gone).
  struct Input : repl::SavedInput {
    unsigned long long eval = 0;
  };

  repl::Worker& w_;
  std::function<bool()> more_waiting_;
  std::vector<Input> inputs_;  // every chunk that evaluated without an error
  std::string pending_;
  repl::OpenChunk open_;  // what pending_ leaves open
  std::string last_chunk_;
  bool last_syntax_error_ = false;
  bool failed_ = false;
};

// The terminal front end: libedit reads lines, Tab asks the worker, and a worker that
// died while completing is replaced on the spot (the note is shown above the line).
int interactive(repl::Worker& w, Session& s, const Globals& g) {
  repl::install_interrupt_handler();
  repl::LineEditor ed(repl::history_path(), [&](const std::string& line) {
    repl::Completion c;
    c.candidates = w.complete(line);
    if (!w.alive()) c.note = s.worker_died(w.death(), " while completing");
    return c;
  });
  if (!g.opts.quiet) {
    const repl::Reply who = w.eval("tostring(dev)", false);
    std::printf("warplab %s on %s; :help for commands, Ctrl-D to leave\n", WARPLAB_VERSION,
                who.status == repl::Status::kOk ? who.text.c_str() : "no device");
  }
  std::string line;
  for (;;) {
    std::fflush(stdout);
    const auto st = ed.read(s.continuing() ? ">> " : "> ", line);
    if (st == repl::LineEditor::Input::kEof) {
      std::fputs("\n", stdout);
      break;
    }
    if (st == repl::LineEditor::Input::kInterrupted) {
      s.drop_pending();
      std::fputs("\n", stdout);
      continue;
    }
    if (!s.continuing() && line.rfind(':', 0) == 0 && line.rfind("::", 0) != 0) {
      ed.remember(line);  // a command
      if (!s.line(line)) break;
      continue;
    }
    if (!s.line(line)) break;
    if (s.continuing()) continue;
    // A chunk ended: one history entry for all its lines; one that did not parse comes
    // back at the prompt for editing (Up recalls a multi-line one whole).
    ed.remember(s.last_chunk());
    if (s.last_was_syntax_error() && s.last_chunk().find('\n') == std::string::npos)
      ed.prefill(s.last_chunk());
  }
  return kOk;  // errors at an interactive prompt are part of the conversation
}

// The state is opened in the worker, never here: CUDA must not be initialized in a
// process that forks afterwards (the child could not use it).
int run_repl(const Globals& g) {
  // A standard stream closed at start (main keeps its number, open the other way round) is
  // said at once: with no input the prompt would wait for nothing, with no output say nothing.
  const auto mode = [](int fd) { return ::fcntl(fd, F_GETFL) & O_ACCMODE; };
  if (mode(STDIN_FILENO) == O_WRONLY)
    throw Error(ErrorKind::bad_input,
                "the REPL's standard input is closed: there is nothing to read (give it a "
                "terminal, a pipe or a file: warplab repl < chunks.lua)");
  if (mode(STDOUT_FILENO) == O_RDONLY)
    throw Error(ErrorKind::failed, "the REPL's standard output is closed: its answers could not be shown");
  reap_orphans();  // what a dead worker started outside its group is ended (child_group.hpp)
  if (!g.opts.profile.empty() && !cu::find_embedded_profile(g.opts.profile))  // no :save over it
    sys::note_input(g.opts.profile, "the profile");
  Globals worker = g;
  worker.opts.echo_compile_errors = true;  // `m = cuda.compile{...}` keeps only the nil
  Globals notes = g;                       // the worker reads it at fork time: see open_worker_state
  // A spare worker, its state and the device's context ready, takes over on a restart.
  repl::Worker w([&worker, &notes] { return open_worker_state(worker, notes); },
                 [](lua_State* L) { prepare_device(L); });
  w.start();  // throws Error with the worker's kind: the prompt ends with its code
  notes.offline_noted = true;
  w.keep_spare();
  const bool tty = ::isatty(STDIN_FILENO);
  Session s(w, [tty] { return repl::input_waiting(tty); });
  // A restart that fails throws Error: nothing left to talk to, the prompt ends with its code.
  if (tty) return interactive(w, s, g);
  for (std::string line; std::getline(std::cin, line);)
    if (!s.line(line)) return s.failed() ? kFailed : kOk;
  s.finish();
  return s.failed() ? kFailed : kOk;
}

}  // namespace

void add_repl_command(CLI::App& app, const Globals& g, Commands& out) {
  auto* sub = app.add_subcommand("repl", "interactive Lua prompt with the warplab API");
  set_help(sub, {"warplab repl", "warplab repl --profile h200", "echo 'print(dev)' | warplab repl -q"},
           "Piped input runs line by line; the exit status is then 1 when a chunk failed.\n");
  out.push_back({sub, [&g] { return run_repl(g); }});
}

}  // namespace warplab::app
