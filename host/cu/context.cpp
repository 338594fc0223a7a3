// context.cpp: primary-context retain/release and the per-device cache of live contexts.
#include "cu/context.hpp"

#include <cstdio>
#include <map>
#include <mutex>

#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/handle.hpp"
#include "cu/trace.hpp"
#include "sys/text.hpp"

namespace warplab::cu {

Context::Context(int ordinal) : ordinal_(ordinal) {
  const Api& a = api();
  int count = 0;
  WL_CU_CHECK(a.cuDeviceGetCount(&count), "device count");
  if (ordinal < 0 || ordinal >= count) {
    std::string valid = count == 0 ? "none" : count == 1 ? "0" : "0.." + std::to_string(count - 1);
    throw Error("device " + std::to_string(ordinal) +
                    " does not exist: " + sys::plural(count, "CUDA device is", "CUDA devices are") +
                    " present (valid: " + valid + ")",
                count == 0 ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS);
  }
  WL_CU_CHECK(a.cuDeviceGet(&device_, ordinal), label());
  const TraceScope t("primary context (cuDevicePrimaryCtxRetain)");
  WL_CU_CHECK(a.cuDevicePrimaryCtxRetain(&ctx_, device_), label());
}

Context::~Context() {
  for (auto f = at_release_.rbegin(); f != at_release_.rend(); ++f) (*f)();
  // The driver may already be shutting down at process exit; a failed release is
  // harmless then, and a destructor must not throw. The release takes the device, not a
  // current context: nothing to make current first.
  if (ctx_ && prepare_release(nullptr)) {
    trace("primary context: releasing (cuDevicePrimaryCtxRelease)");
    api().cuDevicePrimaryCtxRelease(device_);
    trace("primary context: released");
  }
}

void Context::make_current() const { WL_CU_CHECK(api().cuCtxSetCurrent(ctx_), label()); }

void Context::synchronize() const {
  make_current();
  WL_CU_CHECK(api().cuCtxSynchronize(), label());
}

ContextPtr primary_context(int ordinal) {
  // weak_ptr cache: one Context per device while anyone holds it. Keeping a strong
  // reference here would delay the release to static destruction, when libcuda may
  // already be unloading; the bindings hold one for the interpreter's lifetime instead.
  static std::mutex mutex;
  static std::map<int, std::weak_ptr<Context>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  ContextPtr ctx = cache[ordinal].lock();
  if (!ctx) {
    ctx = ContextPtr(new Context(ordinal));
    cache[ordinal] = ctx;
  }
  ctx->make_current();
  return ctx;
}

}  // namespace warplab::cu
