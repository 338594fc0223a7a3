// launch.hpp: a kernel launch, without Lua: the per-parameter plan the front end fills the
// argument buffer by (plan_args: numbers, never spellings), one value's checks, the
// configuration's first broken rule, and the launch itself (launch, bench: checks, fault
// note, cuLaunchKernel, --sync). The helpers on the launch path are inline and allocate
// nothing.
#pragma once
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cu/dtype.hpp"
#include "cu/launch.hpp"
#include "lab/fault.hpp"
#include "lab/module.hpp"
#include "lab/run.hpp"

namespace warplab::lab {

// Fills k.slots from k.sig and the layout (k.offsets, k.sizes): kind, offset, size, the
// accepted array types as a bit set, integer ranges. No signature: no slots.
void plan_args(KernelObj& k);

// An array of element type t may be passed for slot s.
inline bool accepts(const ArgSlot& s, cu::DType t) { return (s.dtypes >> static_cast<unsigned>(t)) & 1u; }
// An integer value fits slot s's type.
inline bool fits(const ArgSlot& s, long long v) { return v >= s.lo && v <= s.hi; }

// The value's bytes into the slot at buf + s.offset (integers: the low bytes, little-endian;
// floats: as double, float or half by the slot's size). put_float writes nothing and
// returns false when a finite x would become inf (1e300 as float): out of range, as an
// integer that does not fit.
inline void put_integer(const ArgSlot& s, unsigned char* buf, long long v) {
  std::memcpy(buf + s.offset, &v, s.size < sizeof v ? s.size : sizeof v);
}
inline bool put_float(const ArgSlot& s, unsigned char* buf, double x) {
  unsigned char* dst = buf + s.offset;
  if (s.size == 8) {
    std::memcpy(dst, &x, 8);
  } else if (s.size == 4) {
    const float f = static_cast<float>(x);
    if (std::isinf(f) && std::isfinite(x)) [[unlikely]]
      return false;
    std::memcpy(dst, &f, 4);
  } else {
    if (!cu::float_fits(cu::DType::F16, x)) [[unlikely]]
      return false;
    const auto h = cu::float_to_half(static_cast<float>(x));
    std::memcpy(dst, &h, 2);
  }
  return true;
}

// "(8-bit signed: -128..127)": an integer slot's type and range, for an out-of-range
// message; a float slot's: "(float: finite values up to ±3.4028234663853e+38)".
std::string range_text(const ArgSlot& s);
// k cannot be launched with n arguments: it has no signature (an undeclared extern "C"
// kernel) or its signature wants another count. The sentence that says so.
inline bool wrong_arity(const KernelObj& k, int n) {
  return !k.sig || static_cast<std::size_t>(n) != k.slots.size();
}
std::string arity_error(const KernelObj& k, int n);

// Is launching k with c valid? The first rule it breaks, or nullopt: c against the kernel's
// and the device's limits (cu::check; works offline), then, when `ask_driver` and k is
// live, for a cluster whether the driver can schedule it (a failing driver call is the
// broken rule's sentence). A launch, k:check and k:clusters (which asks the driver itself)
// all ask this one question.
std::optional<cu::Violation> broken_rule(const KernelObj& k, const cu::LaunchConfig& c,
                                         const cu::DeviceLimits& d, bool ask_driver = true);

// Launches k with configuration c, its arguments already marshaled into k's buffer by the
// front end, made at `where`. In order: with opts.check the configuration's first broken
// rule (Error (bad_input) "K: why"); `arg_error`, the sentence for the first argument that did not
// marshal (nullptr: none), so a bad configuration is named first; no GPU ("no CUDA device:
// a kernel launch needs a GPU (...)"); then the launch is noted in run.faults and made (one
// the driver refused is forgotten again: it cannot have faulted), and with opts.sync waited
// for (sync.hpp, an Error of kind timeout with --timeout). During a stream capture (run.capture): the same
// checks, then the launch is recorded, not run, on the capture's stream when c names none.
// Allocates nothing unless it throws.
void launch(Run& run, KernelObj& k, const cu::LaunchConfig& c, const char* arg_error, const Where& where);
// k:bench (refused during a capture): the same checks and one noted untimed launch (it
// loads the code), warmup - 1 more, then reps launches each between two events on c.stream (timing.hpp);
// returns each launch's ms once the last event is reached (behind the watchdog).
std::vector<double> bench(Run& run, KernelObj& k, const cu::LaunchConfig& c, const char* arg_error,
                          const Where& where, int warmup, int reps);

}  // namespace warplab::lab
