// program.hpp: nvrtcCompileProgram, called as every compile here calls it. NVRTC 13 reads
// the current folder's name into a buffer of its own and runs strlen over it; when that
// folder was removed (getcwd fails: ENOENT) the buffer holds no end and NVRTC reads past it
// (AddressSanitizer shows it). Then the compile runs from "/" and the folder is entered
// again after: warplab resolves every include itself, so NVRTC needs no current folder.
#pragma once
#include <fcntl.h>
#include <nvrtc.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

namespace warplab::rtc {

inline nvrtcResult compile_program(nvrtcProgram p, int n, const char* const* options) {
  char here[PATH_MAX];
  int gone = -1;  // the removed folder, held open to enter again
  if (!::getcwd(here, sizeof here) && errno == ENOENT) {
    gone = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (gone >= 0 && ::chdir("/") != 0) {
      ::close(gone);
      gone = -1;
    }
  }
  const nvrtcResult rc = nvrtcCompileProgram(p, n, options);
  if (gone >= 0) {
    [[maybe_unused]] const int back = ::fchdir(gone);
    ::close(gone);
  }
  return rc;
}

}  // namespace warplab::rtc
