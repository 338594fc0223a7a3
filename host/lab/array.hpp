// array.hpp: typed arrays without Lua: the records behind cuda.array (DeviceArray) and
// cuda.host_array (HostArray); their memory as a run allocates it (refused during a stream
// capture); one element's conversion with its range checks; the checks of an index, a
// count, a view, a copy's shape and a :set's placement (Error bad_input with the script's
// sentence); copies, zeroing, release. The a[i] helpers are inline.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cu/dtype.hpp"
#include "cu/host_buffer.hpp"
#include "cu/memory.hpp"
#include "sys/error.hpp"

namespace warplab::lab {

struct Run;

// A typed range of elements in a shared buffer: an owner, or a view of one. Buffer is
// cu::DeviceBuffer or cu::HostBuffer; each has valid() (false once freed).
template <class Buffer>
struct TypedRange {
  std::shared_ptr<Buffer> buf;  // shared by views; null once this handle is freed
  cu::DType type = cu::DType::F32;
  std::size_t first = 0;  // element offset into buf (views)
  std::size_t count = 0;
  bool view = false;

  std::size_t elem() const { return static_cast<std::size_t>(cu::dtype_info(type).size); }
  std::size_t bytes() const { return count * elem(); }
  std::size_t byte_offset() const { return first ? first * elem() : 0; }  // an owner's: 0
  bool freed() const { return !buf || !buf->valid(); }
};

// Typed device memory (cuda.array).
struct DeviceArray : TypedRange<cu::DeviceBuffer> {
  CUdeviceptr ptr() const { return buf->get() + byte_offset(); }
};

// Typed host memory, page-locked or pageable (cuda.host_array).
struct HostArray : TypedRange<cu::HostBuffer> {
  unsigned char* data() const { return buf->data() + byte_offset(); }
};

// A number as a person writes it in a message: 299, 0.5, 1e+100 (not 299.0).
std::string num(double x);

// x as a 64-bit integer when it lies in range (Lua's lua_numbertointeger: truncates, so
// callers check integrality first).
inline bool to_int64(double x, std::int64_t* out) {
  if (!(x >= -0x1p63 && x < 0x1p63)) return false;
  *out = static_cast<std::int64_t>(x);
  return true;
}

// One element's value as Lua holds numbers: an integer, or a float.
struct Number {
  bool integer = false;
  std::int64_t i = 0;
  double x = 0;
};

// The element at `src` (u64 reads as its two's-complement integer, as Lua shows it).
inline Number load_element(cu::DType t, const void* src) {
  if (cu::dtype_info(t).is_float) return {false, 0, cu::load_float(t, src)};
  if (t == cu::DType::U64) return {true, static_cast<std::int64_t>(cu::load_uint(t, src)), 0};
  return {true, cu::load_int(t, src), 0};
}

[[noreturn]] [[gnu::cold]] void element_not_integer(const char* what, double x, cu::DType t);
[[noreturn]] [[gnu::cold]] void element_too_large(const char* what, double x, cu::DType t);
[[noreturn]] [[gnu::cold]] void element_too_large(const char* what, std::int64_t v, cu::DType t);
// "value 1e+300 does not fit f32 (finite values up to ±3.4028234663853e+38)".
[[noreturn]] [[gnu::cold]] void element_beyond_float(const char* what, double x, cu::DType t);

// v converted to type t at `dst`. Throws, naming `what` and the value: "value 1.5 is not an
// integer (array type i32)", "value 300 does not fit u8", "value 1e+300 does not fit f32
// (...)" (a finite number never silently becomes inf).
inline void store_element(cu::DType t, void* dst, const Number& v, const char* what) {
  if (cu::dtype_info(t).is_float) {
    const double x = v.integer ? static_cast<double>(v.i) : v.x;
    if (!cu::float_fits(t, x)) element_beyond_float(what, x, t);  // 1e300 would be inf: refused
    return cu::store_float(t, dst, x);
  }
  std::int64_t i = v.i;
  if (!v.integer) {
    if (v.x != std::floor(v.x)) element_not_integer(what, v.x, t);
    if (!to_int64(v.x, &i)) element_too_large(what, v.x, t);
  }
  if (!cu::int_fits(t, i)) element_too_large(what, i, t);
  cu::store_int(t, dst, i);
}

// "value must be a number for an i32 array, got string": `got` names the value's type.
std::string not_a_number(const char* what, cu::DType t, const char* got);

[[noreturn]] [[gnu::cold]] void index_error(std::int64_t i, std::size_t count, const char* noun);

// The 0-based position of the 1-based index i among `count` elements; throws "index 9 out
// of range: the array has 8 elements (valid: 1..8)" (`noun`: "array", "host array").
inline std::size_t index0(std::int64_t i, std::size_t count, const char* noun) {
  if (i < 1 || static_cast<std::uint64_t>(i) > count) index_error(i, count, noun);
  return static_cast<std::size_t>(i - 1);
}

// A positive element count n of type t, checked so its bytes fit 2^56: throws "cuda.array:
// ... elements of f32 are more than any device holds" (`who` names the call).
std::size_t check_count(std::int64_t n, cu::DType t, const char* who);

// Offline a cuda.array lives in host memory: throws unless `bytes` fits the profile's
// device (`device_bytes`, 0: unknown) and half of this machine's memory.
void check_offline_bytes(std::uint64_t bytes, std::uint64_t device_bytes, const std::string& device_name);

// The memory of a run's new cuda.array of `bytes`, refused during a capture (CaptureOp::
// allocate: memory allocated inside it would not be part of the graph): managed memory
// (managed.hpp managed_buffer), device memory, or offline host memory within the profile's
// device and this machine (check_offline_bytes). Chooses the run's target on first use.
std::shared_ptr<cu::DeviceBuffer> allocate_device(Run& run, std::size_t bytes, bool managed);
// The memory of a run's new cuda.host_array of `bytes`: refused during a capture; pinned
// (page-locked) needs a GPU, pageable does not.
std::shared_ptr<cu::HostBuffer> allocate_host(Run& run, std::size_t bytes, bool pinned);

// Throws "copy needs the same type and length: f32[4] <- i32[4]" unless they match.
void check_same_shape(cu::DType dst_type, std::size_t dst_n, cu::DType src_type, std::size_t src_n);

// The first element (0-based) and length of view(first [, n]) of `count` elements: n
// defaults to the rest. Throws "view(0, 3) does not fit in an array of 8 elements"
// (`noun`: "an array", "a host array").
struct Range {
  std::size_t first = 0, count = 0;
};
Range view_range(std::int64_t first, std::optional<std::int64_t> n, std::size_t count, const char* noun);

// The view of `a` over r (elements relative to a's own first).
template <class A>
A view_of(const A& a, Range r) {
  A v = a;  // shares the buffer
  v.first += r.first;
  v.count = r.count;
  v.view = true;
  return v;
}

// The 0-based start of :set(values, at) writing n values into `count` elements; throws
// "set: 5 values at index 2 do not fit in 4 elements".
std::size_t set_start(std::int64_t at, std::size_t n, std::size_t count);

// dst <- src of the same type and length (check_same_shape first). Host to host is a
// memmove: views of one buffer may overlap.
void copy(DeviceArray& dst, const DeviceArray& src);
void copy(DeviceArray& dst, const HostArray& src);
void copy(HostArray& dst, const DeviceArray& src);
void copy(HostArray& dst, const HostArray& src);

void zero(DeviceArray& a);
void zero(HostArray& a);

// Releases the handle (idempotent): an owner frees the memory now (its views then find
// it freed), a view only detaches. With `leak` (the watchdog fired and a free could wait
// on a spinning kernel forever) the memory is left to the process exit instead.
void release(DeviceArray& a, bool leak);
void release(HostArray& a, bool leak);

}  // namespace warplab::lab
