// driver.cpp: finds libcuda.so.1 with dlopen, resolves cuGetProcAddress with dlsym and
// every other entry point through it (once per process), and calls cuInit(0) only when
// something needs a device (once per process): asking the driver's version does not.
#include "cu/driver.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "cu/error.hpp"
#include "cu/trace.hpp"

namespace warplab::cu {
namespace {

struct Loaded {
  Api api;
  bool loaded = false;  // libcuda.so.1 opened and its entry points resolved
  std::string why;      // why not, or (after init) why cuInit failed
  int version = 0;
};

// cuInit's outcome, decided on the first call that needs it.
struct Initialized {
  bool ok = false;
  CUresult code = CUDA_ERROR_NOT_INITIALIZED;
  std::string why;
};

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

Loaded load() {
  Loaded out;
  const char* forced = std::getenv("WARPLAB_NO_DRIVER");
  if (forced && *forced && std::string(forced) != "0") {
    out.why = "no NVIDIA driver: WARPLAB_NO_DRIVER is set";
    return out;
  }
  void* lib = nullptr;
  {
    const TraceScope t("dlopen libcuda.so.1");
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  }
  if (!lib) {
    const char* err = dlerror();
    out.why = std::string("no NVIDIA driver: libcuda.so.1 could not be loaded (") +
              (err ? err : "unknown reason") + ")";
    return out;
  }
  auto gpa = reinterpret_cast<GetProcAddress>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!gpa) {
    out.why = "NVIDIA driver too old: libcuda.so.1 has no cuGetProcAddress_v2 (needs CUDA 12.0+)";
    return out;
  }
  // Resolve each entry point for the CUDA version of our header; a missing one stays null.
  const TraceScope t("the driver's entry points (cuGetProcAddress)");
#define WARPLAB_CU_RESOLVE(name)                                                                        \
  {                                                                                                     \
    void* p = nullptr;                                                                                  \
    CUdriverProcAddressQueryResult st{};                                                                \
    if (gpa(#name, &p, api_request_version(#name), CU_GET_PROC_ADDRESS_DEFAULT, &st) == CUDA_SUCCESS && \
        st == CU_GET_PROC_ADDRESS_SUCCESS)                                                              \
      out.api.name = reinterpret_cast<decltype(out.api.name)>(p);                                       \
  }
  WARPLAB_CU_API(WARPLAB_CU_RESOLVE)
#undef WARPLAB_CU_RESOLVE
  if (!out.api.cuInit || !out.api.cuDriverGetVersion) {
    out.why = "NVIDIA driver unusable: cuInit could not be resolved";
    return out;
  }
  out.api.cuDriverGetVersion(&out.version);  // needs no cuInit
  out.loaded = true;
  return out;
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

// cuInit is what costs (the driver opens the device files and starts its threads): only a
// process that asks about a device pays it, not `--version` or a script without the GPU.
const Initialized& initialized() {
  static const Initialized i = [] {
    Initialized out;
    const Loaded& l = loaded();
    if (!l.loaded) {
      out.why = l.why;
      return out;
    }
    {
      const TraceScope t("cuInit");
      out.code = l.api.cuInit(0);
    }
    if (out.code != CUDA_SUCCESS) {
      const char* name = nullptr;
      if (l.api.cuGetErrorName) l.api.cuGetErrorName(out.code, &name);
      out.why = std::string("the NVIDIA driver is installed but cuInit failed: ") +
                (name ? name : std::to_string(static_cast<int>(out.code)));
      if (out.code == CUDA_ERROR_NO_DEVICE) out.why = "no CUDA device: the driver found no GPU";
      return out;
    }
    out.ok = true;
    return out;
  }();
  return i;
}

}  // namespace

// cuGetProcAddress hands out the newest ABI of a symbol that is not newer than the
// version asked for. cuda.h usually #defines a plain name to its newest ABI (cuMemAlloc
// -> cuMemAlloc_v2), so asking with CUDA_VERSION matches the declaration decltype sees.
// Where a newer ABI is declared separately and the plain name keeps the old signature
// (CUDA 13.0: cuCtxSynchronize(void) vs cuCtxSynchronize_v2(CUcontext)), asking with
// CUDA_VERSION would return the new ABI behind the old type: ask for the old version.
// tests/unit/driver_test.cpp checks cuda.h so a new case cannot slip in unnoticed.
int api_request_version(std::string_view name) {
  if (name == "cuCtxSynchronize") return 2000;
  return CUDA_VERSION;
}

namespace detail {

std::atomic<const Api*> ready_api{nullptr};

const Api& api_first() {
  const Initialized& i = initialized();
  if (!i.ok) throw Error(i.why, CUDA_ERROR_NO_DEVICE);
  const Api& a = loaded().api;
  ready_api.store(&a, std::memory_order_release);
  return a;
}

}  // namespace detail

bool driver_available() { return initialized().ok; }

std::optional<std::string> driver_unavailable() {
  const Initialized& i = initialized();
  if (i.ok) return std::nullopt;
  return i.why;
}

bool driver_loaded() { return loaded().loaded; }

std::optional<std::string> driver_not_loaded() {
  const Loaded& l = loaded();
  if (l.loaded) return std::nullopt;
  return l.why;
}

int driver_version() { return loaded().version; }

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

}  // namespace warplab::cu
