// error.hpp: the NVRTC layer's one exception type. Thrown only for misuse (an unsupported
// architecture, an unreadable file, a malformed declared signature) and for NVRTC API
// failures; a source that does not compile is a value (rtc::CompileResult), not an error.
#pragma once
#include <nvrtc.h>

#include <stdexcept>
#include <string>

namespace warplab::rtc {

class Error : public std::runtime_error {
 public:
  // `message` is one sentence; `code` stays NVRTC_SUCCESS for bad input.
  explicit Error(const std::string& message, nvrtcResult code = NVRTC_SUCCESS)
      : std::runtime_error(message), code_(code) {}
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
