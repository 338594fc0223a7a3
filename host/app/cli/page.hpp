// cli/page.hpp: the page of a run (app/serve/): `watch --serve` and `run --serve` serve it
// live on the loopback address with a random token, `run --html FILE` writes it as one
// self-contained file. What `watch` and `run` use of app/serve: the options, the Page (the
// runs it keeps and the server), one run's output captured through pipes (PageCapture), the
// event a run's C++ side adds to the page, and `run` with a page. No Lua.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace warplab::app {

struct Globals;
struct PreparedRun;

struct PageOptions {
  bool serve = false;                // --serve
  bool open = false;                 // --open: --serve, and the page opened in a browser
  std::string html;                  // run --html FILE
  bool html_given = false;           // --html '' is an error, not "no --html"
  std::string listen = "127.0.0.1";  // --listen ADDRESS (another than loopback: a warning)
  int port = 0;                      // --port N; 0: a free port
  bool live() const { return serve || open; }
  bool any() const { return live() || !html.empty(); }
};
// --serve, --open, --port, --listen; and --html FILE when `html`.
void add_page_options(CLI::App* sub, PageOptions& o, bool html);
// Error (usage) for --port or --listen without --serve or --open.
void check_page_options(const PageOptions& o);

class PageCapture;

// The runs one command shows: a short history of records (bounded in count and bytes), fed
// by the runs' captured output and what the watcher says about them; served when live.
class Page {
 public:
  // When o.live(): the server listening (the next free port when --port's is taken, said
  // on stderr), then one line on stderr with the URL; with --open the browser is asked to
  // open it, through a file in `private_dir` (a folder only this user reads: the token is
  // not on the browser's command line, which other users can read); without one, the URL
  // itself. Throws Error (bad_input) for an address it cannot listen on. The caller
  // blocks the signals it reads before: the server's thread inherits the mask.
  Page(const PageOptions& o, const std::string& script, const std::string& private_dir = "");
  ~Page();  // the server stopped, its thread joined, its sockets closed
  Page(const Page&) = delete;
  Page& operator=(const Page&) = delete;

  const std::string& url() const;  // "" when not live
  // The pipes of a run about to be forked.
  std::unique_ptr<PageCapture> capture();
  // Run N begins (`header`: the watcher's line about it, or ""), its outcome, and what the
  // watcher said about it in between (resource lines, counters changed: one note each).
  void begin_run(int run, const std::string& header);
  void note(const std::string& text);
  // `watch --counters`: the counters JSON the run wrote (lab/counter_report.hpp).
  void counters(const std::string& json);
  // outcome: "ok", "failed", "stopped" (compile error, needs a GPU), "cancelled".
  void end_run(const std::string& outcome, const std::string& line);
  // The page as one file, with every picture inline (sys::write_file); "" or the sentence.
  std::string write_html(const std::string& path) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// One run's stdout and stderr: pipes the run writes into and the watcher reads, writing
// each byte on to its own stdout and stderr as it comes and into the page's current run
// (the events the run's Lua library sends, warplab/page.lua, are taken out of stdout).
class PageCapture {
 public:
  PageCapture(Page::Impl& page, int out[2], int err[2]);
  ~PageCapture();
  PageCapture(const PageCapture&) = delete;
  PageCapture& operator=(const PageCapture&) = delete;

  // In the forked child, first: the page's sockets and other runs' pipes closed, the
  // page's marker in the environment (WARPLAB_PAGE). Then when its run may start:
  // stdout and stderr into the pipes, stdout line-buffered (redirect()).
  void in_child();
  void redirect();
  // In the parent, after the fork: its ends of the pipes closed.
  void forked();
  // What to poll for the run's output: -1 once that pipe has no writer left.
  int out_fd() const { return eof_[0] ? -1 : out_; }
  int err_fd() const { return eof_[1] ? -1 : err_; }
  // What the pipes hold now; with `to_end`, until the run's last writer is gone or they
  // stay empty for a moment (a process the run left behind may hold them).
  void pump(bool to_end);

 private:
  Page::Impl& page_;
  int out_ = -1, err_ = -1;      // our read ends
  int out_w_ = -1, err_w_ = -1;  // the child's write ends (closed here after the fork)
  std::string held_, event_;     // stdout: a marker's start held back; an event's text
  bool in_event_ = false, skip_ = false;
  bool eof_[2] = {false, false};
  void feed_out(const char* p, std::size_t n);
};

// A run's C++ side shows something on the page (an event as warplab/page.lua sends them:
// {"kind": "counters", "counters": ..., "text": ...}): true when it was sent, and then the
// watcher prints its "text"; false outside a page's run, when the caller prints it itself.
bool page_event(const nlohmann::json& event);

// `run SCRIPT --serve/--html FILE`: the run in a child process whose output is captured;
// then the file written, and with --serve the page served until Ctrl-C. The run's exit code
// (4 for a --html path that is one of the run's inputs, said in one sentence).
int run_with_page(const Globals& g, const PageOptions& o, const PreparedRun& r);

}  // namespace warplab::app
