// error.hpp: the lab layer's errors: Error, misuse a front end reports as its own one
// sentence, and Timeout, the kernel watchdog's verdict (sync.hpp), which a front end must
// not let a script swallow.
#pragma once
#include <stdexcept>

namespace warplab::lab {

// How every "this needs a GPU" sentence starts (Run::require_gpu; cuda.device(i) offline):
// a front end recognizes it to end a script with "needs a GPU" (exit 3), not a script error.
inline constexpr const char* kNoGpu = "no CUDA device: ";

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A kernel did not finish within --timeout: its context is stuck (the kernel still runs),
// so the run must end. Run::timed_out stays set.
struct Timeout : Error {
  using Error::Error;
};

}  // namespace warplab::lab
