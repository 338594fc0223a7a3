// array_fill.cpp: Elements over a host or device array (a run's device array's refused
// during a capture), and the fill, iota and random element loops with their argument
// checks.
#include "lab/array_fill.hpp"

#include <cmath>
#include <cstring>
#include <string>

#include "lab/managed.hpp"
#include "lab/sync.hpp"

namespace warplab::lab {
namespace {

constexpr std::size_t kPinnedFrom = 1 << 20;  // bytes; below this pageable memory is as fast

// Sets every element to f(i, p), then commits (device arrays: one upload).
template <class F>
void fill_with(const Elements& e, F&& f) {
  for (std::size_t i = 0; i < e.count; ++i) f(i, e.data + i * e.elem);
  e.commit();
}

}  // namespace

Elements elements_of(const HostArray& h) {
  Elements e;
  e.type = h.type, e.count = h.count, e.elem = h.elem(), e.data = h.data();
  return e;
}

Elements elements_of(DeviceArray& a, cu::PinnedBuffer& staging, const cu::ContextPtr& ctx) {
  Elements e;
  e.type = a.type, e.count = a.count, e.elem = a.elem(), e.dev = &a;
  const std::size_t bytes = a.bytes();
  if (bytes >= kPinnedFrom && ctx) {
    if (staging.size() < bytes) staging = cu::PinnedBuffer(ctx, bytes);
    e.data = static_cast<unsigned char*>(staging.data());
  } else {
    e.own.resize(bytes);
    e.data = e.own.data();
  }
  return e;
}

Elements elements_of(Run& run, DeviceArray& a, const char* what) {
  run.capture.refuse(CaptureOp::element_access, what);
  if (!a.buf->is_managed()) return elements_of(a, run.staging, run.context);
  if (!run.offline()) synchronize(run);
  Elements e;
  e.type = a.type, e.count = a.count, e.elem = a.elem(), e.data = host_elements(a);
  return e;
}

unsigned char* managed_element(Run& run, DeviceArray& a, std::size_t i, const char* what) {
  run.capture.refuse(CaptureOp::element_access, what);
  if (!a.buf->is_managed()) return nullptr;
  if (!run.offline()) synchronize(run);
  return host_elements(a) + i * a.elem();
}

void set_elements(Run& run, DeviceArray& a, std::size_t at, const std::vector<unsigned char>& img) {
  run.capture.refuse(CaptureOp::element_access, "a:set(list)");
  if (!a.buf->is_managed()) {
    a.buf->copy_from_host(img.data(), img.size(), a.byte_offset() + at * a.elem());
  } else if (!img.empty()) {  // in place, once the device is idle
    if (!run.offline()) synchronize(run);
    std::memcpy(host_elements(a) + at * a.elem(), img.data(), img.size());
  }
}

void zero(Run& run, DeviceArray& a) {
  run.capture.refuse(CaptureOp::element_access, "a:zero()");
  zero(a);
}

void fill(const Elements& e, const unsigned char* one) {
  fill_with(e, [&](std::size_t, unsigned char* p) { std::memcpy(p, one, e.elem); });
}

void iota(const Elements& e, double start, double step) {
  const auto& info = cu::dtype_info(e.type);
  if (!info.is_float) {
    const double last = start + step * static_cast<double>(e.count - 1);
    std::int64_t lo = 0, hi = 0;
    if (start != std::floor(start) || step != std::floor(step))
      throw Error(ErrorKind::bad_input, "iota: start and step must be integers for " +
                                            std::string(cu::dtype_article(e.type)) + " " +
                                            std::string(info.name) + " array");
    if (!to_int64(start, &lo) || !to_int64(last, &hi) || !cu::int_fits(e.type, lo) ||
        !cu::int_fits(e.type, hi))
      throw Error(ErrorKind::bad_input, "iota: " + std::to_string(static_cast<int>(e.count)) +
                                            " elements from " + num(start) + " by " + num(step) + " end at " +
                                            num(last) + ", which does not fit " + std::string(info.name));
  }
  const double last = start + step * static_cast<double>(e.count ? e.count - 1 : 0);
  if (info.is_float && (!cu::float_fits(e.type, start) || !cu::float_fits(e.type, last)))
    throw Error(ErrorKind::bad_input, "iota: " + std::to_string(e.count) + " elements from " + num(start) +
                                          " by " + num(step) + " end at " + num(last) + ", beyond " +
                                          std::string(info.name) + "'s finite values (up to ±" +
                                          num(cu::float_max(e.type)) + ")");
  fill_with(e, [&](std::size_t i, unsigned char* p) {
    const double x = start + step * static_cast<double>(i);
    info.is_float ? cu::store_float(e.type, p, x) : cu::store_int(e.type, p, static_cast<std::int64_t>(x));
  });
}

void random(const Elements& e, std::uint64_t seed, double lo, double hi) {
  const bool fl = cu::dtype_info(e.type).is_float;
  if (!(lo <= hi))
    throw Error(ErrorKind::bad_input, "random: lo (" + num(lo) + ") must not exceed hi (" + num(hi) + ")");
  if (fl && (!cu::float_fits(e.type, lo) || !cu::float_fits(e.type, hi)))
    throw Error(ErrorKind::bad_input, "random: [" + num(lo) + ", " + num(hi) + "] goes beyond " +
                                          std::string(cu::dtype_info(e.type).name) +
                                          "'s finite values (up to ±" + num(cu::float_max(e.type)) + ")");
  std::uint64_t span = 0;  // integers: how many values [ceil(lo), floor(hi)] holds
  std::int64_t ilo = 0, ihi = 0;
  if (!fl) {
    const std::string range = "[" + num(lo) + ", " + num(hi) + "]";
    if (!to_int64(std::ceil(lo), &ilo) || !to_int64(std::floor(hi), &ihi) || !cu::int_fits(e.type, ilo) ||
        !cu::int_fits(e.type, ihi))
      throw Error(ErrorKind::bad_input,
                  "random: " + range + " does not fit " + std::string(cu::dtype_info(e.type).name));
    if (ilo > ihi) throw Error(ErrorKind::bad_input, "random: no integer lies in " + range);
    span = static_cast<std::uint64_t>(ihi) - static_cast<std::uint64_t>(ilo) + 1;  // 0: all 2^64
  }
  Rng rng(seed);
  fill_with(e, [&](std::size_t, unsigned char* p) {
    if (fl)
      cu::store_float(e.type, p, lo + (hi - lo) * rng.uniform());
    else {
      const std::uint64_t r = span ? rng.next() % span : rng.next();
      cu::store_int(e.type, p, static_cast<std::int64_t>(static_cast<std::uint64_t>(ilo) + r));
    }
  });
}

}  // namespace warplab::lab
