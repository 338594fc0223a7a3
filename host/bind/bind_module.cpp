// bind_module.cpp: cuda.compile(path | {file=, source=, ...}) -> module, or nil plus the
// formatted diagnostics (a failed compile is a value a script or the watcher can print).
// Modules expose kernels by name: m.saxpy, m:kernel("reduce<256>"), m:kernel("k", "int*").
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bind/guard.hpp"
#include "bind/module.hpp"
#include "bind/module_spec.hpp"
#include "bind/modules.hpp"
#include "bind/runtime.hpp"
#include "bind/sandbox.hpp"

namespace warplab::bind {

ModuleRef& check_module(lua_State* L, int idx) {
  auto& m = *static_cast<ModuleRef*>(luaL_checkudata(L, idx, kModuleMeta));
  if (!m || m->freed) luaL_error(L, "attempt to use a freed module");
  return m;
}

namespace {

// Compiles spec (lab::build); on success loads it on the GPU when one is present.
ModuleRef build(lua_State* L, ModuleSpec spec) {
  static const cu::ContextPtr none;
  const cu::ContextPtr& ctx = runtime(L).offline ? none : gpu_context(L, "cuda.compile");
  return lab::build(std::move(spec), runtime(L).cache.get(), ctx);
}

// Pushes nil, the formatted diagnostics, and a list of {file, line, col, severity, message}.
int push_failure(lua_State* L, const rtc::CompileResult& r) {
  lua_pushnil(L);  // +1
  const std::string text = rtc::format_diagnostics(r, 10, runtime(L).opts.color);
  if (runtime(L).opts.echo_compile_errors) std::fprintf(stderr, "%s", text.c_str());
  lua_pushstring(L, text.c_str());                                // +1
  lua_createtable(L, static_cast<int>(r.diagnostics.size()), 0);  // +1 list
  int i = 0;
  for (const auto& d : r.diagnostics) {
    lua_createtable(L, 0, 5);  // +1 entry
    lua_pushstring(L, d.file.c_str());
    lua_setfield(L, -2, "file");
    lua_pushinteger(L, d.line);
    lua_setfield(L, -2, "line");
    lua_pushinteger(L, d.col);
    lua_setfield(L, -2, "col");
    lua_pushstring(L, std::string(rtc::to_string(d.severity)).c_str());
    lua_setfield(L, -2, "severity");
    lua_pushstring(L, d.message.c_str());
    lua_setfield(L, -2, "message");
    lua_rawseti(L, -2, ++i);  // -1
  }
  return 3;
}

void push_module(lua_State* L, ModuleRef m) {
  new (lua_newuserdatauv(L, sizeof(ModuleRef), 1)) ModuleRef(std::move(m));  // +1
  luaL_setmetatable(L, kModuleMeta);
  lua_newtable(L);              // +1 kernel cache
  lua_setiuservalue(L, -2, 1);  // -1
}

WL_LUA_FN(cuda_compile) {
  std::string why;
  auto spec = spec_from_args(L, 1, why);
  if (!spec) {
    lua_pushnil(L);
    lua_pushstring(L, why.c_str());
    return 2;
  }
  ModuleRef m = build(L, std::move(*spec));
  if (!m->result.ok) return push_failure(L, m->result);
  push_module(L, std::move(m));
  return 1;
}

// The mangled entry for a user-facing name: a base name ("saxpy"), a full name
// ("reduce<256>"), a signature ("k(double*)", for overloads), a name expression compiled
// with kernels = {...}, or the entry's own (mangled or extern "C") name.
std::string find_entry(lua_State* L, const ModuleObj& m, const std::string& name) {
  const std::string lowered = m.result.lowered_name(name);
  if (!lowered.empty()) return lowered;
  std::vector<std::string> hits;
  std::string matched;  // the candidates' signatures, for the ambiguity message
  for (const auto& e : m.result.entries) {
    if (e == name) return e;
    auto s = rtc::demangle(e);
    if (s && s->to_string() == name) return e;
    if (s && (s->name == name || s->base == name)) {
      hits.push_back(e);
      matched += (matched.empty() ? "" : ", ") + s->to_string();
    }
  }
  if (hits.size() == 1) return hits[0];
  std::string list;
  for (const auto& e : m.result.entries) {
    auto s = rtc::demangle(e);
    list += (list.empty() ? "" : ", ") + (s ? s->name : e);
  }
  if (hits.empty())
    luaL_error(L, "module %s has no kernel '%s' (kernels: %s)", m.spec.source.name.c_str(), name.c_str(),
               list.c_str());
  luaL_error(L,
             "'%s' is ambiguous in module %s: %d kernels match: %s (name one of them, "
             "with its signature for overloads)",
             name.c_str(), m.spec.source.name.c_str(), static_cast<int>(hits.size()), matched.c_str());
  return {};
}

// Live modules: when a file the module at idx was built from changed, compile it again
// and use the new code from here on; when that fails, keep the old module and say so
// once per change.
void refresh(lua_State* L, int idx) {
  ModuleRef& m = check_module(L, idx);
  if (m->spec.path.empty() || !lab::files_changed(m->stamps)) return;
  ModuleSpec spec = m->spec;
  std::string why;
  if (!reread_source(spec, why)) {
    std::fprintf(stderr, "warplab: %s changed but cannot be read (%s); still using the previous module\n",
                 m->spec.path.c_str(), why.c_str());
    m->stamps.clear();  // nothing more to follow until m:reload()
    return;
  }
  ModuleRef fresh = build(L, std::move(spec));
  if (!fresh->result.ok) {
    std::fprintf(stderr, "warplab: %s changed but no longer compiles; still using the previous module\n%s",
                 m->spec.path.c_str(),
                 rtc::format_diagnostics(fresh->result, 10, runtime(L).opts.color).c_str());
    m->stamps = std::move(fresh->stamps);  // report this version once
    return;
  }
  if (!runtime(L).opts.quiet)
    std::fprintf(stderr, "warplab: %s changed: recompiled (%.0f ms)\n", m->spec.path.c_str(),
                 fresh->result.compile_ms);
  m = std::move(fresh);          // kernels already handed out keep the old code alive
  lua_newtable(L);               // +1
  lua_setiuservalue(L, idx, 1);  // -1 drop cached kernels
}

// m:kernel(name [, "declared, parameter, types"])
WL_LUA_FN(module_kernel) {
  refresh(L, 1);
  ModuleRef& m = check_module(L, 1);
  std::size_t len = 0;
  const char* s = luaL_checklstring(L, 2, &len);
  const std::string name(s, len);  // all of it: "k\0x" must not find k
  const std::string mangled = find_entry(L, *m, name);
  std::optional<rtc::Signature> sig = rtc::demangle(mangled);
  if (!lua_isnoneornil(L, 3)) sig = rtc::parse_signature(name, luaL_checkstring(L, 3));
  push_kernel(L, make_kernel(L, m, mangled, std::move(sig)));
  return 1;
}

// Methods first (free stays callable on a freed module), then fields, then kernels.
WL_LUA_FN(module_index) {
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
  else if (key == "kernels" || key == "options" || key == "dependencies") {
    lua_newtable(L);  // +1 list
    int i = 0;
    if (key == "kernels")
      for (const auto& e : r.entries) {
        auto s = rtc::demangle(e);
        lua_pushstring(L, (s ? s->name : e).c_str());
        lua_rawseti(L, -2, ++i);
      }
    else if (key == "options")
      for (const auto& o : r.options) {
        lua_pushstring(L, o.c_str());
        lua_rawseti(L, -2, ++i);
      }
    else
      for (const auto& d : r.dependencies) {
        lua_pushstring(L, d.display.c_str());
        lua_rawseti(L, -2, ++i);
      }
  } else {
    // A kernel by name, cached in the module's user value (after a live refresh).
    refresh(L, 1);
    // Keyed by the whole string (luaL_checklstring left it at index 2): "k\0x" is not "k".
    lua_getiuservalue(L, 1, 1);                   // +1 cache
    lua_pushvalue(L, 2);                          // +1 key
    if (lua_rawget(L, -2) != LUA_TNIL) return 1;  // -1 +1
    lua_pop(L, 1);                                // -1
    const std::string mangled = find_entry(L, *m, key);
    push_kernel(L, make_kernel(L, m, mangled, rtc::demangle(mangled)));  // +1
    lua_pushvalue(L, 2);                                                 // +1 key
    lua_pushvalue(L, -2);                                                // +1 kernel
    lua_rawset(L, -4);                                                   // -2 cache it
  }
  return 1;
}

// m:reload(): compile again from the file; on failure keep the old module, return nil, diags.
WL_LUA_FN(module_reload) {
  ModuleRef& m = check_module(L, 1);
  if (m->spec.path.empty())
    return luaL_error(L, "module %s has no file to reload from", m->spec.source.name.c_str());
  ModuleSpec spec = m->spec;
  std::string why;
  if (!reread_source(spec, why)) {
    lua_pushnil(L);
    lua_pushstring(L, why.c_str());
    return 2;
  }
  ModuleRef fresh = build(L, std::move(spec));
  if (!fresh->result.ok) return push_failure(L, fresh->result);
  m = std::move(fresh);  // kernels already handed out keep the old code alive
  lua_newtable(L);
  lua_setiuservalue(L, 1, 1);  // drop cached kernels
  lua_settop(L, 1);
  return 1;
}

WL_LUA_FN(module_tostring) {
  auto& m = *static_cast<ModuleRef*>(luaL_checkudata(L, 1, kModuleMeta));
  if (!m || m->freed) {
    lua_pushstring(L, "cuda.module (freed)");
    return 1;
  }
  lua_pushfstring(L, "cuda.module %s [%s, %d kernels, %s]", m->spec.source.name.c_str(),
                  m->result.arch.c_str(), static_cast<int>(m->result.entries.size()),
                  m->live ? "loaded" : "offline");
  return 1;
}

// __fields for the REPL's completion: the fields, then each kernel's base name.
int module_fields(lua_State* L) {
  auto& m = *static_cast<ModuleRef*>(luaL_checkudata(L, 1, kModuleMeta));
  lua_newtable(L);  // +1 list
  int i = 0;
  for (const char* f :
       {"ptx", "log", "arch", "name", "compile_ms", "cached", "kernels", "options", "dependencies"}) {
    lua_pushstring(L, f);
    lua_rawseti(L, -2, ++i);
  }
  if (m && !m->freed)
    for (const auto& e : m->result.entries)
      if (auto s = rtc::demangle(e)) {
        lua_pushstring(L, s->base.c_str());
        lua_rawseti(L, -2, ++i);
      }
  return 1;
}

int module_release(lua_State* L) {
  auto& m = *static_cast<ModuleRef*>(luaL_checkudata(L, 1, kModuleMeta));
  m.reset();  // kernels still referenced keep the GPU module alive
  return 0;
}

int module_gc(lua_State* L) {
  static_cast<ModuleRef*>(luaL_checkudata(L, 1, kModuleMeta))->~ModuleRef();
  lua_pushnil(L);  // destroyed: any later use (or a second __gc) is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}

}  // namespace

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
