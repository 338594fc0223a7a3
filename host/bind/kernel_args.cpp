// kernel_args.cpp: marshaling a launch's Lua arguments into the kernel's preallocated
// parameter buffer, each checked against its C++ parameter type (an f32 array is not an
// int*, 3.5 is not an int, 2^40 does not fit one) and the count against the signature.
// What a check compares with is derived once per kernel (lab::plan_args, lab/launch.hpp):
// the accepted array types as a bit set, integer ranges as numbers; this file only reads
// the Lua values and words the errors. Nothing here allocates unless it raises.
// Depends on bind/array.hpp, bind/module.hpp, lab/launch.hpp.
#include <cstring>

#include "bind/array.hpp"
#include "bind/host_array.hpp"
#include "bind/module.hpp"
#include "bind/runtime.hpp"
#include "bind/udata.hpp"
#include "lab/launch.hpp"

namespace warplab::bind {
namespace {

using Kind = rtc::ParamType::Kind;

// "argument 2 (int) of saxpy: <why>", raised; the message is built only here.
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void arg_error(lua_State* L, const KernelObj& k, std::size_t i,
                                                            const char* why) {
  luaL_error(L, "argument %d (%s) of %s: %s", static_cast<int>(i + 1), k.sig->params[i].spelling.c_str(),
             k.display.c_str(), why);
  __builtin_unreachable();
}

[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void range_error(lua_State* L, const KernelObj& k, std::size_t i,
                                                              lua_Integer v) {
  const std::string range = lab::range_text(k.slots[i]);
  arg_error(L, k, i, lua_pushfstring(L, "%I is out of range (%s)", v, range.c_str()));
}

// A pointer parameter: a live cuda.array of an accepted element type, or nil (null).
void put_pointer(lua_State* L, const KernelObj& k, std::size_t i, int idx, bool check,
                 const void*& array_meta, unsigned char* dst) {
  CUdeviceptr ptr = 0;
  if (auto* a = static_cast<Array*>(fast_testudata(L, idx, array_meta, kArrayMeta))) {
    if (!a->buf || !a->buf->valid()) arg_error(L, k, i, "attempt to use a freed array");
    if (check && !lab::accepts(k.slots[i], a->type))
      arg_error(L, k, i,
                lua_pushfstring(L, "%s %s array cannot be passed as %s", cu::dtype_article(a->type).data(),
                                cu::dtype_info(a->type).name.data(), k.sig->params[i].spelling.c_str()));
    ptr = a->ptr();
  } else if (!lua_isnil(L, idx)) {
    if (test_host_array(L, idx))
      arg_error(L, k, i,
                "a cuda.host_array is host memory: copy it into a cuda.array (a:copy(h)) and pass that");
    arg_error(L, k, i,
              lua_pushfstring(L, "expected a cuda.array (or nil for a null pointer), got %s",
                              luaL_typename(L, idx)));
  }
  std::memcpy(dst, &ptr, sizeof ptr);
}

// One argument into the kernel's parameter buffer, checked against its declared type.
void put_arg(lua_State* L, KernelObj& k, std::size_t i, int idx, bool check, const void*& array_meta) {
  const ArgSlot& s = k.slots[i];
  unsigned char* dst = k.argbuf.data() + s.offset;
  if (check && s.size_mismatch)
    arg_error(L, k, i,
              lua_pushfstring(L, "the signature says %d bytes but the kernel takes %d", k.sig->params[i].size,
                              static_cast<int>(s.size)));
  switch (s.kind) {
    case Kind::Pointer:
      put_pointer(L, k, i, idx, check, array_meta, dst);
      return;
    case Kind::Signed:
    case Kind::Unsigned: {
      int exact = 0;  // integers, and floats and numeric strings with an integral value
      const lua_Integer v = lua_tointegerx(L, idx, &exact);
      if (!exact)
        arg_error(L, k, i,
                  lua_pushfstring(L, "expected an integer, got %s", luaL_tolstring(L, idx, nullptr)));
      if (check && !lab::fits(s, v)) range_error(L, k, i, v);
      lab::put_integer(s, k.argbuf.data(), v);
      return;
    }
    case Kind::Float: {
      int isnum = 0;
      const double x = lua_tonumberx(L, idx, &isnum);
      if (!isnum) arg_error(L, k, i, lua_pushfstring(L, "expected a number, got %s", luaL_typename(L, idx)));
      lab::put_float(s, k.argbuf.data(), x);
      return;
    }
    case Kind::Bool:
      if (!lua_isboolean(L, idx))
        arg_error(L, k, i, lua_pushfstring(L, "expected a boolean, got %s", luaL_typename(L, idx)));
      *dst = lua_toboolean(L, idx) ? 1 : 0;
      return;
    case Kind::Other: {
      std::size_t n = 0;
      const char* str = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &n) : nullptr;
      if (!str || n != s.size)
        arg_error(L, k, i,
                  lua_pushfstring(L, "this parameter type is passed as its raw bytes: a string of %d bytes",
                                  static_cast<int>(s.size)));
      std::memcpy(dst, str, s.size);
      return;
    }
  }
}

}  // namespace

// Arguments at stack [first, first + n) into the buffer.
void marshal(lua_State* L, Runtime& rt, KernelObj& k, int first, int n) {
  const bool check = rt.opts.check;
  if (lab::wrong_arity(k, n)) [[unlikely]]
    luaL_error(L, "%s", lab::arity_error(k, n).c_str());
  const std::size_t want = k.slots.size();
  for (std::size_t i = 0; i < want; ++i) put_arg(L, k, i, first + static_cast<int>(i), check, rt.array_meta);
}

}  // namespace warplab::bind
