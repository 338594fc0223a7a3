// context.hpp: a device's primary context, retained on creation and released on
// destruction. Every module, buffer, stream and event holds a ContextPtr, so whatever
// order they are destroyed in (Lua's garbage collector picks one), the context goes last.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace warplab::cu {

class Context {
 public:
  ~Context();  // cuDevicePrimaryCtxRelease; never throws
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  int ordinal() const noexcept { return ordinal_; }
  CUdevice device() const noexcept { return device_; }
  CUcontext get() const noexcept { return ctx_; }
  // "device 0": names the context in error messages.
  std::string label() const { return "device " + std::to_string(ordinal_); }

  // Makes this context current on the calling thread (cuCtxSetCurrent).
  void make_current() const;
  // Waits for all work in the context; asynchronous faults surface here.
  void synchronize() const;

  // Runs `f` when the last holder lets go, newest first, just before the release: what
  // must be undone while the context still exists (CUPTI's per-device SASS-metric
  // configuration, cu/sass_metrics.cpp). `f` must not throw.
  void at_release(std::function<void()> f) { at_release_.push_back(std::move(f)); }

 private:
  explicit Context(int ordinal);
  friend std::shared_ptr<Context> primary_context(int ordinal);

  int ordinal_ = -1;
  CUdevice device_ = 0;
  CUcontext ctx_ = nullptr;
  std::vector<std::function<void()>> at_release_;
};

using ContextPtr = std::shared_ptr<Context>;

// The primary context of device `ordinal`, retained and made current. Calls share one
// Context while any holder is alive; when the last holder goes, the context is released.
// Throws cu::Error: no driver (CUDA_ERROR_NO_DEVICE), or a bad index in one sentence:
// "device 3 does not exist: 1 CUDA device is present (valid: 0)".
ContextPtr primary_context(int ordinal = 0);

}  // namespace warplab::cu
