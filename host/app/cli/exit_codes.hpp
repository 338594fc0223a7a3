// cli/exit_codes.hpp: the documented exit codes (keep in sync with docs/exit-codes.md), the
// Failure a command throws to end with one of them, and the one table from the kind of a
// driver-layer error (cu/error.hpp) to its code. Only main decides the exit code.
#pragma once
#include <stdexcept>
#include <string>

#include "cu/error.hpp"

namespace warplab::app {

enum Exit : int {
  kOk = 0,
  kFailed = 1,             // a script error, or an experiment's check failed
  kUsage = 2,              // bad command line
  kNoDevice = 3,           // no driver / no GPU / bad device index, and no profile to fall back to
  kBadInput = 4,           // unreadable or malformed input: file, profile, pattern, parameter
  kCompileError = 5,       // NVRTC rejected the source
  kCudaError = 6,          // a driver call failed at run time
  kTimeout = 7,            // the kernel watchdog fired
  kNoSanitizer = 8,        // a CUDA tool not found: compute-sanitizer, cuobjdump/nvdisasm (--sass)
  kSanitizerFindings = 9,  // run --sanitize: compute-sanitizer reported errors
  kInternal = 70,          // a bug in warplab
};

// An error that decides the exit code; the message is one sentence.
struct Failure : std::runtime_error {
  Failure(int code, const std::string& msg) : std::runtime_error(msg), code(code) {}
  int code;
};

// The one table: each kind of cu::Error and the exit code it ends a command with.
struct KindExit {
  cu::ErrorKind kind;
  Exit code;
};
inline constexpr KindExit kExitForKind[] = {
    {cu::ErrorKind::bad_input, kBadInput},  // a profile, a limit, a size: not the driver
    {cu::ErrorKind::no_device, kNoDevice},  // no driver, no GPU, no such device
    {cu::ErrorKind::driver, kCudaError},    // a driver call failed
};

constexpr int exit_code_for(cu::ErrorKind kind) {
  for (const KindExit& row : kExitForKind)
    if (row.kind == kind) return row.code;
  return kInternal;  // a kind without a row: a bug (exit_codes_test.cpp checks every kind)
}
inline int exit_code_for(const cu::Error& e) { return exit_code_for(e.kind()); }

}  // namespace warplab::app
