// own_folder.hpp: a folder that belongs to this user alone, opened by descriptor for work
// inside it (the compile cache). It must be owned by the effective user and not writable by
// group or others; a symbolic link to it counts only when the link is this user's or root's
// (another user's link in /tmp never leads warplab into a folder of that user's choosing).
// The check is made on the open descriptor, so the folder checked is the folder used.
// No Lua, no CUDA.
#pragma once
#include <string>

#include "sys/fd.hpp"

namespace warplab::sys {

struct OwnFolder {
  enum class Status {
    ok,
    missing,  // nothing there (and not created)
    not_dir,  // a file, a device, a FIFO, ...
    foreign,  // another user's folder, or another user's symbolic link to one
    shared,   // writable by group or others
    failed,   // the system refused (a loop of links, a path too long, no permission, ...)
  };
  Status status = Status::failed;
  Fd fd;                // open (O_DIRECTORY) when ok
  std::string problem;  // one sentence naming the folder when not ok
};

// Opens `path` when it is this user's own folder. With `create`, a missing folder is made
// 0700 (its missing parents with the usual permissions) and then opened.
OwnFolder open_own_folder(const std::string& path, bool create);

}  // namespace warplab::sys
