// kernel_args.cpp: marshaling a launch's Lua arguments into the kernel's preallocated
// parameter buffer, each checked against its C++ parameter type (an f32 array is not an
// int*, 3.5 is not an int, 2^40 does not fit one) and the count against the signature.
// What a check compares with is derived once per kernel (plan_args): the accepted array
// types as a bit set, integer ranges as numbers. Nothing here allocates unless it raises.
// Depends on bind/array.hpp, bind/module.hpp.
#include <climits>
#include <cstdio>
#include <cstring>

#include "bind/array.hpp"
#include "bind/host_array.hpp"
#include "bind/module.hpp"
#include "bind/runtime.hpp"
#include "bind/udata.hpp"

namespace warplab::bind {
namespace {

using Kind = rtc::ParamType::Kind;

// "argument 2 (int) of saxpy: <why>", raised; the message is built only here.
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void arg_error(lua_State* L, const KernelObj& k,
                                                            std::size_t i, const char* why) {
  luaL_error(L, "argument %d (%s) of %s: %s", static_cast<int>(i + 1),
             k.sig->params[i].spelling.c_str(), k.display.c_str(), why);
  __builtin_unreachable();
}

[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void range_error(lua_State* L, const KernelObj& k,
                                                              std::size_t i, lua_Integer v) {
  const ArgSlot& s = k.slots[i];
  const bool sign = s.kind == Kind::Signed;
  const int bits = s.bits;
  char range[64];
  if (sign) std::snprintf(range, sizeof range, "%lld..%lld", -(1ll << (bits - 1)), (1ll << (bits - 1)) - 1);
  else std::snprintf(range, sizeof range, "0..%llu", bits >= 64 ? ~0ull : (1ull << bits) - 1);
  arg_error(L, k, i, lua_pushfstring(L, "%I is out of range (%d-bit %s: %s)", v, bits,
                                     sign ? "signed" : "unsigned", range));
}

// A pointer parameter: a live cuda.array of an accepted element type, or nil (null).
void put_pointer(lua_State* L, const KernelObj& k, std::size_t i, int idx, bool check,
                 const void*& array_meta, unsigned char* dst) {
  CUdeviceptr ptr = 0;
  if (auto* a = static_cast<Array*>(fast_testudata(L, idx, array_meta, kArrayMeta))) {
    if (!a->buf || !a->buf->valid()) arg_error(L, k, i, "attempt to use a freed array");
    if (check && !((k.slots[i].dtypes >> static_cast<unsigned>(a->type)) & 1u))
      arg_error(L, k, i, lua_pushfstring(L, "%s %s array cannot be passed as %s", cu::dtype_article(a->type).data(),
                                         cu::dtype_info(a->type).name.data(), k.sig->params[i].spelling.c_str()));
    ptr = a->ptr();
  } else if (!lua_isnil(L, idx)) {
    if (test_host_array(L, idx))
      arg_error(L, k, i, "a cuda.host_array is host memory: copy it into a cuda.array (a:copy(h)) and pass that");
    arg_error(L, k, i, lua_pushfstring(L, "expected a cuda.array (or nil for a null pointer), got %s",
                                       luaL_typename(L, idx)));
  }
  std::memcpy(dst, &ptr, sizeof ptr);
}

// One argument into the kernel's parameter buffer, checked against its declared type.
void put_arg(lua_State* L, KernelObj& k, std::size_t i, int idx, bool check,
             const void*& array_meta) {
  const ArgSlot& s = k.slots[i];
  unsigned char* dst = k.argbuf.data() + s.offset;
  if (check && s.size_mismatch)
    arg_error(L, k, i, lua_pushfstring(L, "the signature says %d bytes but the kernel takes %d",
                                       k.sig->params[i].size, static_cast<int>(s.size)));
  switch (s.kind) {
    case Kind::Pointer:
      put_pointer(L, k, i, idx, check, array_meta, dst);
      return;
    case Kind::Signed:
    case Kind::Unsigned: {
      int exact = 0;  // integers, and floats and numeric strings with an integral value
      const lua_Integer v = lua_tointegerx(L, idx, &exact);
      if (!exact) arg_error(L, k, i, lua_pushfstring(L, "expected an integer, got %s", luaL_tolstring(L, idx, nullptr)));
      if (check && (v < s.lo || v > s.hi)) range_error(L, k, i, v);
      std::memcpy(dst, &v, s.size < sizeof v ? s.size : sizeof v);  // little-endian: the low bytes
      return;
    }
    case Kind::Float: {
      int isnum = 0;
      const double x = lua_tonumberx(L, idx, &isnum);
      if (!isnum) arg_error(L, k, i, lua_pushfstring(L, "expected a number, got %s", luaL_typename(L, idx)));
      if (s.size == 8) std::memcpy(dst, &x, 8);
      else if (s.size == 4) { const float f = static_cast<float>(x); std::memcpy(dst, &f, 4); }
      else { const auto h = cu::float_to_half(static_cast<float>(x)); std::memcpy(dst, &h, 2); }
      return;
    }
    case Kind::Bool:
      if (!lua_isboolean(L, idx)) arg_error(L, k, i, lua_pushfstring(L, "expected a boolean, got %s", luaL_typename(L, idx)));
      *dst = lua_toboolean(L, idx) ? 1 : 0;
      return;
    case Kind::Other: {
      std::size_t n = 0;
      const char* str = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &n) : nullptr;
      if (!str || n != s.size)
        arg_error(L, k, i, lua_pushfstring(L, "this parameter type is passed as its raw bytes: a string of %d bytes",
                                           static_cast<int>(s.size)));
      std::memcpy(dst, str, s.size);
      return;
    }
  }
}

}  // namespace

void plan_args(KernelObj& k) {
  k.slots.clear();
  if (!k.sig) return;
  for (std::size_t i = 0; i < k.sig->params.size(); ++i) {
    const rtc::ParamType& p = k.sig->params[i];
    ArgSlot s;
    s.kind = p.kind;
    // A layout shorter than the signature (make_kernel refuses a different count when it
    // knows one): the parameter's own size at the end of the buffer's spare bytes.
    s.offset = i < k.offsets.size() ? k.offsets[i] : 0;
    s.size = i < k.sizes.size() ? k.sizes[i] : static_cast<std::size_t>(p.size > 0 ? p.size : 0);
    s.size_mismatch = p.size > 0 && static_cast<std::size_t>(p.size) != s.size;
    if (p.kind == Kind::Pointer) {
      for (unsigned t = 0; t <= static_cast<unsigned>(cu::DType::F64); ++t)
        if (cu::pointee_accepts(p.pointee, static_cast<cu::DType>(t))) s.dtypes |= 1u << t;
    } else if (p.kind == Kind::Signed || p.kind == Kind::Unsigned) {
      s.bits = static_cast<int>((s.size < 8 ? s.size : 8) * 8);
      if (p.kind == Kind::Signed) {
        s.lo = s.bits >= 64 ? LLONG_MIN : -(1ll << (s.bits - 1));
        s.hi = s.bits >= 64 ? LLONG_MAX : (1ll << (s.bits - 1)) - 1;
      } else {
        s.hi = s.bits >= 64 ? LLONG_MAX : (1ll << s.bits) - 1;  // lua_Integer >= 0
      }
    }
    k.slots.push_back(s);
  }
}

// Arguments at stack [first, first + n) into the buffer.
void marshal(lua_State* L, Runtime& rt, KernelObj& k, int first, int n) {
  const bool check = rt.opts.check;
  if (!k.sig)
    luaL_error(L, "kernel %s is extern \"C\": declare its parameters with m:kernel(\"%s\", "
               "\"const float*, float*, int\")", k.display.c_str(), k.display.c_str());
  const std::size_t want = k.slots.size();
  if (static_cast<std::size_t>(n) != want)
    luaL_error(L, "%s expects %d arguments (%s), got %d", k.display.c_str(), static_cast<int>(want),
               k.sig->to_string().c_str(), n);
  for (std::size_t i = 0; i < want; ++i) put_arg(L, k, i, first + static_cast<int>(i), check, rt.array_meta);
}

}  // namespace warplab::bind
