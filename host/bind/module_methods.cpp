// module_methods.cpp: cuda.compile(path | {file=, source=, ...}) -> module, or nil plus
// the formatted diagnostics (a failed compile is a value a script or the watcher can
// print); m:kernel("reduce<256>") / m:kernel("k", "int*"), m:reload(), m:free(). Reading
// the arguments is module_spec.cpp's; compiling, recompiling and finding kernels by name
// are lab's (lab/module.hpp, module_reload.hpp, module_find.hpp).
#include <cstdio>

#include "bind/guard.hpp"
#include "bind/module_bind.hpp"
#include "bind/module_spec.hpp"
#include "bind/runtime.hpp"
#include "lab/module_find.hpp"
#include "lab/module_reload.hpp"

namespace warplab::bind {

ModuleRef build_module(lua_State* L, ModuleSpec spec) {
  static const cu::ContextPtr none;
  const cu::ContextPtr& ctx = runtime(L).offline ? none : gpu_context(L, "cuda.compile");
  return lab::build(std::move(spec), runtime(L).cache.get(), ctx);
}

void refresh_module(lua_State* L, int idx) {
  ModuleRef& m = check_module(L, idx);
  const Runtime& rt = runtime(L);
  if (!lab::refresh(
          m, [L](ModuleSpec s) { return build_module(L, std::move(s)); }, rt.opts.color, rt.opts.quiet))
    return;
  lua_newtable(L);               // +1
  lua_setiuservalue(L, idx, 1);  // -1 drop cached kernels
}

namespace {

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

}  // namespace

int cuda_compile(lua_State* L) {
  return guard(L, [&] {
    std::string why;
    auto spec = spec_from_args(L, 1, why);
    if (!spec) {
      lua_pushnil(L);
      lua_pushstring(L, why.c_str());
      return 2;
    }
    ModuleRef m = build_module(L, std::move(*spec));
    if (!m->result.ok) return push_failure(L, m->result);
    new (lua_newuserdatauv(L, sizeof(ModuleRef), 1)) ModuleRef(std::move(m));  // +1
    luaL_setmetatable(L, kModuleMeta);
    lua_newtable(L);              // +1 kernel cache
    lua_setiuservalue(L, -2, 1);  // -1
    return 1;
  });
}

// m:kernel(name [, "declared, parameter, types"])
int module_kernel(lua_State* L) {
  return guard(L, [&] {
    refresh_module(L, 1);
    ModuleRef& m = check_module(L, 1);
    std::size_t len = 0;
    const char* s = luaL_checklstring(L, 2, &len);
    const std::string name(s, len);  // all of it: "k\0x" must not find k
    const std::string mangled = lab::find_entry(*m, name);
    std::optional<rtc::Signature> sig = rtc::demangle(mangled);
    if (!lua_isnoneornil(L, 3)) sig = rtc::parse_signature(name, luaL_checkstring(L, 3));
    push_kernel(L, make_kernel(L, m, mangled, std::move(sig)));
    return 1;
  });
}

// m:reload(): compile again from the file; on failure keep the old module, return nil, diags.
int module_reload(lua_State* L) {
  return guard(L, [&] {
    ModuleRef& m = check_module(L, 1);
    std::string why;
    ModuleRef fresh = lab::reload(
        m, [L](ModuleSpec s) { return build_module(L, std::move(s)); }, why);
    if (!fresh) {
      lua_pushnil(L);
      lua_pushstring(L, why.c_str());
      return 2;
    }
    if (!fresh->result.ok) return push_failure(L, fresh->result);
    m = std::move(fresh);  // kernels already handed out keep the old code alive
    lua_newtable(L);
    lua_setiuservalue(L, 1, 1);  // drop cached kernels
    lua_settop(L, 1);
    return 1;
  });
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

}  // namespace warplab::bind
