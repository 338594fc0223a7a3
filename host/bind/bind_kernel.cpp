// bind_kernel.cpp: kernel handles: fields (regs, shared_bytes, signature, ...), tostring,
// and k:occupancy{block=, shared=} from warplab's calculator (plus the driver's answer
// when a GPU is present). Launching lives in kernel_launch.cpp.
#include <climits>
#include <cstdlib>
#include <string>

#include "bind/fault.hpp"
#include "bind/guard.hpp"
#include "bind/module.hpp"
#include "bind/modules.hpp"
#include "bind/runtime.hpp"
#include "bind/sandbox.hpp"
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

namespace {

std::string signature_text(const KernelObj& k) {
  if (!k.sig) return k.display + "(?)  -- extern \"C\": declare it with m:kernel(name, \"types\")";
  return k.sig->to_string();
}

// "sm_90a" -> 90: what CU_FUNC_ATTRIBUTE_PTX/BINARY_VERSION report for a kernel that
// NVRTC compiled for that architecture, so offline answers match the live ones.
int arch_number(const std::string& arch) {
  return arch.rfind("sm_", 0) == 0 ? std::atoi(arch.c_str() + 3) : 0;
}

// An offline number the compile could not give is nil, never 0 (rtc/resources.hpp).
template <class T>
void push_opt(lua_State* L, const std::optional<T>& v) {
  if (v)
    lua_pushinteger(L, static_cast<lua_Integer>(*v));
  else
    lua_pushnil(L);
}

// The fields (kernel_index found no method of that name).
WL_LUA_FN(kernel_field) {
  const KernelObj& k = *check_kernel(L, 1);
  const std::string key = luaL_checkstring(L, 2);
  const auto* a = k.fn ? &k.fn->attributes() : nullptr;
  const int arch = arch_number(k.module->result.arch);
  if (key == "name")
    lua_pushstring(L, k.display.c_str());
  else if (key == "mangled")
    lua_pushstring(L, k.mangled.c_str());
  else if (key == "signature")
    lua_pushstring(L, signature_text(k).c_str());
  else if (key == "regs")
    a ? lua_pushinteger(L, k.limits.regs) : push_opt(L, k.res.registers);
  else if (key == "shared_bytes")
    a ? lua_pushinteger(L, k.limits.static_shared) : push_opt(L, k.res.shared_bytes);
  else if (key == "local_bytes")
    a ? lua_pushinteger(L, a->local_size_bytes) : push_opt(L, k.res.stack_bytes);
  else if (key == "const_bytes")
    a ? lua_pushinteger(L, a->const_size_bytes) : push_opt(L, k.res.const_bytes);
  else if (key == "spill_bytes") {
    const auto& r = k.res;
    push_opt(L, r.spill_store_bytes && r.spill_load_bytes
                    ? std::optional(*r.spill_store_bytes + *r.spill_load_bytes)
                    : std::nullopt);
  } else if (key == "barriers")
    push_opt(L, k.res.barriers);
  else if (key == "max_threads") {
    if (k.limits.max_threads_per_block > 0)
      lua_pushinteger(L, k.limits.max_threads_per_block);
    else
      lua_pushnil(L);
  } else if (key == "ptx_version")
    lua_pushinteger(L, a ? a->ptx_version : arch);
  else if (key == "binary_version")
    lua_pushinteger(L, a ? a->binary_version : arch);
  else if (key == "arch")
    lua_pushstring(L, k.module->result.arch.c_str());
  else if (key == "params") {
    lua_newtable(L);  // +1 list
    for (std::size_t i = 0; k.sig && i < k.sig->params.size(); ++i) {
      lua_pushstring(L, k.sig->params[i].spelling.c_str());  // +1
      lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));   // -1
    }
  } else {
    return luaL_error(L, "kernel has no field or method '%s'", key.c_str());
  }
  return 1;
}

// Methods first (an upvalue: one raw lookup on the launch path, nothing that can throw,
// so no guard), then the fields.
int kernel_index(lua_State* L) {
  lua_pushvalue(L, 2);                                           // +1 key
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;  // -1 +1 method
  lua_pop(L, 1);                                                 // -1
  return kernel_field(L);
}

WL_LUA_FN(kernel_tostring) {
  const KernelObj& k = *check_kernel(L, 1);
  const bool live = k.fn != nullptr;
  auto text = [](const std::optional<long>& v) { return v ? std::to_string(*v) : std::string("?"); };
  const std::string regs = live ? std::to_string(k.limits.regs) : text(k.res.registers);
  const std::string shared = live ? std::to_string(k.limits.static_shared) : text(k.res.shared_bytes);
  const std::string local =
      live ? std::to_string(k.fn->attributes().local_size_bytes) : text(k.res.stack_bytes);
  const std::string maxt =
      k.limits.max_threads_per_block > 0 ? std::to_string(k.limits.max_threads_per_block) : "?";
  lua_pushfstring(L, "%s  [%s regs, %s B shared, %s B local, max %s threads, %s]", signature_text(k).c_str(),
                  regs.c_str(), shared.c_str(), local.c_str(), maxt.c_str(), k.module->result.arch.c_str());
  return 1;
}

void set_int(lua_State* L, const char* k, long long v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

// The number at `idx` as an integer: an integer, or a float with an integral value (2^8),
// as launch dimensions take them; anything else raises naming `what`.
long long int_value(lua_State* L, int idx, const char* what) {
  int ok = 0;
  const lua_Integer v = lua_tointegerx(L, idx, &ok);
  if (!ok || lua_type(L, idx) != LUA_TNUMBER)
    luaL_error(L, "occupancy: %s must be an integer, got %s", what, luaL_tolstring(L, idx, nullptr));
  return v;
}

// An optional integer field of the options table at index 2 (or dflt).
long long opt_int(lua_State* L, const char* field, long long dflt) {
  if (lua_getfield(L, 2, field) == LUA_TNIL) {
    lua_pop(L, 1);
    return dflt;
  }  // +1 -1
  const long long v = int_value(L, -1, field);
  lua_pop(L, 1);  // -1
  return v;
}

// k:occupancy{block = 256, shared = 0, carveout = -1} (or k:occupancy(256))
WL_LUA_FN(kernel_occupancy) {
  const KernelObj& k = *check_kernel(L, 1);
  long long block = 0, shared = 0, carveout = -1;
  if (lua_type(L, 2) == LUA_TNUMBER) {  // k:occupancy(256), also 256.0 or 2^8
    int exact = 0;
    block = lua_tointegerx(L, 2, &exact);
    if (!exact)
      return luaL_error(L, "occupancy: block must be a whole number of threads, got %s",
                        luaL_tolstring(L, 2, nullptr));
  } else {
    luaL_argexpected(L, lua_istable(L, 2), 2, "table {block = ...} or a block size");
    block = opt_int(L, "block", 0);
    shared = opt_int(L, "shared", 0);
    carveout = opt_int(L, "carveout", -1);
  }
  if (block < 1) return luaL_error(L, "occupancy needs block = <threads per block> >= 1");
  if (block > INT_MAX)
    return luaL_error(L, "occupancy: a block of %I threads is more than any device runs (at most %d)",
                      static_cast<lua_Integer>(block), device_limits(L).max_threads_per_block);
  if (shared < 0)
    return luaL_error(L, "occupancy: shared must be a byte count >= 0, got %I",
                      static_cast<lua_Integer>(shared));
  if (carveout < -1 || carveout > 100)
    return luaL_error(L, "occupancy: carveout must be a percentage 0..100 (or -1, the default), got %I",
                      static_cast<lua_Integer>(carveout));
  if (!k.fn && !k.res.registers)
    return luaL_error(
        L,
        "occupancy: the register count of kernel %s is unknown (the compile could not read it), "
        "and the calculator does not guess",
        k.display.c_str());
  const int b = static_cast<int>(block);
  const cu::OccupancyResult r =
      cu::occupancy(k.limits, b, shared, device_limits(L), static_cast<int>(carveout));
  lua_createtable(L, 0, 20);  // +1 result
  set_int(L, "block", b);
  set_int(L, "blocks_per_sm", r.blocks_per_sm);
  set_int(L, "warps_per_block", r.warps_per_block);
  set_int(L, "active_warps", r.active_warps_per_sm);
  set_int(L, "max_warps", r.max_warps_per_sm);
  lua_pushnumber(L, r.occupancy);
  lua_setfield(L, -2, "occupancy");                                     // +1 -1
  lua_pushstring(L, std::string(cu::limiter_name(r.limiter)).c_str());  // +1
  lua_setfield(L, -2, "limiter");                                       // -1
  const std::pair<const char*, int> by[] = {{"by_warps", r.by_warps},
                                            {"by_registers", r.by_registers},
                                            {"by_shared", r.by_shared},
                                            {"by_blocks", r.by_blocks},
                                            {"by_barriers", r.by_barriers}};
  for (const auto& [name, v] : by) v == cu::kNoLimit ? (void)0 : set_int(L, name, v);
  set_int(L, "regs_per_block", r.regs_per_block);
  set_int(L, "shared_per_block", r.shared_per_block);
  set_int(L, "shared_per_sm", r.shared_per_sm);
  if (!r.reason.empty()) {
    lua_pushstring(L, r.reason.c_str());
    lua_setfield(L, -2, "reason");
  }
  if (k.fn && carveout < 0) {
    // The driver may refuse a configuration our calculator answers with 0 blocks (a
    // block over the kernel's cap): that is an answer, not a script error.
    int driver = 0;
    std::string why;
    try {
      driver = cu::driver_occupancy(*k.fn, b, static_cast<std::size_t>(shared));
    } catch (const cu::Error& e) {
      if (is_async_fault(e.code())) throw;
      why = e.what();
    }
    set_int(L, "driver_blocks_per_sm", driver);
    if (!why.empty()) {
      lua_pushstring(L, why.c_str());
      lua_setfield(L, -2, "driver_error");
    }  // +1 -1
  }
  return 1;
}

int kernel_gc(lua_State* L) {
  // By name: at lua_close the runtime (and its cached metatable address) may be gone.
  static_cast<KernelRef*>(luaL_checkudata(L, 1, kKernelMeta))->~KernelRef();
  lua_pushnil(L);  // destroyed: any later use (or a second __gc) is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}

}  // namespace

void add_kernel(lua_State* L) {
  luaL_newmetatable(L, kKernelMeta);  // +1 meta
  lock_metatable(L, kKernelMeta);     // getmetatable() gives the name, never the table
  set_fields(L,
             {"name", "mangled", "signature", "params", "regs", "shared_bytes", "local_bytes", "const_bytes",
              "spill_bytes", "barriers", "max_threads", "ptx_version", "binary_version", "arch"});
  lua_newtable(L);                         // +1 methods
  lua_pushcfunction(L, kernel_occupancy);  // +1
  lua_setfield(L, -2, "occupancy");        // -1
  add_kernel_launch(L);
  lua_pushvalue(L, -1);                  // +1 methods
  lua_setfield(L, -3, "methods");        // -1
  lua_pushcclosure(L, kernel_index, 1);  // -1 methods, +1 __index
  lua_setfield(L, -2, "__index");        // -1
  const luaL_Reg meta[] = {{"__tostring", kernel_tostring}, {"__gc", kernel_gc}, {nullptr, nullptr}};
  luaL_setfuncs(L, meta, 0);
  push_kernel_call(L);            // +1
  lua_setfield(L, -2, "__call");  // -1
  lua_pop(L, 1);                  // -1 meta
}

}  // namespace warplab::bind
