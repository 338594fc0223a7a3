// error.cpp: cu::Error and the text of CUresult codes, read from the driver itself.
#include "cu/error.hpp"

#include "cu/driver.hpp"

namespace warplab::cu {
namespace {

// "api().cuMemAlloc(&p, n)" -> "cuMemAlloc": the stringized check expression names the call.
std::string call_name(const std::string& expr) {
  const auto at = expr.find("cu");
  auto start = expr.rfind('.', expr.find('('));
  start = (start == std::string::npos) ? (at == std::string::npos ? 0 : at) : start + 1;
  const auto end = expr.find('(', start);
  return expr.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string compose(CUresult code, const std::string& call, const std::string& object) {
  std::string msg = call_name(call);
  if (!object.empty()) msg += " (" + object + ")";
  return msg + " failed: " + error_text(code);
}

}  // namespace

Error::Error(CUresult code, std::string call, std::string object)
    : warplab::Error(kind_of(code), compose(code, call, object)),
      code_(code),
      call_(call_name(call)),
      object_(std::move(object)) {}

Error::Error(const std::string& message, CUresult code)
    : warplab::Error(kind_of(code), message), code_(code) {}

Error::Error(const std::string& message, ErrorKind kind) : warplab::Error(kind, message) {}

ErrorKind kind_of(CUresult code) noexcept {
  switch (code) {
    case CUDA_SUCCESS:
      return ErrorKind::bad_input;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_NOT_INITIALIZED:
      return ErrorKind::no_gpu;
    default:
      return ErrorKind::driver;
  }
}

std::string error_text(CUresult code) {
  if (driver_available()) {
    const char* name = nullptr;
    const char* text = nullptr;
    const Api& a = api();
    if (a.cuGetErrorName && a.cuGetErrorName(code, &name) == CUDA_SUCCESS && name) {
      std::string out = name;
      if (a.cuGetErrorString && a.cuGetErrorString(code, &text) == CUDA_SUCCESS && text)
        out += std::string(" (") + text + ")";
      return out;
    }
  }
  return "CUresult " + std::to_string(static_cast<int>(code));
}

}  // namespace warplab::cu
