// device.cpp: cuda.device([i]) and cuda.devices(): a device object backed by a live
// snapshot or by the profile, and dev.attr, a plain table of every attribute (so pairs()
// and completion work) whose metatable answers aliases and other spellings
// (registers_per_block, MAX_THREADS_PER_BLOCK) and rejects unknown names, so a typo cannot
// pass silently. Depends on cu/device.hpp, cu/attributes.hpp, bind/record.hpp (the target).
#include <string>

#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/record.hpp"
#include "bind/sandbox.hpp"
#include "cu/attributes.hpp"
#include "cu/device.hpp"
#include "cu/driver.hpp"

namespace warplab::bind {
namespace {

constexpr const char* kDeviceMeta = "warplab.device";
constexpr const char* kAttrMeta = "warplab.attr";

cu::DeviceSnapshot& check_device(lua_State* L, int idx) {
  return *static_cast<cu::DeviceSnapshot*>(luaL_checkudata(L, idx, kDeviceMeta));
}

void push_device(lua_State* L, cu::DeviceSnapshot snap) {
  void* mem = lua_newuserdatauv(L, sizeof(cu::DeviceSnapshot), 1);  // +1 device
  new (mem) cu::DeviceSnapshot(std::move(snap));
  luaL_setmetatable(L, kDeviceMeta);
}

int device_gc(lua_State* L) {
  check_device(L, 1).~DeviceSnapshot();
  lua_pushnil(L);  // destroyed: any later use (or a second __gc) is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}

// ---- dev.attr -----------------------------------------------------------------------------

// A real attribute the device did not report is nil; an unknown name raises.
int attr_index(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  const char* name = luaL_checkstring(L, 2);
  if (const auto* info = cu::find_attribute(name)) {
    lua_pushlstring(L, info->name.data(), info->name.size());  // +1 canonical name
    lua_rawget(L, 1);                                          // -1 +1 value or nil
    return 1;
  }
  if (const std::string near = cu::suggest_attribute(name); !near.empty())
    return luaL_error(L, "unknown attribute '%s': did you mean '%s'? (see `warplab attrs %s`)", name,
                      near.c_str(), near.c_str());
  return luaL_error(L, "unknown attribute '%s' (`warplab attrs` lists them)", name);
}

void push_attr_table(lua_State* L, const cu::DeviceSnapshot& d) {
  lua_createtable(L, 0, static_cast<int>(d.attributes.size()));  // +1 attr
  for (const auto& [name, value] : d.attributes) {
    lua_pushinteger(L, value);          // +1
    lua_setfield(L, -2, name.c_str());  // -1
  }
  luaL_setmetatable(L, kAttrMeta);
}

// ---- fields -------------------------------------------------------------------------------

static int device_index(lua_State* L) {
  return guard(L, [&] {
    const cu::DeviceSnapshot& d = check_device(L, 1);
    const std::string key = luaL_checkstring(L, 2);
    if (key == "attr") {
      if (lua_getiuservalue(L, 1, 1) == LUA_TTABLE) return 1;  // +1 cached
      lua_pop(L, 1);                                           // -1
      push_attr_table(L, d);                                   // +1
      lua_pushvalue(L, -1);                                    // +1
      lua_setiuservalue(L, 1, 1);                              // -1 cache it
      return 1;
    }
    if (key == "name")
      lua_pushstring(L, d.name.c_str());
    else if (key == "cc")
      lua_pushfstring(L, "%d.%d", d.cc_major, d.cc_minor);
    else if (key == "arch")
      lua_pushstring(L, d.arch().c_str());
    else if (key == "sm_count")
      lua_pushinteger(L, d.attr("multiprocessor_count").value_or(0));
    else if (key == "memory")
      lua_pushinteger(L, static_cast<lua_Integer>(d.total_memory));
    else if (key == "live")
      lua_pushboolean(L, d.live());
    else if (key == "ordinal")
      lua_pushinteger(L, d.ordinal);
    else if (key == "source")
      lua_pushstring(L, d.source.c_str());
    else if (key == "uuid")
      lua_pushstring(L, d.uuid.c_str());
    else if (key == "driver_version")
      lua_pushinteger(L, d.driver_version);
    else
      raise(L, "device has no field '%s'", key.c_str());
    return 1;
  });
}

static int device_tostring(lua_State* L) {
  return guard(L, [&] {
    const cu::DeviceSnapshot& d = check_device(L, 1);
    lua_pushstring(L, (d.summary() + (d.live() ? "" : " [" + d.source + "]")).c_str());
    return 1;
  });
}

// ---- cuda.device, cuda.devices ------------------------------------------------------------

static int cuda_device(lua_State* L) {
  return guard(L, [&] {
    lab::Run& run = record_of(L).run;
    const cu::DeviceSnapshot& target = run.target();  // chosen here on a script's first ask
    const bool offline = run.offline();
    const lua_Integer i = luaL_optinteger(L, 1, offline ? 0 : target.ordinal);
    if (offline || i == target.ordinal) {
      if (offline && i != 0)
        raise(L, "no CUDA device: cuda.device(%I) does not exist offline: only 0 (%s)", i,
              target.source.c_str());
      push_device(L, target);
      return 1;
    }
    push_device(L, cu::snapshot_device(static_cast<int>(i)));
    return 1;
  });
}

static int cuda_devices(lua_State* L) {
  return guard(L, [&] {
    lab::Run& run = record_of(L).run;
    const cu::DeviceSnapshot& target = run.target();
    lua_newtable(L);  // +1 list
    if (run.offline()) {
      push_device(L, target);  // +1
      lua_rawseti(L, -2, 1);   // -1
      return 1;
    }
    const int n = cu::device_count();
    for (int i = 0; i < n; ++i) {
      push_device(L, i == target.ordinal ? target : cu::snapshot_device(i));  // +1
      lua_rawseti(L, -2, i + 1);                                              // -1
    }
    return 1;
  });
}

}  // namespace

void add_device(lua_State* L) {
  luaL_newmetatable(L, kDeviceMeta);  // +1
  lock_metatable(L, kDeviceMeta);     // getmetatable() gives the name, never the table
  set_fields(L, {"name", "cc", "arch", "sm_count", "memory", "live", "ordinal", "source", "uuid",
                 "driver_version", "attr"});
  const luaL_Reg meta[] = {
      {"__index", device_index}, {"__tostring", device_tostring}, {"__gc", device_gc}, {nullptr, nullptr}};
  luaL_setfuncs(L, meta, 0);
  lua_pop(L, 1);                     // -1
  luaL_newmetatable(L, kAttrMeta);   // +1
  lock_metatable(L, kAttrMeta);      // getmetatable() gives the name, never the table
  lua_pushcfunction(L, attr_index);  // +1
  lua_setfield(L, -2, "__index");    // -1
  lua_pop(L, 1);                     // -1
  const luaL_Reg fns[] = {{"device", cuda_device}, {"devices", cuda_devices}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda table
}

}  // namespace warplab::bind
