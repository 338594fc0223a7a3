// serve/capture.cpp: PageCapture (cli/page.hpp): a run's stdout and stderr through pipes, on
// to the terminal byte for byte as they come and into the page. An event from the run's
// library (page.lua) is one line in stdout starting with the page's marker: it is taken
// out, its "text" (the line the terminal would have shown: a check's, a table's) written
// in its place, and the event given to the page.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "app/serve/page.hpp"

namespace warplab::app {
namespace {

constexpr std::size_t kMaxEvent = 16u << 20;  // an event longer than this is dropped

// The whole of it to `fd`, waiting while the terminal is busy.
void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w > 0) {
      p += w;
      n -= static_cast<std::size_t>(w);
    } else if (w < 0 && errno == EAGAIN) {
      pollfd f = {fd, POLLOUT, 0};
      ::poll(&f, 1, 100);
    } else if (!(w < 0 && errno == EINTR)) {
      return;  // a closed terminal: nothing to show it on
    }
  }
}

}  // namespace

PageCapture::PageCapture(Page::Impl& page, int out[2], int err[2])
    : page_(page), out_(out[0]), err_(err[0]), out_w_(out[1]), err_w_(err[1]) {
  for (const int fd : {out_, err_}) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    page_.pipes.insert(fd);
  }
}

PageCapture::~PageCapture() {
  for (const int fd : {out_, err_, out_w_, err_w_})
    if (fd >= 0) {
      page_.pipes.erase(fd);
      ::close(fd);
    }
}

std::unique_ptr<PageCapture> Page::capture() {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return nullptr;
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return nullptr;
  }
  return std::make_unique<PageCapture>(*impl_, out, err);
}

void PageCapture::in_child() {
  for (const int fd : page_.pipes) ::close(fd);  // ours and other runs' read ends
  serve::close_inet_sockets();
  if (page_.raised) ::setrlimit(RLIMIT_NOFILE, &page_.files);
  ::setenv("WARPLAB_PAGE", page_.marker.c_str(), 1);
}

void PageCapture::redirect() {
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(out_w_, STDOUT_FILENO);
  ::dup2(err_w_, STDERR_FILENO);
  ::close(out_w_);
  ::close(err_w_);
  out_w_ = err_w_ = -1;
  // A pipe would buffer stdout whole: line by line, as on a terminal, so the page and the
  // terminal see each line as it is printed.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
}

void PageCapture::forked() {
  ::close(out_w_);
  ::close(err_w_);
  out_w_ = err_w_ = -1;
}

void PageCapture::feed_out(const char* p, std::size_t n) {
  const std::string prefix = serve::event_prefix(page_.marker);
  std::string buf = std::move(held_);
  held_.clear();
  buf.append(p, n);
  std::size_t at = 0;
  auto text = [&](std::size_t from, std::size_t to) {
    if (to <= from) return;
    write_all(STDOUT_FILENO, buf.data() + from, to - from);
    page_.runs.text(0, std::string_view(buf).substr(from, to - from));
  };
  while (at < buf.size()) {
    if (in_event_ || skip_) {
      const std::size_t nl = buf.find('\n', at);
      const std::size_t end = nl == std::string::npos ? buf.size() : nl;
      if (in_event_) event_.append(buf, at, end - at);
      if (event_.size() > kMaxEvent) {  // not an event we keep: the rest of its line goes
        event_.clear();
        in_event_ = false;
        skip_ = true;
      }
      if (nl == std::string::npos) return;
      at = nl + 1;
      if (skip_) {
        skip_ = false;
        continue;
      }
      in_event_ = false;
      const nlohmann::json ev = nlohmann::json::parse(event_, nullptr, false);
      event_.clear();
      if (ev.is_object()) {
        if (const auto t = ev.find("text"); t != ev.end() && t->is_string()) {
          const std::string line = t->get<std::string>() + "\n";
          write_all(STDOUT_FILENO, line.data(), line.size());
        }
        page_.runs.event(ev);
      }
      continue;
    }
    const std::size_t m = buf.find('\x1e', at);
    if (m == std::string::npos) {
      text(at, buf.size());
      return;
    }
    text(at, m);
    const std::size_t have = buf.size() - m;
    if (have < prefix.size() && buf.compare(m, have, prefix, 0, have) == 0) {
      held_ = buf.substr(m);  // perhaps a marker: the next read says
      return;
    }
    if (buf.compare(m, prefix.size(), prefix) == 0) {
      in_event_ = true;
      at = m + prefix.size();
    } else {
      text(m, m + 1);
      at = m + 1;
    }
  }
}

void PageCapture::pump(bool to_end) {
  char buf[65536];
  // Not to the end: a bounded helping, so a run printing without a pause cannot keep the
  // watcher from its signals and its files. To the end: what the pipes hold when the run
  // ends, and for 2 s at most what a process it left behind still writes.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (int reads = 0; to_end ? std::chrono::steady_clock::now() < until : reads < 16; ++reads) {
    bool got = false;
    for (int s = 0; s < 2; ++s) {
      if (eof_[s]) continue;
      const ssize_t n = ::read(s == 0 ? out_ : err_, buf, sizeof buf);
      if (n > 0) {
        got = true;
        if (s == 0) {
          feed_out(buf, static_cast<std::size_t>(n));
        } else {
          write_all(STDERR_FILENO, buf, static_cast<std::size_t>(n));
          page_.runs.text(1, std::string_view(buf, static_cast<std::size_t>(n)));
        }
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        eof_[s] = true;  // the last writer is gone
      }
    }
    if (got) continue;
    if (!to_end || (eof_[0] && eof_[1])) break;
    // The run has ended; a process it left behind may still write for a moment.
    pollfd f[2] = {{eof_[0] ? -1 : out_, POLLIN, 0}, {eof_[1] ? -1 : err_, POLLIN, 0}};
    if (::poll(f, 2, 50) <= 0) break;
  }
  if (to_end && !held_.empty()) {  // a marker's start that never went on: it was text
    const std::string rest = std::move(held_);
    held_.clear();
    write_all(STDOUT_FILENO, rest.data(), rest.size());
    page_.runs.text(0, rest);
  }
}

}  // namespace warplab::app
