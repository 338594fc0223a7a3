// program.hpp: an NVRTC program as every compile here makes and owns it (destroyed on every
// path, exceptions included: cuda-samples' nvrtc_helper never destroys its programs), and
// nvrtcCompileProgram as every compile here calls it. NVRTC 13 reads the current folder's
// name into a buffer of its own and runs strlen over it; when that folder was removed
// (getcwd fails: ENOENT) the buffer holds no end and NVRTC reads past it (AddressSanitizer
// shows it). Then the compile runs from "/" and the folder is entered again after: warplab
// resolves every include itself, so NVRTC needs no current folder.
#pragma once
#include <fcntl.h>
#include <nvrtc.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <memory>
#include <type_traits>

namespace warplab::rtc {

struct ProgramDeleter {
  void operator()(nvrtcProgram p) const noexcept { nvrtcDestroyProgram(&p); }
};
using Program = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, ProgramDeleter>;

// nvrtcCreateProgram of `source` named `name`, with `headers` headers (their texts and
// include names): `out` owns the program, or is left empty and the failure returned.
inline nvrtcResult create_program(Program& out, const char* source, const char* name, int headers = 0,
                                  const char* const* texts = nullptr, const char* const* names = nullptr) {
  nvrtcProgram p = nullptr;
  const nvrtcResult rc = nvrtcCreateProgram(&p, source, name, headers, texts, names);
  out.reset(rc == NVRTC_SUCCESS ? p : nullptr);
  return rc;
}

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
