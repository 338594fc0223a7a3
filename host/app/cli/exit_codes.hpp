// cli/exit_codes.hpp: the documented exit codes (keep in sync with docs/exit-codes.md) and
// the one table from the kind of a warplab::Error (sys/error.hpp) to its code. Only main
// decides the exit code; `run` ends a script by the same table (run/command.cpp).
#pragma once
#include "sys/error.hpp"

namespace warplab::app {

enum Exit : int {
  kOk = 0,
  kFailed = 1,             // a script error, or an experiment's check failed
  kUsage = 2,              // bad command line
  kNoDevice = 3,           // no driver / no GPU / bad device index, and no profile to fall back to
  kBadInput = 4,           // unreadable or malformed input: file, profile, pattern, parameter
  kCompileError = 5,       // NVRTC rejected the source
  kCudaError = 6,          // a driver call failed at run time; CUPTI refused to count
  kTimeout = 7,            // the kernel watchdog fired
  kNoSanitizer = 8,        // a CUDA tool not found: compute-sanitizer, cuobjdump/nvdisasm (--sass)
  kSanitizerFindings = 9,  // run --sanitize: compute-sanitizer reported errors
  kInternal = 70,          // a bug in warplab
};

// The one table: each kind of error and the exit code it ends a command with.
struct KindExit {
  ErrorKind kind;
  Exit code;
};
inline constexpr KindExit kExitForKind[] = {
    {ErrorKind::failed, kFailed},            // the command did not do what was asked
    {ErrorKind::usage, kUsage},              // the command line
    {ErrorKind::no_gpu, kNoDevice},          // no driver, no GPU, no such device
    {ErrorKind::not_in_profile, kNoDevice},  // a value the profile does not know
    {ErrorKind::bad_input, kBadInput},       // a file, a profile, a limit, a size: the input
    {ErrorKind::parameter, kBadInput},       // a -p value the script's params refuses
    {ErrorKind::compile, kCompileError},     // NVRTC rejected the source
    {ErrorKind::driver, kCudaError},         // a driver call failed
    {ErrorKind::profiler, kCudaError},       // CUPTI refused or failed to count
    {ErrorKind::timeout, kTimeout},          // the kernel watchdog fired
    {ErrorKind::tool, kNoSanitizer},         // compute-sanitizer, cuobjdump/nvdisasm not found
    {ErrorKind::internal, kInternal},        // a bug
};

constexpr int exit_code_for(ErrorKind kind) {
  for (const KindExit& row : kExitForKind)
    if (row.kind == kind) return row.code;
  return kInternal;  // a kind without a row: a bug (exit_codes_test.cpp checks every kind)
}
inline int exit_code_for(const Error& e) { return exit_code_for(e.kind()); }

}  // namespace warplab::app
