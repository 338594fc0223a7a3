// kernel_launch.cpp: k:launch(grid, block, args...), k{grid=, block=, shared=, stream=,
// cooperative=, args={...}}, k:check{...} and k:bench{...}. Before the driver sees a
// launch, the configuration is checked against the device's limits and every argument
// against the kernel's parameter types. Nothing here allocates on the launch path.
#include <climits>
#include <cmath>
#include <cstring>

#include "bind/array.hpp"
#include "bind/fault.hpp"
#include "bind/guard.hpp"
#include "bind/module.hpp"
#include "bind/runtime.hpp"
#include "bind/stream.hpp"
#include "cu/launch.hpp"

namespace warplab::bind {
namespace {

using Kind = rtc::ParamType::Kind;

cu::Dim3 check_dim(lua_State* L, int idx, const char* what) {
  cu::Dim3 d;
  unsigned* v[3] = {&d.x, &d.y, &d.z};
  auto take = [&](int i, int at) {
    lua_Integer n = 0;
    if (!lua_isinteger(L, at) || (n = lua_tointeger(L, at)) < 1 || n > UINT_MAX)
      luaL_error(L, "%s must be a positive integer or a table of 1 to 3 of them (got %s)", what,
                 luaL_tolstring(L, at, nullptr));
    *v[i] = static_cast<unsigned>(n);
  };
  if (lua_istable(L, idx)) {
    const auto n = lua_rawlen(L, idx);
    if (n < 1 || n > 3) luaL_error(L, "%s must have 1 to 3 dimensions, got %d", what, static_cast<int>(n));
    for (int i = 0; i < static_cast<int>(n); ++i) {
      lua_rawgeti(L, idx, i + 1);
      take(i, lua_gettop(L));
      lua_pop(L, 1);
    }
  } else {
    take(0, idx);
  }
  return d;
}

// One argument into the kernel's parameter buffer, checked against its declared type.
void put_arg(lua_State* L, KernelObj& k, std::size_t i, int idx, bool check) {
  const rtc::ParamType& p = k.sig->params[i];
  unsigned char* dst = k.argbuf.data() + k.offsets[i];
  const std::size_t size = k.sizes[i];
  auto fail = [&](const char* why) {
    luaL_error(L, "argument %d (%s) of %s: %s", static_cast<int>(i + 1), p.spelling.c_str(),
               k.display.c_str(), why);
  };
  if (check && p.size > 0 && static_cast<std::size_t>(p.size) != size)
    fail(lua_pushfstring(L, "the signature says %d bytes but the kernel takes %d", p.size, static_cast<int>(size)));
  switch (p.kind) {
    case Kind::Pointer: {
      CUdeviceptr ptr = 0;
      if (Array* a = test_array(L, idx)) {
        if (!a->buf || !a->buf->valid()) fail("attempt to use a freed array");
        if (check && !cu::pointee_accepts(p.pointee, a->type))
          fail(lua_pushfstring(L, "a %s array cannot be passed as %s", cu::dtype_info(a->type).name.data(), p.spelling.c_str()));
        ptr = a->ptr();
      } else if (!lua_isnil(L, idx)) {
        fail(lua_pushfstring(L, "expected a cuda.array (or nil for a null pointer), got %s", luaL_typename(L, idx)));
      }
      std::memcpy(dst, &ptr, sizeof ptr);
      return;
    }
    case Kind::Signed:
    case Kind::Unsigned: {
      lua_Integer v = 0;
      if (lua_isinteger(L, idx)) v = lua_tointeger(L, idx);
      else if (!lua_isnumber(L, idx) || !lua_numbertointeger(lua_tonumber(L, idx), &v) ||
               std::floor(lua_tonumber(L, idx)) != lua_tonumber(L, idx))
        fail(lua_pushfstring(L, "expected an integer, got %s", luaL_tolstring(L, idx, nullptr)));
      const int bits = static_cast<int>(size * 8);
      const bool ok = p.kind == Kind::Signed
          ? (bits >= 64 || (v >= -(1ll << (bits - 1)) && v < (1ll << (bits - 1))))
          : (v >= 0 && (bits >= 64 || v < (1ll << bits)));
      if (check && !ok) fail(lua_pushfstring(L, "%I does not fit in %d bits", v, bits));
      std::memcpy(dst, &v, size);  // little-endian: the low bytes
      return;
    }
    case Kind::Float: {
      if (!lua_isnumber(L, idx)) fail(lua_pushfstring(L, "expected a number, got %s", luaL_typename(L, idx)));
      const double x = lua_tonumber(L, idx);
      if (size == 8) std::memcpy(dst, &x, 8);
      else if (size == 4) { const float f = static_cast<float>(x); std::memcpy(dst, &f, 4); }
      else { const auto h = cu::float_to_half(static_cast<float>(x)); std::memcpy(dst, &h, 2); }
      return;
    }
    case Kind::Bool:
      if (!lua_isboolean(L, idx)) fail(lua_pushfstring(L, "expected a boolean, got %s", luaL_typename(L, idx)));
      *dst = lua_toboolean(L, idx) ? 1 : 0;
      return;
    case Kind::Other: {
      std::size_t n = 0;
      const char* s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &n) : nullptr;
      if (!s || n != size)
        fail(lua_pushfstring(L, "this parameter type is passed as its raw bytes: a string of %d bytes", static_cast<int>(size)));
      std::memcpy(dst, s, size);
      return;
    }
  }
}

// Arguments at stack [first, first + n) into the buffer.
void marshal(lua_State* L, KernelObj& k, int first, int n, bool check) {
  if (!k.sig)
    luaL_error(L, "kernel %s is extern \"C\": declare its parameters with m:kernel(\"%s\", "
               "\"const float*, float*, int\")", k.display.c_str(), k.display.c_str());
  const std::size_t want = k.sig->params.size();
  if (static_cast<std::size_t>(n) != want)
    luaL_error(L, "%s expects %d arguments (%s), got %d", k.display.c_str(), static_cast<int>(want),
               k.sig->to_string().c_str(), n);
  for (std::size_t i = 0; i < want; ++i) put_arg(L, k, i, first + static_cast<int>(i), check);
}

// Reads grid/block/shared/stream/cooperative from the table at idx.
cu::LaunchConfig config_from_table(lua_State* L, int idx) {
  cu::LaunchConfig c;
  if (lua_getfield(L, idx, "grid") == LUA_TNIL) luaL_error(L, "launch table needs grid =");
  c.grid = check_dim(L, lua_gettop(L), "grid");
  if (lua_getfield(L, idx, "block") == LUA_TNIL) luaL_error(L, "launch table needs block =");
  c.block = check_dim(L, lua_gettop(L), "block");
  if (lua_getfield(L, idx, "shared") != LUA_TNIL) {
    const lua_Integer s = luaL_checkinteger(L, -1);
    if (s < 0 || s > UINT_MAX) luaL_error(L, "shared must be a byte count >= 0, got %I", s);
    c.shared_bytes = static_cast<unsigned>(s);
  }
  lua_getfield(L, idx, "stream");
  c.stream = opt_stream(L, lua_gettop(L));
  lua_getfield(L, idx, "cooperative");
  c.cooperative = lua_toboolean(L, -1);
  lua_settop(L, idx);
  return c;
}

void do_launch(lua_State* L, KernelObj& k, const cu::LaunchConfig& c, int first, int n) {
  Runtime& rt = runtime(L);
  const bool check = rt.opts.check;
  if (check) cu::validate(c, k.limits, device_limits(L));
  marshal(L, k, first, n, check);
  if (!k.fn) require_gpu(L, "a kernel launch");
  note_launch(L, k.display.c_str());
  cu::launch(*k.fn, c, k.argptrs.data());
  if (rt.opts.sync) checked_sync(L, [&] { rt.context->synchronize(); });
}

WL_LUA_FN(kernel_launch) {
  KernelObj& k = *check_kernel(L, 1);
  cu::LaunchConfig c;
  c.grid = check_dim(L, 2, "grid");
  c.block = check_dim(L, 3, "block");
  do_launch(L, k, c, 4, lua_gettop(L) - 3);
  return 0;
}

// Pushes the elements of the table's args list onto the stack; returns how many.
int push_args(lua_State* L, int idx) {
  if (lua_getfield(L, idx, "args") != LUA_TTABLE) {
    if (!lua_isnil(L, -1)) luaL_error(L, "args must be a list");
    lua_pop(L, 1);
    return 0;
  }
  const int list = lua_gettop(L);
  const int n = static_cast<int>(lua_rawlen(L, list));
  luaL_checkstack(L, n, "too many kernel arguments");
  for (int i = 1; i <= n; ++i) lua_rawgeti(L, list, i);
  lua_remove(L, list);  // the arguments now start where the list was
  return n;
}

// k:check{grid=, block=, shared=, cooperative=} -> true | false, why (works offline).
WL_LUA_FN(kernel_check) {
  KernelObj& k = *check_kernel(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  const cu::LaunchConfig c = config_from_table(L, 2);
  try {
    cu::validate(c, k.limits, device_limits(L));
  } catch (const cu::Error& e) {
    lua_pushboolean(L, 0);
    lua_pushstring(L, e.what());
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

// k:bench{grid=, block=, shared=, stream=, args={}, warmup=5, reps=100}
WL_LUA_FN(kernel_bench) {
  KernelObj& k = *check_kernel(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  const cu::LaunchConfig c = config_from_table(L, 2);
  lua_getfield(L, 2, "warmup");
  const int warmup = static_cast<int>(luaL_optinteger(L, -1, 5));
  lua_getfield(L, 2, "reps");
  const int reps = static_cast<int>(luaL_optinteger(L, -1, 100));
  lua_settop(L, 2);
  luaL_argcheck(L, warmup >= 0 && reps >= 1, 2, "warmup must be >= 0 and reps >= 1");
  const int n = push_args(L, 2);
  do_launch(L, k, c, 3, n);  // checks everything once, then launches without re-marshaling
  for (int i = 1; i < warmup; ++i) cu::launch(*k.fn, c, k.argptrs.data());
  std::vector<cu::Event> ev;
  for (int i = 0; i < 2 * reps; ++i) ev.emplace_back(runtime(L).context);
  for (int i = 0; i < reps; ++i) {
    ev[2 * i].record(c.stream);
    cu::launch(*k.fn, c, k.argptrs.data());
    ev[2 * i + 1].record(c.stream);
  }
  checked_sync(L, [&] { ev.back().synchronize(); });
  std::vector<double> ms(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) ms[i] = cu::elapsed_ms(ev[2 * i], ev[2 * i + 1]);
  push_timing(L, std::move(ms));
  return 1;
}

}  // namespace

// k{grid=, block=, ...}
int kernel_call(lua_State* L) {
  return guard(L, [L] {
    KernelObj& k = *check_kernel(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    const cu::LaunchConfig c = config_from_table(L, 2);
    const int n = push_args(L, 2);
    do_launch(L, k, c, lua_gettop(L) - n + 1, n);
    return 0;
  });
}

void add_kernel_launch(lua_State* L) {
  const luaL_Reg methods[] = {{"launch", kernel_launch}, {"check", kernel_check},
                              {"bench", kernel_bench}, {nullptr, nullptr}};
  luaL_setfuncs(L, methods, 0);
}

}  // namespace warplab::bind
