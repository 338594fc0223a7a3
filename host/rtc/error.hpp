// error.hpp: the NVRTC layer's warplab::Error (sys/error.hpp), with the nvrtcResult beside
// the kind. Thrown only for misuse (an unsupported architecture, an unreadable file, a
// malformed declared signature: bad_input), for a CUDA tool missing or failing (tool,
// failed) and for NVRTC API failures (internal); a source that does not compile is a value
// (rtc::CompileResult), not an error.
#pragma once
#include <nvrtc.h>

#include <string>

#include "sys/error.hpp"

namespace warplab::rtc {

class Error : public warplab::Error {
 public:
  // `message` is one sentence; `code` stays NVRTC_SUCCESS for bad input (kind bad_input),
  // NVRTC's own failure is kind internal.
  explicit Error(const std::string& message, nvrtcResult code = NVRTC_SUCCESS)
      : warplab::Error(code == NVRTC_SUCCESS ? ErrorKind::bad_input : ErrorKind::internal, message),
        code_(code) {}
  // A sentence of another kind (a CUDA tool not found, or failing).
  Error(ErrorKind kind, const std::string& message) : warplab::Error(kind, message), code_(NVRTC_SUCCESS) {}
  nvrtcResult code() const noexcept { return code_; }

 private:
  nvrtcResult code_;
};

}  // namespace warplab::rtc

// Evaluates `expr` once; on failure throws rtc::Error naming the call, with the text
// from nvrtcGetErrorString.
#define WL_RTC_CHECK(expr)                                                                                 \
  do {                                                                                                     \
    const nvrtcResult wl_rc_ = (expr);                                                                     \
    if (wl_rc_ != NVRTC_SUCCESS)                                                                           \
      throw ::warplab::rtc::Error(std::string(#expr) + " failed: " + nvrtcGetErrorString(wl_rc_), wl_rc_); \
  } while (0)
