// temp.cpp: see temp.hpp. std::filesystem::temp_directory_path throws for a TMPDIR that
// is not a folder, which turned a stray environment variable into an internal error; here
// each candidate is tried in turn and the reason it was passed over becomes the note.
#include "sys/temp.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <vector>

namespace warplab::sys {
namespace {

struct Candidate {
  std::string dir;
  bool from_env;  // $TMPDIR (the note names it)
};

std::vector<Candidate> candidates() {
  std::vector<Candidate> c;
  const char* env = std::getenv("TMPDIR");
  if (env && *env) c.push_back({env, true});
  if (c.empty() || c.front().dir != "/tmp") c.push_back({"/tmp", false});
  return c;
}

// nullopt when `dir` is a folder this process can create files in, else why not.
std::optional<std::string> unusable(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return "not a folder";
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return std::strerror(errno);
  return std::nullopt;
}

// Tries `make(dir)` (0 or an errno) in each candidate; the folder it worked in, or "".
std::string first_that_works(const std::function<int(const std::string&)>& make, std::string& note) {
  std::string env_why, tmp_why, env_dir;
  for (const Candidate& c : candidates()) {
    std::string why;
    if (auto bad = unusable(c.dir)) {
      why = std::move(*bad);
    } else {
      const int err = make(c.dir);
      if (err == 0) {
        if (!env_why.empty())
          note = "TMPDIR='" + env_dir + "' cannot hold temporary files (" + env_why + "): using " + c.dir;
        return c.dir;
      }
      why = std::strerror(err);
    }
    if (c.from_env) {
      env_why = why;
      env_dir = c.dir;
    } else {
      tmp_why = why;
    }
  }
  note = "no folder can hold temporary files (" +
         (env_why.empty() ? std::string() : "TMPDIR='" + env_dir + "': " + env_why + "; ") +
         "/tmp: " + tmp_why + ")";
  return {};
}

}  // namespace

TempRoot temp_root() {
  TempRoot r;
  r.dir = first_that_works([](const std::string&) { return 0; }, r.note);
  return r;
}

TempFile make_temp_file(const std::string& prefix) {
  TempFile f;
  first_that_works(
      [&](const std::string& dir) {
        std::string tmpl = dir + "/" + prefix + "XXXXXX";
        const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);  // O_CREAT|O_EXCL, 0600
        if (fd < 0) return errno;
        f.fd = Fd(fd);
        f.path = tmpl;
        return 0;
      },
      f.note);
  return f;
}

TempFolder make_temp_folder(const std::string& prefix) {
  TempFolder t;
  first_that_works(
      [&](const std::string& dir) {
        std::string tmpl = dir + "/" + prefix + "XXXXXX";
        if (!::mkdtemp(tmpl.data())) return errno;  // 0700
        t.path = tmpl;
        return 0;
      },
      t.note);
  return t;
}

}  // namespace warplab::sys
