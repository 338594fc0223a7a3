// bind_kernel.cpp: kernel handles: fields (regs, shared_bytes, signature, ...), tostring,
// k:occupancy's options, and the metatable (lab/kernel_info.hpp derives what they show;
// kernel_occupancy.cpp pushes the occupancy table). Launching: kernel_launch.cpp.
#include <optional>
#include <string>

#include "bind/guard.hpp"
#include "bind/kernel_methods.hpp"
#include "bind/module.hpp"
#include "bind/modules.hpp"
#include "bind/runtime.hpp"
#include "bind/sandbox.hpp"
#include "lab/kernel_info.hpp"

namespace warplab::bind {
namespace {

// An offline number the compile could not give is nil, never 0 (rtc/resources.hpp).
void push_opt(lua_State* L, const std::optional<long long>& v) {
  if (v)
    lua_pushinteger(L, static_cast<lua_Integer>(*v));
  else
    lua_pushnil(L);
}

// The fields (kernel_index found no method of that name); lab/kernel_info.hpp derives them.
static int kernel_field(lua_State* L) {
  return guard(L, [&] {
    const KernelObj& k = *check_kernel(L, 1);
    const std::string key = luaL_checkstring(L, 2);
    std::optional<long long> number;
    if (key == "name")
      lua_pushstring(L, k.display.c_str());
    else if (key == "mangled")
      lua_pushstring(L, k.mangled.c_str());
    else if (key == "signature")
      lua_pushstring(L, lab::signature_text(k).c_str());
    else if (key == "arch")
      lua_pushstring(L, k.module->result.arch.c_str());
    else if (key == "params") {
      lua_newtable(L);  // +1 list
      for (std::size_t i = 0; k.sig && i < k.sig->params.size(); ++i) {
        lua_pushstring(L, k.sig->params[i].spelling.c_str());  // +1
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));   // -1
      }
    } else if (lab::kernel_number(k, key, number)) {
      push_opt(L, number);
    } else {
      return luaL_error(L, "kernel has no field or method '%s'", key.c_str());
    }
    return 1;
  });
}

// Methods first (an upvalue: one raw lookup on the launch path, nothing that can throw,
// so no guard), then the fields.
int kernel_index(lua_State* L) {
  lua_pushvalue(L, 2);                                           // +1 key
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;  // -1 +1 method
  lua_pop(L, 1);                                                 // -1
  return kernel_field(L);
}

static int kernel_tostring(lua_State* L) {
  return guard(L, [&] {
    lua_pushstring(L, lab::kernel_summary(*check_kernel(L, 1)).c_str());
    return 1;
  });
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

// k:occupancy{block = 256, shared = 0, carveout = -1} (or k:occupancy(256)): the options
// read here; the checks and the answer are lab/kernel_info.hpp's, the table kernel_occupancy.cpp's.
static int kernel_occupancy(lua_State* L) {
  return guard(L, [&] {
    const KernelObj& k = *check_kernel(L, 1);
    lab::OccupancyRequest req;
    if (lua_type(L, 2) == LUA_TNUMBER) {  // k:occupancy(256), also 256.0 or 2^8
      int exact = 0;
      req.block = lua_tointegerx(L, 2, &exact);
      if (!exact)
        return luaL_error(L, "occupancy: block must be a whole number of threads, got %s",
                          luaL_tolstring(L, 2, nullptr));
    } else {
      luaL_argexpected(L, lua_istable(L, 2), 2, "table {block = ...} or a block size");
      req.block = opt_int(L, "block", 0);
      req.shared = opt_int(L, "shared", 0);
      req.carveout = opt_int(L, "carveout", -1);
    }
    const std::string why = lab::occupancy_error(k, req, device_limits(L));
    if (!why.empty()) return luaL_error(L, "%s", why.c_str());
    push_occupancy(L, static_cast<int>(req.block), lab::occupancy_report(k, req, device_limits(L)));
    return 1;
  });
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
