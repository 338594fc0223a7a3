// launch_args.cpp: a launch read from Lua (args.hpp): a dimension, the launch table and
// its argument list, the arguments marshaled into the kernel's preallocated parameter
// buffer (an f32 array is not an int*, 3.5 is not an int), and the calling line. The usual
// launch looks nothing up by text, allocates nothing and builds no message.
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "bind/args.hpp"
#include "bind/guard.hpp"
#include "bind/record.hpp"
#include "bind/udata.hpp"
#include "lab/launch.hpp"

namespace warplab::bind {

// ---- a dimension: an integer >= 0, or a list of 1 to 3 of them (the usual integer costs one
// conversion and builds no message) ------------------------------------------------------

namespace {

unsigned dim_value(lua_State* L, int at, const char* what) {
  lua_Integer n = 0;
  if (!read_integer(L, at, 0, UINT_MAX, n))
    raise(L, "%s must be an integer >= 0 or a list of 1 to 3 of them (got %s)", what,
          luaL_tolstring(L, at, nullptr));
  return static_cast<unsigned>(n);
}

}  // namespace

// A dimension that is not one integer: a list of 1 to 3, or an error. Out of line, so the
// usual case in check_dim (args.hpp) saves no registers for it.
cu::Dim3 dim_list(lua_State* L, int idx, const char* what) {
  if (!lua_istable(L, idx)) return {dim_value(L, idx, what), 1, 1};  // raises
  idx = lua_absindex(L, idx);
  cu::Dim3 d;
  unsigned* v[3] = {&d.x, &d.y, &d.z};
  const auto len = lua_rawlen(L, idx);
  if (len < 1 || len > 3) raise(L, "%s must have 1 to 3 dimensions, got %d", what, static_cast<int>(len));
  for (int i = 0; i < static_cast<int>(len); ++i) {
    lua_rawgeti(L, idx, i + 1);  // +1
    *v[i] = dim_value(L, lua_gettop(L), what);
    lua_pop(L, 1);  // -1
  }
  return d;
}

// ---- the launch table ------------------------------------------------------------------------

namespace {

// Pushes t[key] for the table t at idx (through its metatable, if any); returns its type.
int field(lua_State* L, int idx, LaunchKey key) {
  lua_pushvalue(L, lua_upvalueindex(key));  // +1 the interned key
  return lua_gettable(L, idx);              // -1 +1 value
}

// Pushes the elements of the list at idx, the stack's top being `top`; returns how many.
// A list with nil holes (a null pointer) counts to its `n` field when it has one.
int push_list(lua_State* L, int idx, int top) {
  lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L, idx));
  lua_pushvalue(L, lua_upvalueindex(kCount));                                               // +1 "n"
  if (lua_rawget(L, idx) == LUA_TNUMBER && lua_isinteger(L, -1)) n = lua_tointeger(L, -1);  // -1 +1 n
  lua_pop(L, 1);                                                                            // -1
  if (n < 0 || n > 4096) raise(L, "args.n = %I is not an argument count", n);
  // Room for the arguments and what the launch pushes after them (the fault note's): a C
  // function is given LUA_MINSTACK free slots, enough for the usual few.
  if (top + n + 4 > LUA_MINSTACK) luaL_checkstack(L, static_cast<int>(n) + 4, "too many kernel arguments");
  for (lua_Integer i = 1; i <= n; ++i) lua_rawgeti(L, idx, i);  // +n
  return static_cast<int>(n);
}

// The usual launch table, plain, with integer grid and block >= 1 and an args list, in
// one pass over its entries (lua_next), keys told apart by their interned address
// (StateRecord::launch_keys): a cost per entry present, none per field absent. Anything else
// (a list for a dimension, a zero, a missing or bad field, shared, stream, cooperative or
// cluster present) returns false with the stack as it was, for read_fields.
bool read_plain(lua_State* L, int idx, StateRecord& st, bool with_args, TableLaunch& t) {
  const void** keys = st.launch_keys;
  if (!keys[0]) [[unlikely]]
    for (int k = 0; k < kArgs; ++k) keys[k] = lua_topointer(L, lua_upvalueindex(k + 1));
  const int list = lua_gettop(L) + 1;
  lua_pushnil(L);  // +1 the args list's slot
  lua_pushnil(L);  // +1 the first key
  unsigned seen = 0;
  while (lua_next(L, idx)) {  // -1 +2 key, value
    const void* key = lua_topointer(L, -2);
    bool usual = true;
    if (key == keys[kGrid - 1] || key == keys[kBlock - 1]) {
      lua_Integer n = 0;
      usual = read_integer(L, -1, 1, UINT_MAX, n);
      (key == keys[kGrid - 1] ? t.config.grid : t.config.block) = {static_cast<unsigned>(n), 1, 1};
      seen |= key == keys[kGrid - 1] ? 1u : 2u;
    } else if (key == keys[kArgs - 1]) {
      usual = lua_type(L, -1) == LUA_TTABLE;
      lua_copy(L, -1, list);
      seen |= 4u;
    } else if (key) {  // one of the other fields, or a key of the caller's own
      usual = std::find(keys + kShared - 1, keys + kCluster, key) == keys + kCluster;
    }
    if (!usual) break;
    lua_pop(L, 1);  // -1 value
  }
  if (lua_gettop(L) != list || (seen & 3u) != 3u) {  // left early, or grid or block missing
    lua_settop(L, list - 1);                         // -slot (-key -value)
    return false;
  }
  if (with_args && (seen & 4u)) t.n = push_list(L, list, list);  // +n
  t.first = list + 1;
  return true;
}

// Any launch table, field by field in the fields' order, which words the first error.
TableLaunch read_fields(lua_State* L, int idx, bool with_args) {
  TableLaunch t;
  cu::LaunchConfig& c = t.config;
  if (field(L, idx, kGrid) == LUA_TNIL) raise(L, "launch table needs grid =");  // +1
  c.grid = check_dim(L, -1, "grid");
  if (field(L, idx, kBlock) == LUA_TNIL) raise(L, "launch table needs block =");  // +1
  c.block = check_dim(L, -1, "block");
  if (field(L, idx, kShared) != LUA_TNIL) {  // +1
    lua_Integer s = 0;
    if (!read_integer(L, -1, 0, UINT_MAX, s))
      raise(L, "shared must be a byte count >= 0, got %s", luaL_tolstring(L, -1, nullptr));
    c.shared_bytes = static_cast<unsigned>(s);
  }
  if (field(L, idx, kStream) != LUA_TNIL) t.stream_at = lua_gettop(L);  // +1: taken once all are read
  if (field(L, idx, kCooperative) != LUA_TNIL) {                        // +1; "yes" or 0 is no answer
    if (!lua_isboolean(L, -1)) raise(L, "cooperative must be true or false, got %s", luaL_typename(L, -1));
    c.cooperative = lua_toboolean(L, -1);
  }
  if (field(L, idx, kCluster) != LUA_TNIL)
    c.cluster = check_dim(L, -1, "cluster");  // +1; a zero: cu::check names it
  if (with_args) {
    const int args = lua_gettop(L) + 1;
    if (field(L, idx, kArgs) == LUA_TTABLE)
      t.n = push_list(L, args, args);  // +1 +n (raw reads)
    else if (!lua_isnil(L, args))
      raise(L, "args must be a list");
    t.first = args + 1;
  }
  recheck_stream(L, t);  // every field read: no Lua code runs between this and the launch
  return t;
}

}  // namespace

void recheck_stream(lua_State* L, TableLaunch& t) {
  if (t.stream_at) t.config.stream = opt_stream(L, t.stream_at);
}

void push_launch_keys(lua_State* L) {
  for (const char* k : {"grid", "block", "shared", "stream", "cooperative", "cluster", "args", "n"})
    lua_pushstring(L, k);  // +1 each
}

TableLaunch read_launch_table(lua_State* L, int idx, bool with_args) {
  TableLaunch t;
  if (lua_getmetatable(L, idx))
    lua_pop(L, 1);  // +1 -1: its __index may supply fields
  else if (read_plain(L, idx, record_of(L), with_args, t))
    return t;
  return read_fields(L, idx, with_args);
}

cu::LaunchConfig config_from_table(lua_State* L, int idx) {
  const int top = lua_gettop(L);
  const cu::LaunchConfig c = read_launch_table(L, idx, false).config;  // +fields
  lua_settop(L, top);                                                  // -fields
  return c;
}

// ---- the arguments: what a check compares with is derived once per kernel (lab::plan_args):
// the accepted array types as a bit set, integer ranges as numbers; here only the Lua values
// are read and the errors worded, onto the Lua stack (lab::launch raises them after the
// configuration's checks) -------------------------------------------------------------------

namespace {

using Kind = rtc::ParamType::Kind;

// "argument 2 (int) of saxpy: <why>": the message is built only here.
[[gnu::cold]] [[gnu::noinline]] const char* arg_error(lua_State* L, const lab::KernelObj& k, std::size_t i,
                                                      const char* why) {
  return lua_pushfstring(L, "argument %d (%s) of %s: %s", static_cast<int>(i + 1),
                         k.sig->params[i].spelling.c_str(), k.display.c_str(), why);
}

[[gnu::cold]] [[gnu::noinline]] const char* range_error(lua_State* L, const lab::KernelObj& k, std::size_t i,
                                                        lua_Integer v) {
  const std::string range = lab::range_text(k.slots[i]);
  return arg_error(L, k, i, lua_pushfstring(L, "%I is out of range (%s)", v, range.c_str()));
}

[[gnu::cold]] [[gnu::noinline]] const char* float_range_error(lua_State* L, const lab::KernelObj& k,
                                                              std::size_t i, double x) {
  const std::string range = lab::range_text(k.slots[i]);
  return arg_error(L, k, i,
                   lua_pushfstring(L, "%f is out of range (%s)", static_cast<lua_Number>(x), range.c_str()));
}

// A pointer parameter: a live cuda.array of an accepted element type, or nil (null).
// During a capture an array whose memory the capture does not use yet is listed in
// st.new_uses, for keep_launch_args once the launch was captured.
const char* put_pointer(lua_State* L, const lab::KernelObj& k, std::size_t i, int idx, bool check,
                        StateRecord& st, unsigned char* dst) {
  CUdeviceptr ptr = 0;
  auto* a = static_cast<lab::DeviceArray*>(memo_testudata(L, idx, st.array_memo, [&st](lua_State* s, int at) {
    return fast_testudata(s, at, st.array_meta, kArrayMeta);
  }));
  if (a) {
    if (!a->buf || !a->buf->valid()) return arg_error(L, k, i, "attempt to use a freed array");
    if (check && !lab::accepts(k.slots[i], a->type))
      return arg_error(
          L, k, i,
          lua_pushfstring(L, "%s %s array cannot be passed as %s", cu::dtype_article(a->type).data(),
                          cu::dtype_info(a->type).name.data(), k.sig->params[i].spelling.c_str()));
    ptr = a->ptr();
    if (st.run.capture.active() && !st.run.capture.uses(*a)) [[unlikely]]
      st.new_uses[st.new_use_count++] = {idx, a};
  } else if (!lua_isnil(L, idx)) {
    if (test_host_array(L, idx))
      return arg_error(
          L, k, i, "a cuda.host_array is host memory: copy it into a cuda.array (a:copy(h)) and pass that");
    if (test_tensor_map(L, idx))
      return arg_error(L, k, i,
                       "expected a cuda.array (or nil for a null pointer), got a cuda.tensor_map: it goes to "
                       "a CUtensorMap parameter (const __grid_constant__ CUtensorMap)");
    return arg_error(L, k, i,
                     lua_pushfstring(L, "expected a cuda.array (or nil for a null pointer), got %s",
                                     luaL_typename(L, idx)));
  }
  std::memcpy(dst, &ptr, sizeof ptr);
  return nullptr;
}

// A CUtensorMap parameter given a cuda.tensor_map: its 128 bytes, when the map and its
// array are still there (nullptr), else the sentence.
const char* put_tensor_map(lua_State* L, const lab::KernelObj& k, std::size_t i, const TensorMapHandle& h,
                           unsigned char* dst) {
  if (!h.map) return arg_error(L, k, i, "attempt to use a freed tensor map");
  if (h.map->freed()) return arg_error(L, k, i, "the tensor map's array was freed");
  if (k.slots[i].size != sizeof(CUtensorMap))
    return arg_error(
        L, k, i,
        lua_pushfstring(L, "the kernel's parameter is %d bytes, a CUtensorMap %d",
                        static_cast<int>(k.slots[i].size), static_cast<int>(sizeof(CUtensorMap))));
  std::memcpy(dst, &h.map->map, sizeof(CUtensorMap));
  return nullptr;
}

// One argument into the kernel's parameter buffer, checked against its declared type.
const char* put_arg(lua_State* L, lab::KernelObj& k, std::size_t i, int idx, bool check, StateRecord& st) {
  const lab::ArgSlot& s = k.slots[i];
  unsigned char* dst = k.argbuf.data() + s.offset;
  if (check && s.size_mismatch)
    return arg_error(L, k, i,
                     lua_pushfstring(L, "the signature says %d bytes but the kernel takes %d",
                                     k.sig->params[i].size, static_cast<int>(s.size)));
  switch (s.kind) {
    case Kind::Pointer:
      return put_pointer(L, k, i, idx, check, st, dst);
    case Kind::Signed:
    case Kind::Unsigned: {
      lua_Integer v = 0;  // integers, and floats and numeric strings with an integral value
      if (!read_integer(L, idx, LUA_MININTEGER, LUA_MAXINTEGER, v))
        return arg_error(L, k, i,
                         lua_pushfstring(L, "expected an integer, got %s", luaL_tolstring(L, idx, nullptr)));
      if (check && !lab::fits(s, v)) return range_error(L, k, i, v);
      lab::put_integer(s, k.argbuf.data(), v);
      return nullptr;
    }
    case Kind::Float: {
      int isnum = 0;
      const double x = lua_tonumberx(L, idx, &isnum);
      if (!isnum)
        return arg_error(L, k, i, lua_pushfstring(L, "expected a number, got %s", luaL_typename(L, idx)));
      if (!lab::put_float(s, k.argbuf.data(), x)) return float_range_error(L, k, i, x);
      return nullptr;
    }
    case Kind::Bool:
      if (!lua_isboolean(L, idx))
        return arg_error(L, k, i, lua_pushfstring(L, "expected a boolean, got %s", luaL_typename(L, idx)));
      *dst = lua_toboolean(L, idx) ? 1 : 0;
      return nullptr;
    case Kind::Other: {
      if (s.tensor_map) [[unlikely]]
        if (const TensorMapHandle* h = test_tensor_map(L, idx)) {
          const char* why = put_tensor_map(L, k, i, *h, dst);
          if (!why && st.run.capture.active()) st.new_uses[st.new_use_count++] = {idx, nullptr};  // its array
          return why;
        }
      std::size_t n = 0;
      const char* str = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &n) : nullptr;
      if (!str || n != s.size)
        return arg_error(
            L, k, i,
            s.tensor_map
                ? lua_pushfstring(L, "expected a cuda.tensor_map (or its %d bytes as a string), got %s",
                                  static_cast<int>(s.size), luaL_typename(L, idx))
                : lua_pushfstring(L, "this parameter type is passed as its raw bytes: a string of %d bytes",
                                  static_cast<int>(s.size)));
      std::memcpy(dst, str, s.size);
      return nullptr;
    }
  }
  return nullptr;
}

// The function on top of the stack (left there) launched: remember its chunk name.
[[gnu::noinline]] void remember_source(lua_State* L, StateRecord& st) {
  lua_Debug ar;
  lua_pushvalue(L, -1);                                    // +1 function
  lua_getinfo(L, ">S", &ar);                               // -1
  std::memcpy(st.source, ar.short_src, sizeof st.source);  // both LUA_IDSIZE, NUL-terminated
  lua_pushvalue(L, -1);                                    // +1 function
  lua_rawsetp(L, LUA_REGISTRYINDEX, &st.source_fn);        // -1 keeps it alive while remembered
  st.source_fn = lua_topointer(L, -1);
}

}  // namespace

const char* marshal(lua_State* L, StateRecord& st, lab::KernelObj& k, int first, int n) {
  st.new_use_count = 0;
  if (lab::wrong_arity(k, n)) [[unlikely]]
    return lua_pushstring(L, lab::arity_error(k, n).c_str());
  const bool check = st.run.opts.check;
  const std::size_t want = k.slots.size();
  if (st.new_uses.size() < want) [[unlikely]]
    st.new_uses.resize(want);
  for (std::size_t i = 0; i < want; ++i)
    if (const char* why = put_arg(L, k, i, first + static_cast<int>(i), check, st)) [[unlikely]]
      return why;
  return nullptr;
}

static_assert(sizeof(StateRecord::source) == lab::kSourceSize, "lab::kSourceSize must be LUA_IDSIZE");

lab::Where launch_site(lua_State* L, StateRecord& st) {
  lab::Where w;
  lua_Debug ar;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "fl", &ar)) {  // +1 function
    if (ar.currentline > 0) {                                  // a Lua function (a C caller has no line)
      if (lua_topointer(L, -1) != st.source_fn) remember_source(L, st);
      w = {st.source, ar.currentline};
    }
    lua_pop(L, 1);  // -1
  }
  return w;
}

}  // namespace warplab::bind
