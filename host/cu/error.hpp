// error.hpp: the driver layer's warplab::Error (sys/error.hpp), carrying the CUresult, the
// failing call and the object involved beside the kind. Message text comes from
// cuGetErrorName/cuGetErrorString.
#pragma once
#include <cuda.h>

#include <string>

#include "sys/error.hpp"

namespace warplab::cu {

// The kind a CUresult stands for: CUDA_SUCCESS (an error we found, not the driver) is
// bad input; CUDA_ERROR_NO_DEVICE, _INVALID_DEVICE and _NOT_INITIALIZED are no GPU;
// every other code is a driver failure.
ErrorKind kind_of(CUresult code) noexcept;

class Error : public warplab::Error {
 public:
  Error(CUresult code, std::string call, std::string object = {});
  // An error described by one sentence, of kind_of(code). `code` stays CUDA_SUCCESS for
  // bad input and broken limits; CUDA_ERROR_NO_DEVICE marks "no driver / no GPU".
  explicit Error(const std::string& message, CUresult code = CUDA_SUCCESS);
  // An error whose kind is not a CUresult's: a value a profile does not know, or a library
  // beside the driver (CUPTI: cu/cupti.hpp) deciding by its own code; code() stays CUDA_SUCCESS.
  Error(const std::string& message, ErrorKind kind);
  CUresult code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }
  const std::string& object() const noexcept { return object_; }

 private:
  CUresult code_ = CUDA_SUCCESS;
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
