// array_fill.hpp: the element work of a[i], :get/:set/:zero/:fill/:iota/:random, without
// Lua: an array's elements in host memory (Elements: a host array's own, or a device
// array's image, downloaded by load() and uploaded by commit(), bounced through the
// page-locked staging buffer when large; a managed array's own memory once the device is
// idle); a device array's elements refused during a stream capture, here; fills check
// their arguments first (bad_input); Rng, :random's seeded generator.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cu/context.hpp"
#include "cu/memory.hpp"
#include "lab/array.hpp"
#include "lab/run.hpp"

namespace warplab::lab {

// xoshiro256** seeded by splitmix64: a small, well-known generator, written here. Same
// seed, same values, on any machine.
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
  // Uniform in [0, 1), 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

// The elements a bulk method works on (see the file comment).
struct Elements {
  cu::DType type = cu::DType::F32;
  std::size_t count = 0, elem = 0;
  unsigned char* data = nullptr;
  DeviceArray* dev = nullptr;  // non-null: `data` is an image of this device array
  std::vector<unsigned char> own;

  std::size_t bytes() const { return count * elem; }
  void load() const {
    if (dev) dev->buf->copy_to_host(data, bytes(), dev->byte_offset());
  }
  void commit() const {
    if (dev) dev->buf->copy_from_host(data, bytes(), dev->byte_offset());
  }
};

// A host array's elements, in place.
Elements elements_of(const HostArray& h);
// A device array's elements through an image (not yet loaded): in `staging`, grown, when
// the image is large and `ctx` is live; else in the Elements' own vector.
Elements elements_of(DeviceArray& a, cu::PinnedBuffer& staging, const cu::ContextPtr& ctx);

// ---- a device array's elements in a run: each refused during a capture (CaptureOp::
// element_access: they copy at once and wait for the GPU), `what` naming the call --------

// For a bulk method (a:get(), a:fill(v), ...): a managed array's own memory, once the
// device is idle; else an image of the elements (elements_of above, run's staging buffer).
Elements elements_of(Run& run, DeviceArray& a, const char* what);
// a[i] and a[i] = v: element i's address in a managed array, once the device is idle;
// nullptr for any other array (the caller copies the one element).
unsigned char* managed_element(Run& run, DeviceArray& a, std::size_t i, const char* what);
// a:set(list, at): the converted values `img` written from element `at` on (a managed array
// in place, once the device is idle).
void set_elements(Run& run, DeviceArray& a, std::size_t at, const std::vector<unsigned char>& img);
// a:zero().
void zero(Run& run, DeviceArray& a);

// Every element set to the element at `one`, then committed.
void fill(const Elements& e, const unsigned char* one);
// Element i (0-based) = start + i * step, then committed. For integer types start and
// step must be integers and both ends must fit the type (the sequence is linear, so the
// ends bound it); throws "iota: start and step must be integers for an i32 array", "iota:
// 4 elements from 250 by 1 end at 253, which does not fit u8".
void iota(const Elements& e, double start, double step);
// Floats uniform in [lo, hi), integers uniform in [ceil(lo), floor(hi)], from Rng(seed),
// then committed. Throws "random: lo (2) must not exceed hi (1)", "random: [0, 300] does
// not fit u8", "random: no integer lies in [0.2, 0.8]".
void random(const Elements& e, std::uint64_t seed, double lo, double hi);

}  // namespace warplab::lab
