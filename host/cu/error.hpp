// error.hpp: the driver layer's one exception type, carrying the CUresult, the failing
// call, the object involved and the error's kind (what went wrong, for the exit code:
// app/cli/exit_codes.hpp). Message text comes from cuGetErrorName/cuGetErrorString.
#pragma once
#include <cuda.h>

#include <stdexcept>
#include <string>

namespace warplab::cu {

// What a cu::Error says went wrong. Each kind has one exit code (app/cli/exit_codes.hpp).
enum class ErrorKind {
  bad_input,  // a malformed profile, a broken launch limit, a bad size: the caller's input
  no_device,  // no driver, no GPU, no such device index
  driver,     // a driver call failed at run time
};

// The kind a CUresult stands for: CUDA_SUCCESS (an error we found, not the driver) is
// bad input; CUDA_ERROR_NO_DEVICE, _INVALID_DEVICE and _NOT_INITIALIZED are no device;
// every other code is a driver failure.
ErrorKind kind_of(CUresult code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(CUresult code, std::string call, std::string object = {});
  // An error described by one sentence, of kind_of(code). `code` stays CUDA_SUCCESS for
  // bad input and broken limits; CUDA_ERROR_NO_DEVICE marks "no driver / no GPU".
  explicit Error(const std::string& message, CUresult code = CUDA_SUCCESS);
  // An error of a library beside the driver (CUPTI: cu/cupti.hpp) whose kind is decided
  // by that library's own code, not by a CUresult; code() stays CUDA_SUCCESS.
  Error(const std::string& message, ErrorKind kind);
  CUresult code() const noexcept { return code_; }
  ErrorKind kind() const noexcept { return kind_; }
  const std::string& call() const noexcept { return call_; }
  const std::string& object() const noexcept { return object_; }

 private:
  CUresult code_ = CUDA_SUCCESS;
  ErrorKind kind_ = ErrorKind::bad_input;
  std::string call_;
  std::string object_;
};

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)", falling back to the number when the driver
// is missing or does not know the code.
std::string error_text(CUresult code);

}  // namespace warplab::cu

// Evaluates `expr` once; on failure throws cu::Error naming the call and `object`
// (any expression convertible to std::string, built only on failure).
#define WL_CU_CHECK(expr, object)                                                    \
  do {                                                                               \
    const CUresult wl_rc_ = (expr);                                                  \
    if (wl_rc_ != CUDA_SUCCESS) throw ::warplab::cu::Error(wl_rc_, #expr, (object)); \
  } while (0)
