// elements.cpp: see elements.hpp. The element work and its checks are lab's
// (lab/array.hpp, lab/array_fill.hpp): a device array is worked on through a host image,
// a host array and a managed array (once the device is idle) in place; copies on a stream
// and what a capture refuses are lab/copy.hpp's and lab/capture.hpp's.
#include "bind/elements.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "bind/args.hpp"
#include "bind/guard.hpp"
#include "bind/record.hpp"
#include "bind/udata.hpp"
#include "lab/array_fill.hpp"
#include "lab/copy.hpp"
#include "lab/managed.hpp"
#include "lab/sync.hpp"
#include "sys/shown.hpp"

namespace warplab::bind {

cu::DType check_dtype(lua_State* L, int idx) {
  std::size_t len = 0;
  const char* name = arg_string(L, idx, &len);
  if (auto t = cu::parse_dtype(std::string_view(name, len))) return *t;  // "f32\0x" is not f32
  arg_error(L, idx,
            lua_pushfstring(L, "unknown element type '%s' (one of %s)", sys::shown(name).c_str(),
                            cu::dtype_names().c_str()));
}

std::size_t check_count(lua_State* L, int idx, cu::DType t, const char* who) {
  const lua_Integer n =
      lua_istable(L, idx) ? static_cast<lua_Integer>(lua_rawlen(L, idx)) : arg_integer(L, idx);
  if (n <= 0) arg_error(L, idx, "the element count must be positive");
  return lab::check_count(n, t, who);  // throws when its bytes pass 2^56
}

void to_element(lua_State* L, int idx, cu::DType t, void* dst, const char* what) {
  if (!lua_isnumber(L, idx))
    throw Error(ErrorKind::bad_input, lab::not_a_number(what, t, luaL_typename(L, idx)));
  lab::Number v;
  if ((v.integer = lua_isinteger(L, idx)))
    v.i = lua_tointeger(L, idx);
  else
    v.x = lua_tonumber(L, idx);
  lab::store_element(t, dst, v, what);
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

namespace {

// ---- view, copy, zero: written once over the record type A, registered per kind ----------

template <class A>
struct Kind;
template <>
struct Kind<lab::DeviceArray> {
  static lab::DeviceArray& check(lua_State* L, int idx) { return check_array(L, idx); }
  static lab::DeviceArray& push(lua_State* L) { return push_array(L); }
  static constexpr const char* noun = "an array";
};
template <>
struct Kind<lab::HostArray> {
  static lab::HostArray& check(lua_State* L, int idx) { return check_host_array(L, idx); }
  static lab::HostArray& push(lua_State* L) { return push_host_array(L); }
  static constexpr const char* noun = "a host array";
};

// x:view(first [, n]): elements first .. first + n - 1 (default: to the end), sharing memory.
// The view's user value is x, so x (and its owner, a view's own user value) lives as long
// as the view: the collector never frees memory a view still shows. Every kind of array
// is made by Kind<A>::push, with that slot.
template <class A>
int array_view(lua_State* L) {
  return guard(L, [L] {
    const A& a = Kind<A>::check(L, 1);
    const lua_Integer first = arg_integer(L, 2);
    const auto n = lua_isnoneornil(L, 3) ? std::nullopt : std::optional<lua_Integer>(arg_integer(L, 3));
    const lab::Range r = lab::view_range(first, n, a.count, Kind<A>::noun);
    A view = lab::view_of(a, r);         // taken before the push, which may run a finalizer
    Kind<A>::push(L) = std::move(view);  // +1 view
    lua_pushvalue(L, 1);                 // +1 x
    lua_setiuservalue(L, -2, 1);         // -1: the view keeps x alive
    return 1;
  });
}

// x:copy(src [, {stream = s}]): src is a device or a host array of the same type and length.
// Without a stream lab::copy picks cuMemcpyDtoD, HtoD, DtoH or a memmove (refused during a
// capture, but for the memmove); on a stream lab::copy_async queues it and returns at once.
// The options table is read first, its stream left on the stack: its __index may run Lua
// code, which may free either array or the stream; both arrays are taken after it.
template <class A>
int array_copy(lua_State* L) {
  return guard(L, [L] {
    check_option_keys(L, 3, "copy", {"stream"});
    const int stream_at = lua_istable(L, 3) ? (lua_getfield(L, 3, "stream"), lua_gettop(L)) : 0;  // +1
    A& dst = Kind<A>::check(L, 1);
    const std::optional<CUstream> stream = !stream_at || lua_isnil(L, stream_at)
                                               ? std::nullopt
                                               : std::optional<CUstream>(opt_stream(L, stream_at));
    lab::Capture& cap = record_of(L).run.capture;
    lab::HostArray* hsrc = test_host_array(L, 2) ? &check_host_array(L, 2) : nullptr;
    lab::DeviceArray* dsrc = hsrc ? nullptr : &check_array(L, 2);
    if (stream) {
      hsrc ? lab::copy_async(cap, dst, *hsrc, *stream) : lab::copy_async(cap, dst, *dsrc, *stream);
      keep_in_capture(L, 1);  // during a capture: both stay alive with the graph
      keep_in_capture(L, 2);
    } else if (hsrc && std::is_same_v<A, lab::HostArray>) {
      lab::copy(dst, *hsrc);  // a memmove on the CPU: nothing to capture or refuse
    } else {
      hsrc ? lab::copy_now(cap, dst, *hsrc) : lab::copy_now(cap, dst, *dsrc);
    }
    lua_settop(L, 1);
    return 1;
  });
}

template <class A>
int array_zero(lua_State* L) {
  return guard(L, [L] {
    A& a = Kind<A>::check(L, 1);
    if constexpr (std::is_same_v<A, lab::DeviceArray>)
      lab::zero(record_of(L).run, a);  // refused during a capture
    else
      lab::zero(a);
    lua_settop(L, 1);
    return 1;
  });
}

// ---- get, set, fill, iota, random: one function each, either kind as self ---------------

// The elements of the device or host array at idx (raising when freed or neither). A
// device array's are refused during a capture (`what` names the call); a managed array's
// are its own memory, once the device is idle.
lab::Elements elements(lua_State* L, int idx, const char* what) {
  if (test_host_array(L, idx)) return lab::elements_of(check_host_array(L, idx));
  return lab::elements_of(record_of(L).run, check_array(L, idx), what);
}

static int array_get(lua_State* L) {
  return guard(L, [L] {
    if (lua_gettop(L) > 1)  // a:get(i) would otherwise return the whole table without a word
      raise(L, "get() takes no arguments (a[i] reads one element, a:view(i, n):get() n of them)");
    // The table is made before the elements are read: an allocation may run a finalizer
    // (a __gc of the script's), which may free the array; nothing below allocates.
    const std::size_t count = test_host_array(L, 1) ? check_host_array(L, 1).count : check_array(L, 1).count;
    if (count > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      raise(L,
            "get() of %s elements: a Lua table holds at most 2147483647; read part of it "
            "(a:view(i, n):get(), a[i])",
            std::to_string(count).c_str());
    lua_createtable(L, static_cast<int>(count), 0);  // +1 table
    const lab::Elements e = elements(L, 1, "a:get()");
    e.load();
    for (std::size_t i = 0; i < e.count; ++i) {
      push_element(L, e.type, e.data + i * e.elem);         // +1
      lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
    }
    return 1;
  });
}

static int array_set(lua_State* L) {
  return guard(L, [L] {
    lab::HostArray* h = test_host_array(L, 1) ? &check_host_array(L, 1) : nullptr;
    lab::DeviceArray* a = h ? nullptr : &check_array(L, 1);
    const std::size_t count = h ? h->count : a->count;
    arg_check_type(L, 2, LUA_TTABLE);
    const std::size_t at = lab::set_start(arg_opt_integer(L, 3, 1), lua_rawlen(L, 2), count);
    // Converted first, so a bad value leaves the array as it was.
    const std::vector<unsigned char> img = table_image(L, 2, h ? h->type : a->type);
    if (h && !img.empty()) {
      std::memcpy(h->data() + at * h->elem(), img.data(), img.size());
    } else if (a) {
      lab::set_elements(record_of(L).run, *a, at, img);  // refused during a capture
    }
    lua_settop(L, 1);
    return 1;
  });
}

static int array_fill(lua_State* L) {
  return guard(L, [L] {
    const lab::Elements e = elements(L, 1, "a:fill(v)");
    unsigned char one[8];
    to_element(L, 2, e.type, one, "fill value");
    lab::fill(e, one);
    lua_settop(L, 1);
    return 1;
  });
}

// :iota([start [, step]]): element i (1-based) = start + (i - 1) * step.
static int array_iota(lua_State* L) {
  return guard(L, [L] {
    const lab::Elements e = elements(L, 1, "a:iota()");
    lab::iota(e, arg_opt_number(L, 2, 0), arg_opt_number(L, 3, 1));
    lua_settop(L, 1);
    return 1;
  });
}

// :random{seed=, lo=, hi=}: floats uniform in [lo, hi) (default 0, 1); integers
// uniform in [lo, hi] (default 0..100). Same seed, same values, on any machine.
// The options are read before the elements are taken: their __index may run Lua code,
// which may free the array.
static int array_random(lua_State* L) {
  return guard(L, [L] {
    lua_Integer seed = 1;
    std::optional<lua_Number> lo, hi;
    if (!lua_isnoneornil(L, 2)) arg_check_type(L, 2, LUA_TTABLE);
    check_option_keys(L, 2, "random", {"seed", "lo", "hi"});
    if (lua_istable(L, 2)) {
      // Named in the sentence: luaL_check* on a field would say "bad argument #-1".
      if (lua_getfield(L, 2, "seed") != LUA_TNIL &&
          !read_integer(L, -1, LUA_MININTEGER, LUA_MAXINTEGER, seed))
        raise(L, "random: seed must be an integer, got %s", luaL_tolstring(L, -1, nullptr));
      int ok = 1;
      for (auto [field, v] : {std::pair{"lo", &lo}, std::pair{"hi", &hi}})
        if (lua_getfield(L, 2, field) != LUA_TNIL && (*v = lua_tonumberx(L, -1, &ok), !ok))
          raise(L, "random: %s must be a number, got %s", field, luaL_tolstring(L, -1, nullptr));
      lua_pop(L, 3);
    }
    const lab::Elements e = elements(L, 1, "a:random()");
    const bool is_float = cu::dtype_info(e.type).is_float;
    lab::random(e, static_cast<std::uint64_t>(seed), lo.value_or(0), hi.value_or(is_float ? 1 : 100));
    lua_settop(L, 1);
    return 1;
  });
}

}  // namespace

template <class A>
const luaL_Reg* shared_methods() {
  static const luaL_Reg methods[] = {
      {"view", array_view<A>}, {"copy", array_copy<A>},  {"zero", array_zero<A>},
      {"get", array_get},      {"set", array_set},       {"fill", array_fill},
      {"iota", array_iota},    {"random", array_random}, {nullptr, nullptr}};
  return methods;
}
template const luaL_Reg* shared_methods<lab::DeviceArray>();
template const luaL_Reg* shared_methods<lab::HostArray>();

}  // namespace warplab::bind
