// own_folder.cpp: see own_folder.hpp. The order matters: lstat says whether the name is a
// link (and whose), the open refuses a link that appeared since, and fstat on the open
// descriptor decides owner and mode of exactly the folder that will be used.
#include "sys/own_folder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace warplab::sys {
namespace {

OwnFolder result(OwnFolder::Status s, std::string problem) {
  OwnFolder f;
  f.status = s;
  f.problem = std::move(problem);
  return f;
}

std::string octal(unsigned mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

}  // namespace

OwnFolder open_own_folder(const std::string& path, bool create) {
  using S = OwnFolder::Status;
  if (path.empty()) return result(S::failed, "is not set");
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0) {
    if (errno != ENOENT) return result(S::failed, std::string("cannot be opened: ") + std::strerror(errno));
    if (!create) return result(S::missing, "does not exist");
    std::error_code ec;
    const std::filesystem::path p(path);
    if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
    // Made private from the start; if someone else made it first, the checks below say so.
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
      return result(S::failed, std::string("cannot be created: ") + std::strerror(errno));
    if (::lstat(path.c_str(), &lst) != 0)
      return result(S::failed, std::string("cannot be opened: ") + std::strerror(errno));
  }
  const bool link = S_ISLNK(lst.st_mode);
  if (link && lst.st_uid != ::geteuid() && lst.st_uid != 0)
    return result(S::foreign,
                  "is a symbolic link of another user's (uid " + std::to_string(lst.st_uid) + ")");
  // O_NOFOLLOW unless it was a trusted link: a link swapped in since the lstat is refused.
  // O_NONBLOCK: a FIFO at the name must not block the open (O_DIRECTORY refuses it anyway).
  Fd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | (link ? 0 : O_NOFOLLOW)));
  if (!fd) {
    if (errno == ENOTDIR) return result(S::not_dir, "is not a folder");
    return result(S::failed, std::string("cannot be opened: ") + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return result(S::failed, std::string("cannot be opened: ") + std::strerror(errno));
  if (st.st_uid != ::geteuid())
    return result(S::foreign, "belongs to another user (uid " + std::to_string(st.st_uid) + ")");
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return result(S::shared, "can be written by others (mode " + octal(st.st_mode) + ")");
  OwnFolder ok;
  ok.status = S::ok;
  ok.fd = std::move(fd);
  return ok;
}

}  // namespace warplab::sys
