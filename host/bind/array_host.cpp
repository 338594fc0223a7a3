// array_host.cpp: host-side element conversion and the bulk methods (get, set, fill,
// iota, random) of device arrays and host arrays alike. A device array is worked on
// through a host image: large ones bounce through the runtime's page-locked staging
// buffer, which is faster than pageable memory for multi-megabyte copies; small ones use
// a plain vector. A host array (cuda.host_array) is worked on in place.
#include "bind/array_host.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "bind/guard.hpp"
#include "bind/host_array.hpp"
#include "bind/runtime.hpp"

namespace warplab::bind {
namespace {

constexpr std::size_t kPinnedFrom = 1 << 20;  // bytes; below this pageable memory is as fast

// Host memory for `bytes`: the pinned staging buffer (grown) or `fallback`.
unsigned char* host_scratch(lua_State* L, std::size_t bytes, std::vector<unsigned char>& fallback) {
  Runtime& rt = runtime(L);
  if (bytes >= kPinnedFrom && rt.context) {
    if (rt.staging.size() < bytes) rt.staging = cu::PinnedBuffer(rt.context, bytes);
    return static_cast<unsigned char*>(rt.staging.data());
  }
  fallback.resize(bytes);
  return fallback.data();
}

// A number as a person writes it in a message: 299, 0.5, 1e+100 (not 299.0).
std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.14g", x);
  return buf;
}

// xoshiro256** seeded by splitmix64: a small, well-known generator, written here.
struct Rng {
  std::uint64_t s[4];
  explicit Rng(std::uint64_t seed) {
    for (auto& x : s) {
      seed += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      x = z ^ (z >> 31);
    }
  }
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t next() {
    const std::uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

// The elements a bulk method works on: a host array's own memory, or a host image of a
// device array (downloaded by load(), uploaded by commit()).
struct Elements {
  cu::DType type = cu::DType::F32;
  std::size_t count = 0, elem = 0;
  unsigned char* data = nullptr;
  Array* dev = nullptr;  // non-null: `data` is an image of this device array
  std::vector<unsigned char> own;

  std::size_t bytes() const { return count * elem; }
  void load() const {
    if (dev) dev->buf->copy_to_host(data, bytes(), dev->byte_offset());
  }
  void commit() const {
    if (dev) dev->buf->copy_from_host(data, bytes(), dev->byte_offset());
  }
};

// The elements of the device or host array at idx (raising when freed or neither).
Elements elements(lua_State* L, int idx) {
  Elements e;
  if (test_host_array(L, idx)) {
    const HostArray& h = check_host_array(L, idx);
    e.type = h.type, e.count = h.count, e.elem = h.elem(), e.data = h.data();
    return e;
  }
  Array& a = check_array(L, idx);
  e.type = a.type, e.count = a.count, e.elem = a.elem(), e.dev = &a;
  e.data = host_scratch(L, a.bytes(), e.own);
  return e;
}

WL_LUA_FN(array_get) {
  const Elements e = elements(L, 1);
  e.load();
  lua_createtable(L, static_cast<int>(e.count), 0);  // +1 table
  for (std::size_t i = 0; i < e.count; ++i) {
    push_element(L, e.type, e.data + i * e.elem);         // +1
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
  }
  return 1;
}

WL_LUA_FN(array_set) {
  const bool host = test_host_array(L, 1) != nullptr;
  const std::size_t count = host ? check_host_array(L, 1).count : check_array(L, 1).count;
  luaL_checktype(L, 2, LUA_TTABLE);
  const lua_Integer at = luaL_optinteger(L, 3, 1);
  const std::size_t n = lua_rawlen(L, 2);
  if (at < 1 || static_cast<std::size_t>(at - 1) + n > count)
    return luaL_error(L, "set: %I values at index %I do not fit in %I elements", static_cast<lua_Integer>(n),
                      at, static_cast<lua_Integer>(count));
  if (host) {  // converted first, so a bad value leaves the array as it was
    HostArray& h = check_host_array(L, 1);
    const std::vector<unsigned char> img = table_image(L, 2, h.type);
    if (!img.empty())
      std::memcpy(h.data() + static_cast<std::size_t>(at - 1) * h.elem(), img.data(), img.size());
  } else {
    upload_table(L, 2, check_array(L, 1), static_cast<std::size_t>(at - 1));
  }
  lua_settop(L, 1);
  return 1;
}

// Sets every element to f(i, p), then commits (device arrays: one upload).
template <class F>
void fill_with(const Elements& e, F&& f) {
  for (std::size_t i = 0; i < e.count; ++i) f(i, e.data + i * e.elem);
  e.commit();
}

WL_LUA_FN(array_fill) {
  const Elements e = elements(L, 1);
  unsigned char one[8];
  to_element(L, 2, e.type, one, "fill value");
  fill_with(e, [&](std::size_t, unsigned char* p) { std::memcpy(p, one, e.elem); });
  lua_settop(L, 1);
  return 1;
}

// :iota([start [, step]]): element i (1-based) = start + (i - 1) * step. For integer
// arrays start and step must be integers and both ends must fit the type (the
// sequence is linear, so the ends bound it).
WL_LUA_FN(array_iota) {
  const Elements a = elements(L, 1);
  const lua_Number start = luaL_optnumber(L, 2, 0), step = luaL_optnumber(L, 3, 1);
  const auto& info = cu::dtype_info(a.type);
  if (!info.is_float) {
    const lua_Number last = start + step * static_cast<lua_Number>(a.count - 1);
    lua_Integer lo = 0, hi = 0;
    if (start != std::floor(start) || step != std::floor(step))
      return luaL_error(L, "iota: start and step must be integers for %s %s array",
                        cu::dtype_article(a.type).data(), info.name.data());
    if (!lua_numbertointeger(start, &lo) || !lua_numbertointeger(last, &hi) || !cu::int_fits(a.type, lo) ||
        !cu::int_fits(a.type, hi))
      return luaL_error(L, "iota: %d elements from %s by %s end at %s, which does not fit %s",
                        static_cast<int>(a.count), num(start).c_str(), num(step).c_str(), num(last).c_str(),
                        info.name.data());
  }
  fill_with(a, [&](std::size_t i, unsigned char* p) {
    const double x = start + step * static_cast<double>(i);
    info.is_float ? cu::store_float(a.type, p, x) : cu::store_int(a.type, p, static_cast<std::int64_t>(x));
  });
  lua_settop(L, 1);
  return 1;
}

// :random{seed=, lo=, hi=}: floats uniform in [lo, hi) (default 0, 1); integers
// uniform in [lo, hi] (default 0..100). Same seed, same values, on any machine.
WL_LUA_FN(array_random) {
  const Elements a = elements(L, 1);
  const bool fl = cu::dtype_info(a.type).is_float;
  lua_Integer seed = 1;
  lua_Number lo = 0, hi = fl ? 1 : 100;
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
  if (lua_istable(L, 2)) {
    // Named in the sentence: luaL_check* on a field would say "bad argument #-1".
    int ok = 1;
    if (lua_getfield(L, 2, "seed") != LUA_TNIL && (seed = lua_tointegerx(L, -1, &ok), !ok))
      return luaL_error(L, "random: seed must be an integer, got %s", luaL_tolstring(L, -1, nullptr));
    for (auto [field, v] : {std::pair{"lo", &lo}, std::pair{"hi", &hi}})
      if (lua_getfield(L, 2, field) != LUA_TNIL && (*v = lua_tonumberx(L, -1, &ok), !ok))
        return luaL_error(L, "random: %s must be a number, got %s", field, luaL_tolstring(L, -1, nullptr));
    lua_pop(L, 3);
  }
  if (!(lo <= hi))
    return luaL_error(L, "random: lo (%s) must not exceed hi (%s)", num(lo).c_str(), num(hi).c_str());
  std::uint64_t span = 0;  // integers: how many values [ceil(lo), floor(hi)] holds
  lua_Integer ilo = 0, ihi = 0;
  if (!fl) {
    const char* type = cu::dtype_info(a.type).name.data();
    if (!lua_numbertointeger(std::ceil(lo), &ilo) || !lua_numbertointeger(std::floor(hi), &ihi) ||
        !cu::int_fits(a.type, ilo) || !cu::int_fits(a.type, ihi))
      return luaL_error(L, "random: [%s, %s] does not fit %s", num(lo).c_str(), num(hi).c_str(), type);
    if (ilo > ihi)
      return luaL_error(L, "random: no integer lies in [%s, %s]", num(lo).c_str(), num(hi).c_str());
    span = static_cast<std::uint64_t>(ihi) - static_cast<std::uint64_t>(ilo) + 1;  // 0: all 2^64
  }
  Rng rng(static_cast<std::uint64_t>(seed));
  fill_with(a, [&](std::size_t, unsigned char* p) {
    if (fl)
      cu::store_float(a.type, p, lo + (hi - lo) * rng.uniform());
    else {
      const std::uint64_t r = span ? rng.next() % span : rng.next();
      cu::store_int(a.type, p, static_cast<std::int64_t>(static_cast<std::uint64_t>(ilo) + r));
    }
  });
  lua_settop(L, 1);
  return 1;
}

}  // namespace

void push_element(lua_State* L, cu::DType t, const void* src) {
  const auto& info = cu::dtype_info(t);
  if (info.is_float)
    lua_pushnumber(L, cu::load_float(t, src));
  else if (t == cu::DType::U64)
    lua_pushinteger(L, static_cast<lua_Integer>(cu::load_uint(t, src)));
  else
    lua_pushinteger(L, cu::load_int(t, src));
}

void to_element(lua_State* L, int idx, cu::DType t, void* dst, const char* what) {
  const auto& info = cu::dtype_info(t);
  if (!lua_isnumber(L, idx))
    luaL_error(L, "%s must be a number for %s %s array, got %s", what, cu::dtype_article(t).data(),
               info.name.data(), luaL_typename(L, idx));
  if (info.is_float) return cu::store_float(t, dst, lua_tonumber(L, idx));
  lua_Integer v = 0;
  if (!lua_isinteger(L, idx)) {
    const lua_Number x = lua_tonumber(L, idx);
    if (x != std::floor(x))
      luaL_error(L, "%s %s is not an integer (array type %s)", what, num(x).c_str(), info.name.data());
    if (!lua_numbertointeger(x, &v))
      luaL_error(L, "%s %s does not fit %s", what, num(x).c_str(), info.name.data());
  } else {
    v = lua_tointeger(L, idx);
  }
  if (!cu::int_fits(t, v)) luaL_error(L, "%s %I does not fit %s", what, v, info.name.data());
  cu::store_int(t, dst, v);
}

std::vector<unsigned char> table_image(lua_State* L, int tidx, cu::DType t) {
  const std::size_t n = lua_rawlen(L, tidx), elem = static_cast<std::size_t>(cu::dtype_info(t).size);
  std::vector<unsigned char> host(n * elem);
  for (std::size_t i = 0; i < n; ++i) {
    lua_rawgeti(L, tidx, static_cast<lua_Integer>(i + 1));  // +1
    to_element(L, -1, t, host.data() + i * elem, "element");
    lua_pop(L, 1);  // -1
  }
  return host;
}

void upload_table(lua_State* L, int tidx, Array& a, std::size_t at) {
  const std::vector<unsigned char> host = table_image(L, tidx, a.type);
  a.buf->copy_from_host(host.data(), host.size(), a.byte_offset() + at * a.elem());
}

void add_array_host_methods(lua_State* L) {
  const luaL_Reg methods[] = {{"get", array_get},   {"set", array_set},       {"fill", array_fill},
                              {"iota", array_iota}, {"random", array_random}, {nullptr, nullptr}};
  luaL_setfuncs(L, methods, 0);
}

}  // namespace warplab::bind
