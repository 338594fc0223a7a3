// handle.hpp: the one owner of a driver handle (a stream, an event, a graph, a module, a
// block of device or page-locked memory): move-only, holding the context the handle was
// made in so the context outlives it, released once (the destructor, or release() earlier;
// a second release does nothing). Each kind is a Traits with its raw type and its destroy
// call; what to do when the driver is gone is decided here, once, for all of them.
#pragma once
#include <utility>

#include "cu/context.hpp"

namespace warplab::cu {

// Before a driver handle is destroyed: false when there is no driver to destroy it with (it
// never loaded, or cuInit failed: nothing was made through it, or the process is past
// caring); else makes `ctx` current (when given) and returns true. Errors are ignored: a
// release must not throw, and after a sticky fault (an illegal address) every call fails
// while what the handle held goes with the context anyway.
bool prepare_release(const Context* ctx) noexcept;

// Throws cu::Error "use of a destroyed <what>": a handle used after its release.
[[noreturn]] void throw_destroyed(const char* what);

// Traits: `using Raw = CUstream;` (the handle's type; Raw{} is "none") and
// `static void destroy(Raw) noexcept` (the driver's destroy call, its result ignored).
template <class Traits>
class Handle {
 public:
  using Raw = typename Traits::Raw;

  Handle() = default;  // empty: owns nothing
  // Adopts `raw`, made in `ctx` (which may be null: released without making one current).
  Handle(ContextPtr ctx, Raw raw) noexcept : ctx_(std::move(ctx)), raw_(raw) {}
  Handle(Handle&& o) noexcept : ctx_(std::move(o.ctx_)), raw_(std::exchange(o.raw_, Raw{})) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      release();
      ctx_ = std::move(o.ctx_);
      raw_ = std::exchange(o.raw_, Raw{});
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { release(); }

  // Destroys the handle now (with its context current), then lets the context go; the
  // handle is empty after. Idempotent; never throws.
  void release() noexcept {
    if (raw_ != Raw{} && prepare_release(ctx_.get())) Traits::destroy(raw_);
    raw_ = Raw{};
    ctx_.reset();
  }

  bool valid() const noexcept { return raw_ != Raw{}; }
  Raw get() const noexcept { return raw_; }
  // The raw handle to call the driver with; released, throws "use of a destroyed <what>".
  Raw live(const char* what) const {
    if (raw_ == Raw{}) [[unlikely]]
      throw_destroyed(what);
    return raw_;
  }
  const ContextPtr& context() const noexcept { return ctx_; }

 private:
  ContextPtr ctx_;
  Raw raw_{};
};

}  // namespace warplab::cu
