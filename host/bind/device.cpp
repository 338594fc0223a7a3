// device.cpp: cuda.device([i]) and cuda.devices(): a device object backed by a live
// snapshot or by the profile, and dev.attr, a plain table of every attribute (so pairs()
// and completion work) whose metatable answers aliases and other spellings
// (registers_per_block, MAX_THREADS_PER_BLOCK) and rejects unknown names, so a typo cannot
// pass silently. A value the profile does not know (an architecture profile has no SM
// count, memory size or L2 size) raises one sentence naming a profile that knows it, never
// 0 or nil.
#include <climits>
#include <string>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/metatable.hpp"
#include "bind/record.hpp"
#include "cu/attributes.hpp"
#include "cu/device.hpp"
#include "cu/driver.hpp"
#include "cu/profile.hpp"
#include "sys/shown.hpp"

namespace warplab::bind {
namespace {

constexpr const char* kDeviceMeta = "warplab.device";
constexpr const char* kAttrMeta = "warplab.attr";
constexpr const char* kAttrOwner = "warplab.attr.owner";  // weak: attr table -> its device

cu::DeviceSnapshot& check_device(lua_State* L, int idx) {
  return *static_cast<cu::DeviceSnapshot*>(arg_udata(L, idx, kDeviceMeta));
}

void push_device(lua_State* L, cu::DeviceSnapshot snap) {
  void* mem = lua_newuserdatauv(L, sizeof(cu::DeviceSnapshot), 1);  // +1 device
  new (mem) cu::DeviceSnapshot(std::move(snap));
  luaL_setmetatable(L, kDeviceMeta);
}

int device_gc(lua_State* L) { return finalize<cu::DeviceSnapshot>(L, kDeviceMeta); }

// "attribute 'l2_cache_size' is unknown for profile sm_86 (architecture limits, not a
// captured device): pass a product (--profile a100) or a captured profile". Names a captured
// profile or a product of the same architecture when one ships, else any product; a
// product itself needs a captured profile.
[[noreturn]] void raise_unknown(lua_State* L, const cu::DeviceSnapshot& d, const std::string& what) {
  std::string captured, products, any;
  for (const cu::EmbeddedProfile& p : cu::embedded_profiles()) {
    try {
      const cu::DeviceSnapshot s = cu::parse_profile(p.json, p.name);
      const bool product = s.architecture && !s.is_unknown("multiprocessor_count");
      if (s.architecture && !product) continue;  // an architecture: knows no more than d
      if (product && any.empty()) any = p.name;
      if (s.arch() != d.arch()) continue;
      std::string& list = product ? products : captured;
      list += (list.empty() ? "" : " or ") + std::string(p.name);
    } catch (const cu::Error&) {
    }
  }
  const bool product = d.architecture && !d.is_unknown("multiprocessor_count");
  std::string fix;
  if (!captured.empty())
    fix = "pass a captured profile (--profile " + captured + ")";
  else if (!product && !(products.empty() && any.empty()))
    fix = "pass a product (--profile " + (products.empty() ? any : products) + ") or a captured profile";
  else
    fix = "pass a captured profile (warplab attrs --json > gpu.json on that GPU)";
  raise(L, ErrorKind::not_in_profile, "%s is unknown for %s%s: %s", what.c_str(), d.source.c_str(),
        d.architecture ? " (architecture limits, not a captured device)" : "", fix.c_str());
}

// ---- dev.attr -----------------------------------------------------------------------------

// A real attribute the device did not report is nil; one the profile does not know raises
// (raise_unknown); an unknown name raises.
static int attr_index(lua_State* L) {
  return guard(L, [&] {
    arg_check_type(L, 1, LUA_TTABLE);
    const char* name = arg_string(L, 2);
    if (const auto* info = cu::find_attribute(name)) {
      lua_pushlstring(L, info->name.data(), info->name.size());  // +1 canonical name
      if (lua_rawget(L, 1) != LUA_TNIL) return 1;                // -1 +1 value
      lua_getfield(L, LUA_REGISTRYINDEX, kAttrOwner);            // +1 owners
      lua_pushvalue(L, 1);                                       // +1
      if (lua_rawget(L, -2) == LUA_TUSERDATA) {                  // -1 +1 device
        const cu::DeviceSnapshot& d = *static_cast<cu::DeviceSnapshot*>(lua_touserdata(L, -1));
        if (d.is_unknown(std::string(info->name)))
          raise_unknown(L, d, "attribute '" + std::string(info->name) + "'");
      }
      lua_pop(L, 2);  // -2 owners, device; the nil stays on top
      return 1;
    }
    if (const std::string near = cu::suggest_attribute(name); !near.empty())
      raise(L, "unknown attribute '%s': did you mean '%s'? (see `warplab attrs %s`)", name, near.c_str(),
            near.c_str());
    raise(L, "unknown attribute '%s' (`warplab attrs` lists them)", sys::shown(name).c_str());
  });
}

// The device at `device` (an index) owns the table: attr_index asks it what is unknown.
void push_attr_table(lua_State* L, const cu::DeviceSnapshot& d, int device) {
  lua_createtable(L, 0, static_cast<int>(d.attributes.size()));  // +1 attr
  for (const auto& [name, value] : d.attributes) {
    lua_pushinteger(L, value);          // +1
    lua_setfield(L, -2, name.c_str());  // -1
  }
  luaL_setmetatable(L, kAttrMeta);
  lua_getfield(L, LUA_REGISTRYINDEX, kAttrOwner);  // +1 owners
  lua_pushvalue(L, -2);                            // +1 attr
  lua_pushvalue(L, device);                        // +1 device
  lua_rawset(L, -3);                               // -2
  lua_pop(L, 1);                                   // -1 owners
}

// ---- fields -------------------------------------------------------------------------------

// dev.unknown: the set of what the profile does not know ({multiprocessor_count = true,
// total_memory = true, ...}); empty for a GPU and a captured profile. What a script asks
// before reading a value an architecture profile lacks (reading it raises).
void push_unknown(lua_State* L, const cu::DeviceSnapshot& d) {
  lua_newtable(L);  // +1 set
  for (const cu::AttributeInfo& a : cu::attribute_table())
    if (d.is_unknown(std::string(a.name))) {
      lua_pushboolean(L, 1);                             // +1
      lua_setfield(L, -2, std::string(a.name).c_str());  // -1
    }
  if (d.is_unknown("total_memory")) {
    lua_pushboolean(L, 1);                // +1
    lua_setfield(L, -2, "total_memory");  // -1
  }
}

static int device_index(lua_State* L) {
  return guard(L, [&] {
    const cu::DeviceSnapshot& d = check_device(L, 1);
    const std::string key = arg_string(L, 2);
    if (key == "attr") {
      if (lua_getiuservalue(L, 1, 1) == LUA_TTABLE) return 1;  // +1 cached
      lua_pop(L, 1);                                           // -1
      push_attr_table(L, d, 1);                                // +1
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
    else if (key == "sm_count" && d.is_unknown("multiprocessor_count"))
      raise_unknown(L, d, "the SM count (attribute 'multiprocessor_count')");
    else if (key == "sm_count")
      lua_pushinteger(L, d.attr("multiprocessor_count").value_or(0));
    else if (key == "memory" && d.is_unknown("total_memory"))
      raise_unknown(L, d, "the memory size (total_memory)");
    else if (key == "memory")
      lua_pushinteger(L, static_cast<lua_Integer>(d.total_memory));
    else if (key == "unknown")
      push_unknown(L, d);
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
    const lua_Integer i = arg_opt_integer(L, 1, offline ? 0 : target.ordinal);
    if (offline || i == target.ordinal) {
      if (offline && i != 0)
        raise(L, ErrorKind::no_gpu, "no CUDA device: cuda.device(%I) does not exist offline: only 0 (%s)", i,
              target.source.c_str());
      push_device(L, target);
      return 1;
    }
    if (i < 0 || i > INT_MAX)  // not cut to an int, where 2^32 became device 0
      raise(L, "device %I does not exist: a device index is 0, 1, ... (cuda.devices() lists them)", i);
    // A script's index past the last device is the script's error (exit 1), not a missing
    // GPU: the no-GPU kind and its offline hint are for a machine without one.
    if (const int n = cu::device_count(); i >= n)
      raise(L, "device %I does not exist: %d CUDA device%s present (cuda.devices() lists them)", i, n,
            n == 1 ? " is" : "s are");
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
  static constexpr const char* fields[] = {"name", "cc",      "arch",   "sm_count", "memory",
                                           "live", "ordinal", "source", "uuid",     "driver_version",
                                           "attr", "unknown", nullptr};
  const luaL_Reg meta[] = {
      {"__index", device_index}, {"__tostring", device_tostring}, {"__gc", device_gc}, {nullptr, nullptr}};
  register_type(L, {.name = kDeviceMeta, .meta = meta, .fields = fields});
  // dev.attr: a plain table whose metatable answers other spellings and rejects unknown names.
  const luaL_Reg attr_meta[] = {{"__index", attr_index}, {nullptr, nullptr}};
  register_type(L, {.name = kAttrMeta, .meta = attr_meta});
  lua_newtable(L);                                 // +1 owners: weak keys, so a dropped attr table goes
  lua_newtable(L);                                 // +1 its metatable
  lua_pushstring(L, "k");                          // +1
  lua_setfield(L, -2, "__mode");                   // -1
  lua_setmetatable(L, -2);                         // -1
  lua_setfield(L, LUA_REGISTRYINDEX, kAttrOwner);  // -1
  const luaL_Reg fns[] = {{"device", cuda_device}, {"devices", cuda_devices}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
