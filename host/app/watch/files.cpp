// watch/files.cpp: inotify on the directories of the watched files, with debouncing
// (files.hpp). Linux (inotify, poll) only.
#include "app/watch/files.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>

#include "sys/error.hpp"

namespace fs = std::filesystem;

namespace warplab::app::watch {
namespace {

// Everything that can end or start a save. IN_MODIFY is left out on purpose: it fires
// per write() call, and a save always ends with IN_CLOSE_WRITE or IN_MOVED_TO.
constexpr uint32_t kMask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE |
                           IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

std::string absolute(const std::string& p) {
  std::error_code ec;
  const fs::path a = fs::absolute(p, ec);
  return (ec ? fs::path(p) : a).lexically_normal().string();
}

}  // namespace

FileWatcher::FileWatcher(Debounce d) : d_(d) {
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) throw Error(ErrorKind::internal, std::string("cannot start inotify: ") + std::strerror(errno));
}

FileWatcher::~FileWatcher() { ::close(fd_); }

bool FileWatcher::is_ignored(std::string_view name) {
  if (name.empty() || name == "4913") return true;  // vim's "can I write here" probe
  if (name.front() == '.' && name.size() > 1 && name[1] == '#') return true;  // emacs lock
  for (const std::string_view tail : {"~", ".swp", ".swx", ".swo", "___jb_tmp___", "___jb_old___"})
    if (ends_with(name, tail)) return true;
  return false;
}

// A directory is watched while any file of the set lives in it. Every directory is
// added again (inotify_add_watch gives the same descriptor for the same folder, a new one
// when its path now leads elsewhere); descriptors no longer given are removed, so no event
// is lost while the set is replaced after a run.
std::vector<std::string> FileWatcher::set_files(const std::vector<std::string>& paths) {
  given_ = paths;
  files_.clear();
  for (const auto& p : paths) {
    const std::string a = absolute(p);
    files_.insert(a);
    std::error_code ec;
    // An edit through a symlink changes the target, which may live elsewhere.
    if (fs::is_symlink(a, ec)) files_.insert(fs::weakly_canonical(a, ec).string());
  }
  std::set<std::string> want;
  for (const auto& f : files_) want.insert(fs::path(f).parent_path().string());

  std::unordered_map<int, std::string> kept;
  std::vector<std::string> failed;
  missing_.clear();
  for (const auto& dir : want) {
    const int wd = ::inotify_add_watch(fd_, dir.c_str(), kMask);
    if (wd >= 0) {
      kept[wd] = dir;
    } else if (errno == ENOENT) {
      missing_.insert(dir);  // looked for again every kRecheckMs (rewatch)
    } else {
      failed.push_back(dir);
    }
  }
  const std::unordered_map<int, std::set<std::string>> old_links = std::move(links_);
  links_.clear();
  for (const auto& dir : want) watch_links(dir);
  for (const auto& [wd, dir] : dirs_)
    if (!kept.count(wd) && !links_.count(wd)) ::inotify_rm_watch(fd_, wd);
  for (const auto& [wd, names] : old_links)
    if (!kept.count(wd) && !links_.count(wd) && !dirs_.count(wd)) ::inotify_rm_watch(fd_, wd);
  dirs_ = std::move(kept);
  return failed;
}

void FileWatcher::watch_links(const std::string& dir) {
  fs::path prefix;
  for (const fs::path& part : fs::path(dir)) {
    prefix /= part;
    std::error_code ec;
    if (!fs::is_symlink(prefix, ec)) continue;
    const std::string parent = prefix.parent_path().string();
    const int wd = ::inotify_add_watch(fd_, parent.c_str(), kMask);
    if (wd >= 0) links_[wd].insert(prefix.filename().string());
  }
}

void FileWatcher::relink() {
  relink_ = false;
  std::map<std::string, int> before;
  for (const auto& [wd, dir] : dirs_) before[dir] = wd;
  set_files(std::vector<std::string>(given_));
  std::map<std::string, int> after;
  for (const auto& [wd, dir] : dirs_) after[dir] = wd;
  std::error_code ec;
  for (const auto& f : files_) {
    const std::string dir = fs::path(f).parent_path().string();
    const auto b = before.find(dir), a = after.find(dir);
    const bool moved =
        (b == before.end()) != (a == after.end()) || (a != after.end() && a->second != b->second);
    if (moved && fs::exists(f, ec)) note(f, true);
  }
}

// Moves the deadline of the pending batch: every event restarts the quiet window, but
// never past first event + max_wait (see Debounce).
void FileWatcher::note(const std::string& path, bool ends_save) {
  const auto now = Clock::now();
  if (pending_.empty()) first_ = now;
  pending_.insert(path);
  last_ = now;
  due_ = std::min(now + (ends_save ? d_.settle : d_.quiet), first_ + d_.max_wait);
}

// Drains the non-blocking inotify descriptor. Each record is an inotify_event followed by
// `len` bytes of NUL-padded name; the name is relative to the watched directory.
void FileWatcher::read_events() {
  alignas(inotify_event) char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n <= 0) return;  // EAGAIN: drained
    for (ssize_t off = 0; off < n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      if (ev->mask & IN_Q_OVERFLOW) {  // events were lost: assume everything changed
        for (const auto& f : files_) note(f, false);
        continue;
      }
      if (ev->mask & IN_IGNORED) {  // the directory went away; its watch is gone
        links_.erase(ev->wd);
        const auto gone = dirs_.find(ev->wd);
        if (gone != dirs_.end()) {
          missing_.insert(gone->second);  // until it comes back (rewatch)
          dirs_.erase(gone);
        }
        continue;
      }
      if (ev->len > 0)
        if (const auto l = links_.find(ev->wd); l != links_.end() && l->second.count(ev->name))
          relink_ = true;
      const auto dir = dirs_.find(ev->wd);
      if (dir == dirs_.end() || ev->len == 0) continue;
      const std::string name = ev->name;
      if (is_ignored(name)) continue;
      const std::string path = dir->second + "/" + name;
      if (!files_.count(path)) continue;
      note(path, (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) != 0);
    }
  }
}

int FileWatcher::timeout_ms() const {
  if (relink_) return 0;  // take_due() watches the set again where the link leads now
  const int recheck = missing_.empty() ? -1 : kRecheckMs;
  if (pending_.empty()) return recheck;
  const auto left = std::chrono::ceil<milliseconds>(due_ - Clock::now()).count();
  const int due = static_cast<int>(std::max<long long>(0, left));
  return recheck < 0 ? due : std::min(due, recheck);
}

void FileWatcher::rewatch() {
  for (auto it = missing_.begin(); it != missing_.end();) {
    const int wd = ::inotify_add_watch(fd_, it->c_str(), kMask);
    if (wd < 0) {
      ++it;
      continue;
    }
    dirs_[wd] = *it;
    // Files written before the watch existed would otherwise go unnoticed.
    std::error_code ec;
    for (const auto& f : files_)
      if (fs::path(f).parent_path() == *it && fs::exists(f, ec)) note(f, true);
    it = missing_.erase(it);
  }
}

std::optional<Batch> FileWatcher::take_due() {
  if (relink_) relink();
  if (!missing_.empty()) rewatch();
  if (pending_.empty() || Clock::now() < due_) return std::nullopt;
  Batch b{{pending_.begin(), pending_.end()}, last_};
  pending_.clear();
  return b;
}

void FileWatcher::forget(const std::set<std::string>& paths) {
  for (const auto& p : paths) pending_.erase(p);
}

std::optional<Batch> FileWatcher::wait(milliseconds limit) {
  const auto end = Clock::now() + limit;
  for (;;) {
    read_events();
    if (auto b = take_due()) return b;
    const auto left = std::chrono::ceil<milliseconds>(end - Clock::now()).count();
    if (left <= 0) return std::nullopt;
    const int t = timeout_ms();
    pollfd p{fd_, POLLIN, 0};
    ::poll(&p, 1, t < 0 ? static_cast<int>(left) : std::min<int>(t, static_cast<int>(left)));
  }
}

}  // namespace warplab::app::watch
