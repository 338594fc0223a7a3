// bind_kernel.cpp: kernel handles: fields (regs, shared_bytes, signature, ...), tostring,
// and k:occupancy{block=, shared=} from warplab's calculator (plus the driver's answer
// when a GPU is present). Launching lives in kernel_launch.cpp.
#include <string>

#include "bind/guard.hpp"
#include "bind/module.hpp"
#include "bind/modules.hpp"
#include "bind/runtime.hpp"

namespace warplab::bind {

KernelRef& check_kernel(lua_State* L, int idx) {
  return *static_cast<KernelRef*>(luaL_checkudata(L, idx, kKernelMeta));
}

const cu::DeviceLimits& device_limits(lua_State* L) {
  Runtime& rt = runtime(L);
  if (!rt.limits) rt.limits = cu::device_limits(rt.target);
  return *rt.limits;
}

namespace {

// The largest block (a multiple of the warp size) whose registers fit on an SM: what
// the driver reports as the kernel's max_threads_per_block, computed offline.
int offline_max_threads(const cu::KernelLimits& k, const cu::DeviceLimits& d) {
  int best = 0;
  for (int b = d.warp_size; b <= d.max_threads_per_block; b += d.warp_size)
    if (cu::occupancy(k, b, 0, d).blocks_per_sm > 0) best = b;
  return best;
}

// Parameter layout when the driver cannot tell (offline): natural alignment, in order.
void layout_from_signature(KernelObj& k) {
  std::size_t at = 0;
  for (const auto& p : k.sig->params) {
    const std::size_t size = p.size > 0 ? static_cast<std::size_t>(p.size) : 8;
    const std::size_t align = std::min<std::size_t>(size, 8);
    at = (at + align - 1) / align * align;
    k.offsets.push_back(at);
    k.sizes.push_back(size);
    at += size;
  }
}

}  // namespace

KernelRef make_kernel(lua_State* L, const ModuleRef& m, const std::string& mangled,
                      std::optional<rtc::Signature> sig) {
  auto k = std::make_shared<KernelObj>();
  k->module = m;
  k->mangled = mangled;
  k->sig = std::move(sig);
  k->display = k->sig ? k->sig->name : mangled;
  if (const auto* r = m->result.resources(mangled)) k->res = *r;
  k->limits = {k->res.registers, static_cast<int>(k->res.shared_bytes), 0, std::max(1, k->res.barriers)};
  if (m->live) {
    k->fn = m->live->function(mangled);
    k->limits = k->fn->limits();
    for (const auto& p : k->fn->params()) {
      k->offsets.push_back(p.offset);
      k->sizes.push_back(p.size);
    }
  } else {
    k->limits.max_threads_per_block = offline_max_threads(k->limits, device_limits(L));
    if (k->sig) layout_from_signature(*k);
  }
  if (k->sig && !k->offsets.empty() && k->sig->params.size() != k->offsets.size())
    luaL_error(L, "kernel %s: the declared signature has %d parameters but the kernel takes %d",
               k->display.c_str(), static_cast<int>(k->sig->params.size()), static_cast<int>(k->offsets.size()));
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < k->offsets.size(); ++i) bytes = std::max(bytes, k->offsets[i] + k->sizes[i]);
  k->argbuf.assign(bytes + 16, 0);
  for (std::size_t off : k->offsets) k->argptrs.push_back(k->argbuf.data() + off);
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

WL_LUA_FN(kernel_index) {
  const KernelObj& k = *check_kernel(L, 1);
  const std::string key = luaL_checkstring(L, 2);
  const auto* a = k.fn ? &k.fn->attributes() : nullptr;
  if (key == "name") lua_pushstring(L, k.display.c_str());
  else if (key == "mangled") lua_pushstring(L, k.mangled.c_str());
  else if (key == "signature") lua_pushstring(L, signature_text(k).c_str());
  else if (key == "regs") lua_pushinteger(L, k.limits.regs);
  else if (key == "shared_bytes") lua_pushinteger(L, k.limits.static_shared);
  else if (key == "local_bytes") lua_pushinteger(L, a ? a->local_size_bytes : k.res.stack_bytes);
  else if (key == "const_bytes") lua_pushinteger(L, a ? a->const_size_bytes : k.res.const_bytes);
  else if (key == "spill_bytes") lua_pushinteger(L, k.res.spill_store_bytes + k.res.spill_load_bytes);
  else if (key == "barriers") lua_pushinteger(L, k.res.barriers);
  else if (key == "max_threads") lua_pushinteger(L, k.limits.max_threads_per_block);
  else if (key == "ptx_version") a ? lua_pushinteger(L, a->ptx_version) : lua_pushnil(L);
  else if (key == "binary_version") a ? lua_pushinteger(L, a->binary_version) : lua_pushnil(L);
  else if (key == "arch") lua_pushstring(L, k.module->result.arch.c_str());
  else if (key == "params") {
    lua_newtable(L);
    if (k.sig)
      for (std::size_t i = 0; i < k.sig->params.size(); ++i) {
        lua_pushstring(L, k.sig->params[i].spelling.c_str());
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
      }
  } else {
    luaL_getmetatable(L, kKernelMeta);                                   // +1
    lua_getfield(L, -1, "methods");                                      // +1
    if (lua_getfield(L, -1, key.c_str()) == LUA_TNIL)                    // +1
      return luaL_error(L, "kernel has no field or method '%s'", key.c_str());
  }
  return 1;
}

WL_LUA_FN(kernel_tostring) {
  const KernelObj& k = *check_kernel(L, 1);
  lua_pushfstring(L, "%s  [%d regs, %d B shared, %d B local, max %d threads, %s]",
                  signature_text(k).c_str(), k.limits.regs, k.limits.static_shared,
                  static_cast<int>(k.fn ? k.fn->attributes().local_size_bytes : k.res.stack_bytes),
                  k.limits.max_threads_per_block, k.module->result.arch.c_str());
  return 1;
}

void set_int(lua_State* L, const char* k, long long v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

// k:occupancy{block = 256, shared = 0, carveout = -1}
WL_LUA_FN(kernel_occupancy) {
  const KernelObj& k = *check_kernel(L, 1);
  int block = 0;
  long long shared = 0;
  int carveout = -1;
  if (lua_isinteger(L, 2)) block = static_cast<int>(lua_tointeger(L, 2));
  else {
    luaL_checktype(L, 2, LUA_TTABLE);
    if (lua_getfield(L, 2, "block") != LUA_TNIL) block = static_cast<int>(luaL_checkinteger(L, -1));
    if (lua_getfield(L, 2, "shared") != LUA_TNIL) shared = luaL_checkinteger(L, -1);
    if (lua_getfield(L, 2, "carveout") != LUA_TNIL) carveout = static_cast<int>(luaL_checkinteger(L, -1));
    lua_settop(L, 2);
  }
  luaL_argcheck(L, block > 0, 2, "occupancy needs block = <threads per block>");
  const cu::OccupancyResult r = cu::occupancy(k.limits, block, shared, device_limits(L), carveout);
  lua_createtable(L, 0, 16);
  set_int(L, "block", block);
  set_int(L, "blocks_per_sm", r.blocks_per_sm);
  set_int(L, "warps_per_block", r.warps_per_block);
  set_int(L, "active_warps", r.active_warps_per_sm);
  set_int(L, "max_warps", r.max_warps_per_sm);
  lua_pushnumber(L, r.occupancy); lua_setfield(L, -2, "occupancy");
  lua_pushstring(L, std::string(cu::limiter_name(r.limiter)).c_str()); lua_setfield(L, -2, "limiter");
  const std::pair<const char*, int> by[] = {{"by_warps", r.by_warps}, {"by_registers", r.by_registers},
                                            {"by_shared", r.by_shared}, {"by_blocks", r.by_blocks}};
  for (const auto& [name, v] : by) v == cu::kNoLimit ? (void)0 : set_int(L, name, v);
  set_int(L, "regs_per_block", r.regs_per_block);
  set_int(L, "shared_per_block", r.shared_per_block);
  set_int(L, "shared_per_sm", r.shared_per_sm);
  if (!r.reason.empty()) { lua_pushstring(L, r.reason.c_str()); lua_setfield(L, -2, "reason"); }
  if (k.fn && carveout < 0) set_int(L, "driver_blocks_per_sm", cu::driver_occupancy(*k.fn, block, static_cast<std::size_t>(shared)));
  return 1;
}

int kernel_gc(lua_State* L) {
  check_kernel(L, 1).~KernelRef();
  return 0;
}

}  // namespace

void add_kernel(lua_State* L) {
  luaL_newmetatable(L, kKernelMeta);                                     // +1
  const luaL_Reg meta[] = {{"__index", kernel_index}, {"__tostring", kernel_tostring},
                           {"__call", kernel_call}, {"__gc", kernel_gc}, {nullptr, nullptr}};
  luaL_setfuncs(L, meta, 0);
  lua_newtable(L);                                                       // +1 methods
  lua_pushcfunction(L, kernel_occupancy);
  lua_setfield(L, -2, "occupancy");
  add_kernel_launch(L);
  lua_setfield(L, -2, "methods");                                        // -1
  lua_pop(L, 1);                                                         // -1
}

}  // namespace warplab::bind
