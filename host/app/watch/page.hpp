// watch/page.hpp: `watch --serve`: what the watcher does for the page (cli/page.hpp) beside
// each run: the run's output through pipes (each child's, made as it is forked), its header
// and end line, and the lines said about it (resources, counters); with no page, the same
// lines on stderr and nothing else.
#pragma once
#include <poll.h>

#include <map>
#include <memory>
#include <string>

#include "app/cli/page.hpp"
#include "app/watch/child.hpp"

namespace warplab::app::watch {

class PageFeed {
 public:
  explicit PageFeed(Page* page) : page_(page) {}

  // The body of a child about to be forked, made to send its output to the page (from the
  // moment it may start: its Lua state is opened on the terminal, so it colours as there);
  // forked() then says which child got it.
  ChildRun::Body prepare(ChildRun::Body body);
  void forked(const ChildRun* child);
  void forget(const ChildRun* child);
  // The two poll entries of a run's output (-1 without a page), and what came through them:
  // all of it with `to_end` (a run that ended, before its end line).
  void poll_fds(const ChildRun* run, pollfd* two) const;
  void pump(const ChildRun* run, bool to_end);

  // The watcher's lines on stderr (unless !print), and on the page.
  void started(int run, const std::string& header, bool print);
  // A run's end: `line` is end_line's ("run stopped ..." for a compile error or a missing
  // GPU); a run a save cancelled.
  void ended(bool ok, const std::string& line, bool print);
  void cancelled(const std::string& line);
  void say(const std::string& lines);
  // `watch --counters`: the file the run wrote (read before CounterDiff takes it).
  void counters(const std::string& path);

 private:
  PageCapture* capture(const ChildRun* c) const;
  Page* page_;
  std::shared_ptr<PageCapture> next_;
  std::map<const ChildRun*, std::shared_ptr<PageCapture>> captures_;
};

}  // namespace warplab::app::watch
