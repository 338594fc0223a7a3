// module.cpp: cuda.compile(path | {...}) -> module, or nil plus the diagnostics (a failed
// compile is a value); the module type: m.ptx, m.kernels, ..., kernels by name (cached per
// module), m:kernel(), m:reload(), m:free(). The table is read by compile_args.cpp; the
// rest is lab's (lab/module.hpp, module_reload.hpp, module_find.hpp).
#include <cstdio>
#include <memory>
#include <vector>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/metatable.hpp"
#include "bind/record.hpp"
#include "bind/udata.hpp"
#include "lab/module_find.hpp"
#include "lab/module_reload.hpp"
#include "sys/text.hpp"

namespace warplab::bind {
namespace {

// ---- the userdata -------------------------------------------------------------------------

// The module at idx, a reference of the binding's own: a m:free() while the binding runs
// Lua code (a finalizer an allocation runs) empties the handle, never what the binding holds.
lab::ModuleRef check_module(lua_State* L, int idx) {
  auto& m = *static_cast<lab::ModuleRef*>(arg_udata(L, idx, kModuleMeta));
  if (!m || m->freed) raise(L, "attempt to use a freed module");
  return m;
}

int module_release(lua_State* L) {
  auto& m = *static_cast<lab::ModuleRef*>(arg_udata(L, 1, kModuleMeta));
  m.reset();  // kernels still referenced keep the GPU module alive
  return 0;
}

int module_gc(lua_State* L) {
  module_release(L);
  return finalize<lab::ModuleRef>(L, kModuleMeta);
}

// Live modules: when a file the module at idx was built from changed, compiles it again
// (lab::refresh) and drops the kernels cached for the old one.
void refresh_module(lua_State* L, int idx) {
  lab::ModuleRef& m = *static_cast<lab::ModuleRef*>(arg_udata(L, idx, kModuleMeta));
  if (!m || m->freed) raise(L, "attempt to use a freed module");
  lab::Run& run = record_of(L).run;
  if (!lab::refresh(m, run.builder(), run.opts.color, run.opts.quiet)) return;
  lua_newtable(L);               // +1
  lua_setiuservalue(L, idx, 1);  // -1 drop cached kernels
}

// Pushes the kernel `mangled` of module m (layout, limits, launch plan, function handle
// when live: lab::make_kernel).
void push_module_kernel(lua_State* L, const lab::ModuleRef& m, const std::string& mangled,
                        std::optional<rtc::Signature> sig) {
  push_kernel(L,
              lab::make_kernel(m, mangled, std::move(sig), m->live ? nullptr : &record_of(L).run.limits()));
}

// ---- cuda.compile -------------------------------------------------------------------------

// Pushes nil, the formatted diagnostics, and a list of {file, line, col, severity, message};
// notes the text with kind compile in the record, so that a script raising it (the value
// itself, or behind one position) ends as a compile error (state.cpp).
int push_failure(lua_State* L, const lab::ModuleObj& m) {
  const rtc::CompileResult& r = m.result;
  lua_pushnil(L);  // +1
  StateRecord& rec = record_of(L);
  const lab::Options& opts = rec.run.opts;
  const std::string text = rtc::format_diagnostics(r, 10, opts.color);
  if (opts.echo_compile_errors) std::fprintf(stderr, "%s", text.c_str());
  const std::size_t n = r.errors();
  rec.note_raised(text, ErrorKind::compile,
                  m.spec.source.name + " did not compile for " + r.arch + " (" + std::to_string(n) +
                      (n == 1 ? " error)" : " errors)"));
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

static int cuda_compile(lua_State* L) {
  return guard(L, [&] {
    lab::ModuleSpec spec;
    if (const auto why = spec_from_args(L, 1, spec)) {  // a file not there or unreadable
      lua_pushnil(L);                                   // +1
      lua_pushstring(L, why->c_str());                  // +1
      return 2;
    }
    lab::ModuleRef m = record_of(L).run.build(std::move(spec));
    if (!m->result.ok) return push_failure(L, *m);
    new (lua_newuserdatauv(L, sizeof(lab::ModuleRef), 1)) lab::ModuleRef(std::move(m));  // +1
    luaL_setmetatable(L, kModuleMeta);
    lua_newtable(L);              // +1 kernel cache
    lua_setiuservalue(L, -2, 1);  // -1
    return 1;
  });
}

// ---- fields -------------------------------------------------------------------------------

void push_strings(lua_State* L, const std::vector<std::string>& list) {
  lua_createtable(L, static_cast<int>(list.size()), 0);  // +1 list
  int i = 0;
  for (const auto& s : list) {
    lua_pushstring(L, s.c_str());  // +1
    lua_rawseti(L, -2, ++i);       // -1
  }
}

// The module's own completion names, after its fields (LuaType::more_fields): each
// kernel's base name, appended to the list at 2.
int module_kernel_fields(lua_State* L) {
  const lab::ModuleRef m = *static_cast<lab::ModuleRef*>(arg_udata(L, 1, kModuleMeta));
  if (!m || m->freed) return 0;
  auto i = static_cast<lua_Integer>(lua_rawlen(L, 2));
  for (const auto& b : lab::kernel_bases(m->result)) {
    lua_pushstring(L, b.c_str());  // +1
    lua_rawseti(L, 2, ++i);        // -1
  }
  return 0;
}

// The fields, then kernels (after the methods: free stays callable on a freed module).
static int module_index(lua_State* L) {
  return guard(L, [&] {
    const lab::ModuleRef m = check_module(L, 1);
    std::size_t len = 0;
    const char* s = arg_string(L, 2, &len);
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
      // A kernel by name, cached in the module's user value (after a live refresh, which
      // may replace the module: read again).
      refresh_module(L, 1);
      const lab::ModuleRef now = check_module(L, 1);
      // Keyed by the whole string (arg_string left it at index 2): "k\0x" is not "k".
      lua_getiuservalue(L, 1, 1);                   // +1 cache
      lua_pushvalue(L, 2);                          // +1 key
      if (lua_rawget(L, -2) != LUA_TNIL) return 1;  // -1 +1
      lua_pop(L, 1);                                // -1
      const std::string mangled = lab::find_entry(*now, key);
      push_module_kernel(L, now, mangled, now->result.signature(mangled));  // +1
      lua_pushvalue(L, 2);                                                  // +1 key
      lua_pushvalue(L, -2);                                                 // +1 kernel
      lua_rawset(L, -4);                                                    // -2 cache it
    }
    return 1;
  });
}

static int module_tostring(lua_State* L) {
  return guard(L, [&] {
    const lab::ModuleRef m = *static_cast<lab::ModuleRef*>(arg_udata(L, 1, kModuleMeta));
    if (!m || m->freed) {
      lua_pushstring(L, "cuda.module (freed)");
      return 1;
    }
    const std::string kernels = sys::plural(static_cast<long long>(m->result.entries.size()), "kernel");
    lua_pushfstring(L, "cuda.module %s [%s, %s, %s]", m->spec.source.name.c_str(), m->result.arch.c_str(),
                    kernels.c_str(), m->live ? "loaded" : "offline");
    return 1;
  });
}

// ---- methods ------------------------------------------------------------------------------

// m:kernel(name [, "declared, parameter, types"])
static int module_kernel(lua_State* L) {
  return guard(L, [&] {
    refresh_module(L, 1);
    const lab::ModuleRef m = check_module(L, 1);
    std::size_t len = 0;
    const char* s = arg_string(L, 2, &len);
    const std::string name(s, len);  // all of it: "k\0x" must not find k
    const std::string mangled = lab::find_entry(*m, name);
    std::optional<rtc::Signature> sig = m->result.signature(mangled);
    if (!lua_isnoneornil(L, 3)) sig = rtc::parse_signature(name, arg_string(L, 3));
    push_module_kernel(L, m, mangled, std::move(sig));
    return 1;
  });
}

// m:reload(): compile again from the file; on failure keep the old module, return nil, diags.
static int module_reload(lua_State* L) {
  return guard(L, [&] {
    lab::ModuleRef& m = *static_cast<lab::ModuleRef*>(arg_udata(L, 1, kModuleMeta));
    if (!m || m->freed) raise(L, "attempt to use a freed module");
    lab::ModuleRef fresh;
    if (const auto why = lab::reload(m, record_of(L).run.builder(), fresh)) {
      lua_pushnil(L);                   // +1
      lua_pushstring(L, why->c_str());  // +1
      return 2;
    }
    if (!fresh->result.ok) return push_failure(L, *fresh);
    m = std::move(fresh);  // kernels already handed out keep the old code alive
    lua_newtable(L);
    lua_setiuservalue(L, 1, 1);  // drop cached kernels
    lua_settop(L, 1);
    return 1;
  });
}

}  // namespace

void add_module(lua_State* L) {
  static constexpr const char* fields[] = {"ptx",    "log",     "arch",    "name",         "compile_ms",
                                           "cached", "kernels", "options", "dependencies", nullptr};
  const luaL_Reg meta[] = {{"__index", module_index},
                           {"__tostring", module_tostring},
                           {"__gc", module_gc},
                           {"__close", module_release},
                           {nullptr, nullptr}};
  const luaL_Reg methods[] = {
      {"kernel", module_kernel}, {"reload", module_reload}, {"free", module_release}, {nullptr, nullptr}};
  register_type(L, {.name = kModuleMeta,
                    .meta = meta,
                    .methods = methods,
                    .fields = fields,
                    .more_fields = module_kernel_fields,
                    .var = "m"});
  const luaL_Reg fns[] = {{"compile", cuda_compile}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
