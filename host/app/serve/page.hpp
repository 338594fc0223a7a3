// serve/page.hpp: what Page's parts share (cli/page.hpp's Page::Impl): the runs, the
// server when live, the marker a run's events carry, the read ends of the pipes of the runs
// forked (a child closes every one), and where the terminal's output goes.
#pragma once
#include <sys/resource.h>

#include <memory>
#include <set>
#include <string>

#include "app/cli/page.hpp"
#include "app/serve/record.hpp"
#include "app/serve/server.hpp"

namespace warplab::app {

struct Page::Impl {
  PageOptions opts;
  serve::Runs runs;
  std::unique_ptr<serve::Server> server;
  std::string url;
  // WARPLAB_PAGE in a run's environment: the events it sends start with it (page.lua), so
  // text a script prints cannot pass for one.
  std::string marker;
  std::set<int> pipes;  // read ends of the captures alive
  rlimit files{};       // RLIMIT_NOFILE as it was (raised while serving; a run gets it back)
  bool raised = false;

  Impl(const PageOptions& o, const std::string& script) : opts(o), runs(script) {}
};

namespace serve {

// The one marker an event starts with: "\x1e" MARKER "\x1f", then the event's JSON and a
// newline (warplab/page.lua writes them; PageCapture takes them out of stdout).
std::string event_prefix(const std::string& marker);

// Asks the desktop to open `url` ($BROWSER, else xdg-open) in a process of its own that
// outlives nothing of ours; "" or why it could not. With `private_dir`, what it opens is a
// file there (0600) that sends the browser on to `url`: the token stays off every command
// line.
std::string open_browser(const std::string& url, const std::string& private_dir);

// In a forked child: every Internet socket it inherited closed (the page's listening socket
// and connections, which must close when the server closes them).
void close_inet_sockets();

}  // namespace serve
}  // namespace warplab::app
