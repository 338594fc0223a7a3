// kernel_args.cpp: marshaling a launch's Lua arguments into the kernel's preallocated
// parameter buffer, each checked against its C++ parameter type (an f32 array is not an
// int*, 3.5 is not an int, 2^40 does not fit one) and the count against the signature.
// Nothing here allocates unless it raises. Depends on bind/array.hpp, bind/module.hpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "bind/array.hpp"
#include "bind/host_array.hpp"
#include "bind/module.hpp"

namespace warplab::bind {
namespace {

using Kind = rtc::ParamType::Kind;

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
          fail(lua_pushfstring(L, "%s %s array cannot be passed as %s", cu::dtype_article(a->type).data(),
                              cu::dtype_info(a->type).name.data(), p.spelling.c_str()));
        ptr = a->ptr();
      } else if (test_host_array(L, idx)) {
        fail("a cuda.host_array is host memory: copy it into a cuda.array (a:copy(h)) and pass that");
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
      const int bits = static_cast<int>(std::min<std::size_t>(size, 8) * 8);
      const bool sign = p.kind == Kind::Signed;
      const bool ok = sign ? (bits >= 64 || (v >= -(1ll << (bits - 1)) && v < (1ll << (bits - 1))))
                           : (v >= 0 && (bits >= 64 || v < (1ll << bits)));
      if (check && !ok) {
        char range[64];  // the error path only
        if (sign) std::snprintf(range, sizeof range, "%lld..%lld", -(1ll << (bits - 1)), (1ll << (bits - 1)) - 1);
        else std::snprintf(range, sizeof range, "0..%llu", bits >= 64 ? ~0ull : (1ull << bits) - 1);
        fail(lua_pushfstring(L, "%I is out of range (%d-bit %s: %s)", v, bits,
                             sign ? "signed" : "unsigned", range));
      }
      std::memcpy(dst, &v, std::min<std::size_t>(size, sizeof v));  // little-endian: the low bytes
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

}  // namespace

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


}  // namespace warplab::bind
