// bind_module.cpp: the Lua type of `cuda.compile` modules: its fields (m.ptx, m.kernels,
// ...), kernels by name (m.saxpy, cached per module), tostring, the REPL's completion
// list, and the metatable. cuda.compile and the methods are module_methods.cpp's.
#include <vector>

#include "bind/guard.hpp"
#include "bind/module_bind.hpp"
#include "bind/modules.hpp"
#include "bind/sandbox.hpp"
#include "lab/module_find.hpp"

namespace warplab::bind {

ModuleRef& check_module(lua_State* L, int idx) {
  auto& m = *static_cast<ModuleRef*>(luaL_checkudata(L, idx, kModuleMeta));
  if (!m || m->freed) luaL_error(L, "attempt to use a freed module");
  return m;
}

namespace {

void push_strings(lua_State* L, const std::vector<std::string>& list) {
  lua_createtable(L, static_cast<int>(list.size()), 0);  // +1 list
  int i = 0;
  for (const auto& s : list) {
    lua_pushstring(L, s.c_str());  // +1
    lua_rawseti(L, -2, ++i);       // -1
  }
}

// __fields for the REPL's completion: the fields, then each kernel's base name.
int module_fields(lua_State* L) {
  auto& m = *static_cast<ModuleRef*>(luaL_checkudata(L, 1, kModuleMeta));
  std::vector<std::string> names = {"ptx",    "log",     "arch",    "name",        "compile_ms",
                                    "cached", "kernels", "options", "dependencies"};
  if (m && !m->freed)
    for (auto& b : lab::kernel_bases(m->result)) names.push_back(std::move(b));
  push_strings(L, names);
  return 1;
}

}  // namespace

// Methods first (free stays callable on a freed module), then fields, then kernels.
static int module_index(lua_State* L) {
  return guard(L, [&] {
    lua_pushvalue(L, 2);                                           // +1 key
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;  // -1 +1 method
    lua_pop(L, 1);                                                 // -1
    ModuleRef& m = check_module(L, 1);
    std::size_t len = 0;
    const char* s = luaL_checklstring(L, 2, &len);
    const std::string key(s, len);
    const rtc::CompileResult& r = m->result;
    if (key == "ptx")
      lua_pushlstring(L, r.ptx.data(), r.ptx.size());
    else if (key == "log")
      lua_pushstring(L, r.log.c_str());
    else if (key == "arch")
      lua_pushstring(L, r.arch.c_str());
    else if (key == "name")
      lua_pushstring(L, m->spec.source.name.c_str());
    else if (key == "compile_ms")
      lua_pushnumber(L, r.compile_ms);
    else if (key == "cached")
      lua_pushboolean(L, r.from_cache);
    else if (key == "kernels")
      push_strings(L, lab::kernel_names(r));
    else if (key == "options")
      push_strings(L, r.options);
    else if (key == "dependencies") {
      std::vector<std::string> shown;
      for (const auto& d : r.dependencies) shown.push_back(d.display);
      push_strings(L, shown);
    } else {
      // A kernel by name, cached in the module's user value (after a live refresh).
      refresh_module(L, 1);
      // Keyed by the whole string (luaL_checklstring left it at index 2): "k\0x" is not "k".
      lua_getiuservalue(L, 1, 1);                   // +1 cache
      lua_pushvalue(L, 2);                          // +1 key
      if (lua_rawget(L, -2) != LUA_TNIL) return 1;  // -1 +1
      lua_pop(L, 1);                                // -1
      const std::string mangled = lab::find_entry(*m, key);
      push_kernel(L, make_kernel(L, m, mangled, rtc::demangle(mangled)));  // +1
      lua_pushvalue(L, 2);                                                 // +1 key
      lua_pushvalue(L, -2);                                                // +1 kernel
      lua_rawset(L, -4);                                                   // -2 cache it
    }
    return 1;
  });
}

static int module_tostring(lua_State* L) {
  return guard(L, [&] {
    auto& m = *static_cast<ModuleRef*>(luaL_checkudata(L, 1, kModuleMeta));
    if (!m || m->freed) {
      lua_pushstring(L, "cuda.module (freed)");
      return 1;
    }
    lua_pushfstring(L, "cuda.module %s [%s, %d kernels, %s]", m->spec.source.name.c_str(),
                    m->result.arch.c_str(), static_cast<int>(m->result.entries.size()),
                    m->live ? "loaded" : "offline");
    return 1;
  });
}

void add_module(lua_State* L) {
  luaL_newmetatable(L, kModuleMeta);    // +1 meta
  lock_metatable(L, kModuleMeta);       // getmetatable() gives the name, never the table
  lua_pushcfunction(L, module_fields);  // +1
  lua_setfield(L, -2, "__fields");      // -1
  const luaL_Reg meta[] = {
      {"__tostring", module_tostring}, {"__gc", module_gc}, {"__close", module_release}, {nullptr, nullptr}};
  luaL_setfuncs(L, meta, 0);
  const luaL_Reg methods[] = {
      {"kernel", module_kernel}, {"reload", module_reload}, {"free", module_release}, {nullptr, nullptr}};
  luaL_newlib(L, methods);               // +1 methods
  lua_pushvalue(L, -1);                  // +1
  lua_setfield(L, -3, "methods");        // -1
  lua_pushcclosure(L, module_index, 1);  // -1 methods, +1
  lua_setfield(L, -2, "__index");        // -1
  lua_pop(L, 1);                         // -1 meta
  lua_pushcfunction(L, cuda_compile);    // +1
  lua_setfield(L, -2, "compile");        // -1 into cuda
}

}  // namespace warplab::bind
