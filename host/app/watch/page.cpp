// watch/page.cpp: PageFeed (page.hpp).
#include "app/watch/page.hpp"

#include <cstdio>

#include "sys/read.hpp"

namespace warplab::app::watch {

ChildRun::Body PageFeed::prepare(ChildRun::Body body) {
  next_ = page_ ? std::shared_ptr<PageCapture>(page_->capture()) : nullptr;
  if (!next_) return body;
  return [cap = next_, body](const ChildRun::Ready& ready) {
    cap->in_child();
    const ChildRun::Ready go = [&ready, &cap] {
      const bool going = ready();
      if (going) cap->redirect();
      return going;
    };
    return body(go);
  };
}

void PageFeed::forked(const ChildRun* child) {
  if (!next_) return;
  next_->forked();
  captures_[child] = std::move(next_);
}

void PageFeed::forget(const ChildRun* child) { captures_.erase(child); }

PageCapture* PageFeed::capture(const ChildRun* c) const {
  const auto it = captures_.find(c);
  return it == captures_.end() ? nullptr : it->second.get();
}

void PageFeed::poll_fds(const ChildRun* run, pollfd* two) const {
  const PageCapture* cap = capture(run);
  two[0] = {cap ? cap->out_fd() : -1, POLLIN, 0};
  two[1] = {cap ? cap->err_fd() : -1, POLLIN, 0};
}

void PageFeed::pump(const ChildRun* run, bool to_end) {
  if (PageCapture* cap = capture(run)) cap->pump(to_end);
}

void PageFeed::started(int run, const std::string& header, bool print) {
  if (print) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", header.c_str());
  }
  if (page_) page_->begin_run(run, header);
}

void PageFeed::ended(bool ok, const std::string& line, bool print) {
  if (print) std::fprintf(stderr, "%s\n", line.c_str());
  if (page_)
    page_->end_run(ok ? "ok" : line.find("run stopped") != std::string::npos ? "stopped" : "failed", line);
}

void PageFeed::cancelled(const std::string& line) {
  if (page_) page_->end_run("cancelled", line);
}

void PageFeed::say(const std::string& lines) {
  std::fputs(lines.c_str(), stderr);
  if (page_) page_->note(lines);
}

void PageFeed::counters(const std::string& path) {
  if (!page_) return;
  std::string json;
  if (!sys::read_whole(path, json, 64u << 20) && !json.empty()) page_->counters(json);
}

}  // namespace warplab::app::watch
