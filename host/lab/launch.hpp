// launch.hpp: a kernel launch, without Lua: the per-parameter plan the front end fills the
// argument buffer by (plan_args: numbers, never spellings), one value's checks, the
// configuration's first broken rule, the one preflight every launch path passes, and the
// launch itself (launch: preflight, then the capture's, the counter session's or the plain
// path; bench). The helpers on the launch path are inline and allocate nothing.
#pragma once
#include <cmath>
#include <cstdint>
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
  unsigned char* dst = buf + s.offset;
  if (s.size == 4) {  // int, unsigned: a fixed-size store, not a call
    const auto low = static_cast<std::uint32_t>(v);
    std::memcpy(dst, &low, 4);
  } else {
    std::memcpy(dst, &v, s.size < sizeof v ? s.size : sizeof v);
  }
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

// ---- the preflight: everything a launch checks before the driver sees it ----------------

namespace detail {
[[noreturn]] void refuse(const KernelObj& k, const std::string& why);  // Error bad_input "K: why"
[[noreturn]] void refuse_argument(const char* arg_error);              // Error bad_input, as it is
// No GPU, or another arch's code. The configuration, which passed the checks, is noted as the
// kernel's last launch all the same: offline, what `warplab watch` computes occupancy at.
[[noreturn]] void refuse_unloaded(Run& run, KernelObj& k, const cu::LaunchConfig& c);
// broken_rule against run.limits(), remembered in k when it passes (k.passed).
void check_config(Run& run, KernelObj& k, const cu::LaunchConfig& c);
}  // namespace detail

// The one preflight of every launch path (the launch that runs now, one captured into a
// graph, one counted, k:bench's), in order: with opts.check the configuration's first broken
// rule (Error bad_input "K: why"; a shape that passed for this kernel and device before is
// not checked again: the check is a pure function of the two); `arg_error`, the sentence
// for the first argument that did not marshal (nullptr: none), so a bad configuration is
// named first; then no GPU ("no CUDA device: a kernel launch needs a GPU (...)", kind
// no_gpu), or code for another architecture, not loaded (the configuration noted in
// k.last_launch first). Allocates nothing unless it throws.
inline void preflight(Run& run, KernelObj& k, const cu::LaunchConfig& c, const char* arg_error) {
  if (run.opts.check) {
    const cu::LaunchConfig& p = k.passed;
    const bool same = k.passed_for != nullptr && p.grid.x == c.grid.x && p.grid.y == c.grid.y &&
                      p.grid.z == c.grid.z && p.block.x == c.block.x && p.block.y == c.block.y &&
                      p.block.z == c.block.z && p.shared_bytes == c.shared_bytes &&
                      p.cooperative == c.cooperative && !c.clustered();
    if (!same || k.passed_for != &run.limits()) [[unlikely]]
      detail::check_config(run, k, c);
  }
  if (arg_error) [[unlikely]]
    detail::refuse_argument(arg_error);
  if (!k.fn) [[unlikely]]
    detail::refuse_unloaded(run, k, c);
}

// The configuration the driver is given: a kernel's compile-time cluster is the driver's to
// apply, so a cluster = equal to it (the check saw to that) is not sent again.
inline const cu::LaunchConfig& sendable(const KernelObj& k, const cu::LaunchConfig& c) {
  if (!k.limits.cluster[0] || !c.clustered()) [[likely]]
    return c;
  thread_local cu::LaunchConfig plain;
  plain = c;
  plain.cluster = {0, 0, 0};
  return plain;
}

// ---- the launch ----------------------------------------------------------------------------

// Launches k with configuration c, its arguments already marshaled into k's buffer by the
// front end, made at `where`: the preflight, then by where the launch goes:
//   - during a stream capture (run.capture): captured into the graph, not run
//     (Capture::launch, capture.hpp); no fault note, no --sync: nothing runs yet;
//   - otherwise noted (k.last_launch for `warplab watch`; run.faults, the fault note, which a
//     launch the driver refused drops again: it cannot have faulted) and made: while a
//     counter session counts, by the session (CounterSession::launch, counters.hpp), else
//     cuLaunchKernel; then with opts.sync waited for (sync.hpp, an Error of kind timeout
//     with --timeout).
// Allocates nothing unless it throws.
void launch(Run& run, KernelObj& k, const cu::LaunchConfig& c, const char* arg_error, const Where& where);
// k:bench: refused during a capture (timing.hpp), the preflight and one noted untimed
// launch (it loads the code), warmup - 1 more, then reps launches each between two events
// on c.stream (each counted as well while a counter session counts); returns each launch's
// ms once the last event is reached (behind the watchdog).
std::vector<double> bench(Run& run, KernelObj& k, const cu::LaunchConfig& c, const char* arg_error,
                          const Where& where, int warmup, int reps);

}  // namespace warplab::lab
