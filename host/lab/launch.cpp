// launch.cpp: the launch plan, the one validity check (broken_rule), the preflight's
// refusals and the launch itself: the preflight, then the capture's path (capture.cpp), or
// the noted launch made by cuLaunchKernel or by the counter session (counter_session.cpp),
// --sync; k:bench's timed launches (see launch.hpp).
#include "lab/launch.hpp"

#include <climits>
#include <cstdio>

#include "cu/error.hpp"
#include "lab/counters.hpp"
#include "lab/kernel_info.hpp"
#include "lab/lines.hpp"
#include "lab/sync.hpp"
#include "lab/tensor_map.hpp"
#include "lab/timing.hpp"

namespace warplab::lab {

using Kind = rtc::ParamType::Kind;

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
    s.tensor_map = p.kind == Kind::Other && is_tensor_map_type(p.spelling);
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

std::string range_text(const ArgSlot& s) {
  if (s.kind == Kind::Float) {
    const cu::DType t = s.size == 2 ? cu::DType::F16 : s.size == 4 ? cu::DType::F32 : cu::DType::F64;
    char text[96];
    std::snprintf(text, sizeof text, "%s: finite values up to ±%.14g", s.size == 2 ? "half" : "float",
                  cu::float_max(t));
    return text;
  }
  const bool sign = s.kind == Kind::Signed;
  const int bits = s.bits;
  char text[96];
  if (sign)
    std::snprintf(text, sizeof text, "%d-bit signed: %lld..%lld", bits, -(1ll << (bits - 1)),
                  (1ll << (bits - 1)) - 1);
  else
    std::snprintf(text, sizeof text, "%d-bit unsigned: 0..%llu", bits,
                  bits >= 64 ? ~0ull : (1ull << bits) - 1);
  return text;
}

std::string arity_error(const KernelObj& k, int n) {
  if (!k.sig) {
    const DeclareHint h = declare_hint(k);
    return "kernel " + k.display + " is extern \"C\"" +
           (h.why.empty() ? "" : " and its parameter types are unknown (" + h.why + ")") + ": declare " +
           h.what + " with " + h.call;
  }
  // A long parameter list is cut at a parameter: one sentence, not a dump (64 ints).
  std::string sig = k.sig->to_string();
  if (const std::size_t cut = sig.rfind(", ", 150); sig.size() > 160 && cut != std::string::npos)
    sig = sig.substr(0, cut) + ", ...)";
  return k.display + " expects " + std::to_string(k.slots.size()) + " arguments (" + sig + "), got " +
         std::to_string(n);
}

std::optional<cu::Violation> broken_rule(const KernelObj& k, const cu::LaunchConfig& c,
                                         const cu::DeviceLimits& d, bool ask_driver) {
  try {  // only the driver's answer can throw here (a failed cuOccupancyMaxActiveClusters)
    return cu::check(c, k.limits, d, ask_driver ? k.fn.get() : nullptr);
  } catch (const cu::Error& e) {
    if (is_async_fault(e.code())) throw;  // a fault noticed here: the context is lost, said as such
    return cu::Violation{
        cu::Limit::cluster_schedule,
        "the driver could not say whether this cluster launch can be scheduled: " + cu::error_text(e.code())};
  }
}

namespace detail {

void refuse(const KernelObj& k, const std::string& why) {
  throw Error(ErrorKind::bad_input, k.display + ": " + why);
}

void refuse_argument(const char* arg_error) { throw Error(ErrorKind::bad_input, arg_error); }

void refuse_unloaded(Run& run, KernelObj& k, const cu::LaunchConfig& c) {
  // The launch runs nothing, but its block size is the script's: `warplab watch` offline
  // shows the occupancy there as a GPU run would (watch_feed.hpp).
  k.last_launch.note(c);
  run.require_gpu("a kernel launch");
  // Live, a kernel without a function is one whose code was not loaded: another arch's.
  const auto v = cu::check_code(k.limits, run.limits());
  refuse(k, v ? v->sentence : "its module is not loaded on this device");
}

void check_config(Run& run, KernelObj& k, const cu::LaunchConfig& c) {
  const cu::DeviceLimits& d = run.limits();
  if (const auto broken = broken_rule(k, c, d)) refuse(k, broken->sentence);
  // Remembered only where the answer is the kernel's and the device's alone: no cluster,
  // given or compiled in, whose check asks the driver.
  const bool pure = !c.clustered() && !k.limits.cluster[0] && !k.limits.cluster_explicit;
  k.passed = c;
  k.passed_for = pure ? &d : nullptr;
}

}  // namespace detail

namespace {

[[gnu::cold]] std::string cluster_refused(const KernelObj& k, const cu::LaunchConfig& c) {
  const cu::Dim3 cl = cu::cluster_of(c, k.limits);
  return "the driver refused cluster " + std::to_string(cl.x) + "x" + std::to_string(cl.y) + "x" +
         std::to_string(cl.z) +
         " for this kernel (with the launch checks on, or with k:check{...}, warplab "
         "names the rule it breaks)";
}

// The launch that runs now, after the preflight: noted (for `warplab watch` and for fault
// attribution: kernel, configuration, stream and the script line that made it), then made
// by the counter session while one counts, else by cuLaunchKernel. A launch the driver or
// the session refused did not happen: its fault note is dropped.
void launch_now(Run& run, KernelObj& k, const cu::LaunchConfig& c, const Where& where) {
  k.last_launch.note(c);                           // for `warplab watch` (watch_feed.hpp)
  run.note_launch(k.display, c, k.limits, where);  // plain copies, no formatting (fault.hpp)
  try {
    if (CounterSession* s = CounterSession::active()) [[unlikely]]
      s->launch(*k.fn, sendable(k, c), k.argptrs.data(), counted_kernel(k), where);
    else
      cu::launch(*k.fn, sendable(k, c), k.argptrs.data());
  } catch (const cu::Error& e) {
    run.faults.forget();
    if (e.code() == CUDA_ERROR_INVALID_CLUSTER_SIZE) [[unlikely]]  // with --no-check: still a sentence
      detail::refuse(k, cluster_refused(k, c));
    throw;
  } catch (...) {  // the counter session's refusal or CUPTI's error: the launch did not happen
    run.faults.forget();
    throw;
  }
  if (LineSession* l = LineSession::active()) [[unlikely]]  // per-line counts: its module maps the records
    l->record_launch(k);
}

}  // namespace

void launch(Run& run, KernelObj& k, const cu::LaunchConfig& c, const char* arg_error, const Where& where) {
  preflight(run, k, c, arg_error);
  if (run.capture.active()) [[unlikely]]
    return run.capture.launch(k, c);
  launch_now(run, k, c, where);
  if (run.opts.sync) synchronize_launched(run);
}

std::vector<double> bench(Run& run, KernelObj& k, const cu::LaunchConfig& c, const char* arg_error,
                          const Where& where, int warmup, int reps) {
  EventTimes::refuse_in_capture(run, "k:bench");
  preflight(run, k, c, arg_error);
  launch_now(run, k, c, where);  // one untimed launch even with warmup = 0: it loads the code
  const cu::LaunchConfig& sent = sendable(k, c);
  CounterSession* const counting = CounterSession::active();  // each launch is counted as well
  auto again = [&] {
    counting ? counting->launch(*k.fn, sent, k.argptrs.data(), counted_kernel(k), where)
             : cu::launch(*k.fn, sent, k.argptrs.data());
  };
  for (int i = 1; i < warmup; ++i) again();
  EventTimes t(run, c.stream, reps, "k:bench");
  for (int i = 0; i < reps; ++i) {
    t.start(i);
    again();
    t.stop(i);
  }
  return t.ms(run);
}

}  // namespace warplab::lab
