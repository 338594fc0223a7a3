// watch/files.hpp: the core of `warplab watch`: notices saves of a set of files. It watches
// their DIRECTORIES with inotify, as editors save by writing a temporary file and renaming it
// over the original, which a watch on the file would lose. Swap and backup files are
// ignored, bursts coalesced into one batch. Linux only; no Lua.
#pragma once
#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace warplab::app::watch {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

struct Batch {
  std::vector<std::string> paths;  // the watched files that changed, sorted
  Clock::time_point last_event;    // when the last event of the burst was read
};

// When a burst of events has settled. An event that ends a save (close after writing,
// a rename onto the name) settles after `settle`; any other (create, delete, rename
// away) waits `quiet`, since the save is still under way. A stream of events that never
// goes quiet still gives a batch every `max_wait`.
struct Debounce {
  milliseconds quiet{50};
  milliseconds settle{10};
  milliseconds max_wait{1000};
};

class FileWatcher {
 public:
  explicit FileWatcher(Debounce d = {});
  ~FileWatcher();
  FileWatcher(const FileWatcher&) = delete;
  FileWatcher& operator=(const FileWatcher&) = delete;

  // Replaces the watched set (paths are made absolute; symlinks add their target too).
  // Returns the directories that could not be watched (missing, no permission). A folder
  // reached through a symbolic link (src -> v1) is watched where the link points now, and
  // the link itself too: pointed elsewhere (ln -sfn v2 src), the set is watched again
  // where it points then, and its files count as saved (what the paths mean changed).
  std::vector<std::string> set_files(const std::vector<std::string>& paths);
  const std::set<std::string>& files() const { return files_; }
  size_t directory_count() const { return dirs_.size(); }

  // The inotify descriptor, for poll(); read_events() when it is readable.
  int fd() const { return fd_; }
  void read_events();
  // Milliseconds until the pending batch is due; -1 when nothing is pending. While a
  // watched folder is missing (deleted, not yet created) at most kRecheckMs: take_due()
  // then looks for it again.
  int timeout_ms() const;
  static constexpr int kRecheckMs = 250;
  // Folders of the set that could not be watched because they do not exist (yet).
  const std::set<std::string>& missing() const { return missing_; }
  // The pending batch once it has settled.
  std::optional<Batch> take_due();
  // Drops these paths from the pending batch (the run wrote them: not a save).
  void forget(const std::set<std::string>& paths);
  // poll + read_events + take_due until a batch is due or `limit` passes (for tests and
  // simple callers).
  std::optional<Batch> wait(milliseconds limit);

  // Names editors write beside the real file: x.swp, x~, 4913, .#x, x___jb_tmp___ ...
  static bool is_ignored(std::string_view name);

 private:
  void note(const std::string& path, bool ends_save);
  // Watches the missing folders that exist again; their files that exist count as saved.
  void rewatch();
  // Watches the folders of the set again where their paths lead now (a link retargeted);
  // the files of a folder that now is another count as saved.
  void relink();
  // Watches the folder holding each symbolic link on the way to `dir`, for that link.
  void watch_links(const std::string& dir);

  int fd_ = -1;
  Debounce d_;
  std::vector<std::string> given_;  // the paths set_files was given
  std::set<std::string> files_;
  std::unordered_map<int, std::string> dirs_;  // watch descriptor -> directory
  // Watch descriptor -> the names in that folder that are links on the way to a watched
  // folder (the descriptor may be one of dirs_ too).
  std::unordered_map<int, std::set<std::string>> links_;
  bool relink_ = false;  // a link on the way to a watched folder changed
  std::set<std::string> pending_;
  std::set<std::string> missing_;  // folders of the set with no watch: gone, or not there yet
  Clock::time_point first_{}, last_{}, due_{};
};

}  // namespace warplab::app::watch
