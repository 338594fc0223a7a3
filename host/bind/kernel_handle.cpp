// kernel_handle.cpp: the kernel userdata as the rest of the binding uses it (module.hpp):
// telling one on the stack (by its metatable's address on the launch path), making one of
// a module's kernel (lab::make_kernel, then its launch plan), pushing one; and the state's
// device limits, read once.
#include <optional>
#include <string>
#include <utility>

#include "bind/module.hpp"
#include "bind/runtime.hpp"
#include "bind/udata.hpp"

namespace warplab::bind {

// By the metatable's address (udata.hpp); luaL_checkudata words the error otherwise.
KernelRef& check_kernel(lua_State* L, int idx, Runtime& rt) {
  if (void* p = fast_testudata(L, idx, rt.kernel_meta, kKernelMeta)) return *static_cast<KernelRef*>(p);
  return *static_cast<KernelRef*>(luaL_checkudata(L, idx, kKernelMeta));
}

KernelRef& check_kernel(lua_State* L, int idx) { return check_kernel(L, idx, runtime(L)); }

const cu::DeviceLimits& device_limits(lua_State* L) {
  Runtime& rt = runtime(L);
  if (!rt.limits) rt.limits = cu::device_limits(rt.target);
  return *rt.limits;
}

KernelRef make_kernel(lua_State* L, const ModuleRef& m, const std::string& mangled,
                      std::optional<rtc::Signature> sig) {
  KernelRef k;
  try {
    k = lab::make_kernel(m, mangled, std::move(sig), m->live ? nullptr : &device_limits(L));
  } catch (const lab::Error& e) {
    luaL_error(L, "%s", e.what());
    return nullptr;
  }
  plan_args(*k);  // the per-parameter launch plan (kernel_args.cpp)
  return k;
}

void push_kernel(lua_State* L, KernelRef k) {
  new (lua_newuserdatauv(L, sizeof(KernelRef), 0)) KernelRef(std::move(k));  // +1
  luaL_setmetatable(L, kKernelMeta);
}

}  // namespace warplab::bind
