// driver.hpp: libcuda.so.1 loaded at run time (dlopen + cuGetProcAddress), never linked,
// so warplab starts and works offline on machines without an NVIDIA driver.
#pragma once
#include <cuda.h>

#include <atomic>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cu/api_list.hpp"

namespace warplab::cu {

// One function pointer per entry point in api_list.hpp; null when this driver lacks it.
struct Api {
#define WARPLAB_CU_MEMBER(name) decltype(&::name) name = nullptr;
  WARPLAB_CU_API(WARPLAB_CU_MEMBER)
#undef WARPLAB_CU_MEMBER
};

namespace detail {
// The entry points once cuInit succeeded (null before, and for good without a driver):
// api()'s one load on the launch path. api_first() decides, as api() says.
extern std::atomic<const Api*> ready_api;
const Api& api_first();
}  // namespace detail

// Loads the driver once (thread-safe) and calls cuInit(0) once. Throws cu::Error with
// CUDA_ERROR_NOT_INITIALIZED / the cuInit code and a one-sentence reason when there is no
// usable driver. The environment variable WARPLAB_NO_DRIVER=1 pretends none is installed
// (used by tests and for forcing offline mode).
inline const Api& api() {
  if (const Api* a = detail::ready_api.load(std::memory_order_acquire)) [[likely]]
    return *a;
  return detail::api_first();
}

// True when the driver loaded and cuInit succeeded; never throws. driver_unavailable():
// the reason when not, else nullopt. The first call pays for cuInit (tens to hundreds of ms
// on a GPU machine).
bool driver_available();
std::optional<std::string> driver_unavailable();

// True when libcuda.so.1 loaded and its entry points resolved, without calling cuInit
// (what --version and a lazily chosen device need to know); driver_not_loaded(): the reason
// when not, else nullopt.
bool driver_loaded();
std::optional<std::string> driver_not_loaded();

// Driver version as reported by cuDriverGetVersion (e.g. 13000), or 0 when the driver did
// not load. Needs no cuInit.
int driver_version();

// The CUDA version each entry point is requested for (see driver.cpp).
int api_request_version(std::string_view name);

// "13.0" from 13000.
std::string version_string(int cuda_version);

}  // namespace warplab::cu
