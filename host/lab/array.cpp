// array.cpp: the out-of-line half of lab/array.hpp: the error sentences of element
// conversion and of index, count, view, shape and :set checks; a run's allocations;
// copies, zeroing, release.
#include "lab/array.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "cu/attributes.hpp"
#include "lab/managed.hpp"
#include "lab/run.hpp"

namespace warplab::lab {
namespace {

std::string type_name(cu::DType t) { return std::string(cu::dtype_info(t).name); }
std::string str(std::int64_t v) { return std::to_string(v); }
std::string str(std::size_t v) { return std::to_string(static_cast<std::int64_t>(v)); }

}  // namespace

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.14g", x);
  return buf;
}

void element_not_integer(const char* what, double x, cu::DType t) {
  throw Error(ErrorKind::bad_input,
              std::string(what) + " " + num(x) + " is not an integer (array type " + type_name(t) + ")");
}

void element_too_large(const char* what, double x, cu::DType t) {
  throw Error(ErrorKind::bad_input, std::string(what) + " " + num(x) + " does not fit " + type_name(t));
}

void element_too_large(const char* what, std::int64_t v, cu::DType t) {
  throw Error(ErrorKind::bad_input, std::string(what) + " " + str(v) + " does not fit " + type_name(t));
}

void element_beyond_float(const char* what, double x, cu::DType t) {
  throw Error(ErrorKind::bad_input, std::string(what) + " " + num(x) + " does not fit " + type_name(t) +
                                        " (finite values up to ±" + num(cu::float_max(t)) + ")");
}

std::string not_a_number(const char* what, cu::DType t, const char* got) {
  return std::string(what) + " must be a number for " + std::string(cu::dtype_article(t)) + " " +
         type_name(t) + " array, got " + got;
}

void index_error(std::int64_t i, std::size_t count, const char* noun) {
  throw Error(ErrorKind::bad_input, "index " + str(i) + " out of range: the " + noun + " has " + str(count) +
                                        " elements (valid: 1.." + str(count) + ")");
}

std::size_t check_count(std::int64_t n, cu::DType t, const char* who) {
  if (static_cast<std::uint64_t>(n) > (std::uint64_t{1} << 56) / cu::dtype_info(t).size)  // bytes overflow
    throw Error(ErrorKind::bad_input,
                std::string(who) + ": " + str(n) + " elements of " + type_name(t) + " are more than any " +
                    (std::strcmp(who, "cuda.array") == 0 ? "device" : "machine") + " holds");
  return static_cast<std::size_t>(n);
}

void check_offline_bytes(std::uint64_t bytes, std::uint64_t device_bytes, const std::string& device_name) {
  // No larger than the profile's device, nor than half of this machine's memory (calloc
  // would promise pages it cannot give).
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  const std::uint64_t host_half = pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) / 2 : 0;
  const bool over_device = device_bytes && bytes > device_bytes;
  if (over_device || (host_half && bytes > host_half))
    throw Error(ErrorKind::bad_input,
                "cuda.array: " + cu::format_bytes(bytes) + " requested, more than " +
                    (over_device ? "the " + cu::format_bytes(device_bytes) + " of " + device_name
                                 : "half of this machine's " + cu::format_bytes(host_half * 2)) +
                    " (offline, arrays live in host memory)");
}

void check_same_shape(cu::DType dt, std::size_t dn, cu::DType st, std::size_t sn) {
  if (st != dt || sn != dn)
    throw Error(ErrorKind::bad_input, "copy needs the same type and length: " + type_name(dt) + "[" +
                                          str(dn) + "] <- " + type_name(st) + "[" + str(sn) + "]");
}

Range view_range(std::int64_t first, std::optional<std::int64_t> n, std::size_t count, const char* noun) {
  const auto c = static_cast<std::int64_t>(count);
  const bool first_ok = first >= 1 && first <= c;  // else c - first + 1 may overflow
  const std::int64_t len = n ? *n : first_ok ? c - first + 1 : 0;
  if (!first_ok || len < 1 || len > c - (first - 1))
    throw Error(ErrorKind::bad_input, "view(" + str(first) + (n ? ", " + str(len) : "") +
                                          ") does not fit in " + noun + " of " + str(c) +
                                          " elements");  // the call as written: view(0), not view(0, 0)
  return {static_cast<std::size_t>(first - 1), static_cast<std::size_t>(len)};
}

std::size_t set_start(std::int64_t at, std::size_t n, std::size_t count) {
  if (at < 1 || static_cast<std::size_t>(at - 1) + n > count)
    throw Error(ErrorKind::bad_input, "set: " + str(n) + " values at index " + str(at) + " do not fit in " +
                                          str(count) + " elements");
  return static_cast<std::size_t>(at - 1);
}

void copy(DeviceArray& dst, const DeviceArray& src) {
  check_same_shape(dst.type, dst.count, src.type, src.count);
  dst.buf->copy_from(*src.buf, dst.bytes(), dst.byte_offset(), src.byte_offset());
}

void copy(DeviceArray& dst, const HostArray& src) {
  check_same_shape(dst.type, dst.count, src.type, src.count);
  dst.buf->copy_from_host(src.data(), dst.bytes(), dst.byte_offset());
}

void copy(HostArray& dst, const DeviceArray& src) {
  check_same_shape(dst.type, dst.count, src.type, src.count);
  src.buf->copy_to_host(dst.data(), dst.bytes(), src.byte_offset());
}

void copy(HostArray& dst, const HostArray& src) {
  check_same_shape(dst.type, dst.count, src.type, src.count);
  std::memmove(dst.data(), src.data(), dst.bytes());
}

std::shared_ptr<cu::DeviceBuffer> allocate_device(Run& run, std::size_t bytes, bool managed) {
  run.capture.refuse(CaptureOp::allocate, "cuda.array");
  const cu::DeviceSnapshot& target = run.target();  // chosen here on a script's first array
  const bool offline = run.offline();
  if (offline) check_offline_bytes(bytes, target.total_memory, target.name);
  if (managed)  // one address for host and device (offline: host memory marked managed)
    return managed_buffer(run.capture, offline ? nullptr : run.gpu_context("cuda.array"), target, bytes);
  if (offline)  // host memory with the same API and checks, so a script runs up to its launch
    return std::make_shared<cu::DeviceBuffer>(cu::DeviceBuffer::host_backed(bytes));
  return std::make_shared<cu::DeviceBuffer>(run.gpu_context("cuda.array"), bytes);
}

std::shared_ptr<cu::HostBuffer> allocate_host(Run& run, std::size_t bytes, bool pinned) {
  run.capture.refuse(CaptureOp::allocate, "cuda.host_array");
  return std::make_shared<cu::HostBuffer>(
      pinned ? cu::HostBuffer::pinned(run.gpu_context("a pinned cuda.host_array"), bytes)
             : cu::HostBuffer::pageable(bytes));
}

void zero(DeviceArray& a) { a.buf->memset(0, a.bytes(), a.byte_offset()); }
void zero(HostArray& a) { std::memset(a.data(), 0, a.bytes()); }

namespace {

template <class Buf>
void release_buf(std::shared_ptr<Buf>& buf, bool view, bool leak) {
  if (leak && buf) {
    new std::shared_ptr<Buf>(std::move(buf));  // deliberately leaked
    return;
  }
  if (buf && !view) buf->free();
  buf.reset();
}

}  // namespace

void release(DeviceArray& a, bool leak) { release_buf(a.buf, a.view, leak); }
void release(HostArray& a, bool leak) { release_buf(a.buf, a.view, leak); }

}  // namespace warplab::lab
