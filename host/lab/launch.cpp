// launch.cpp: the launch plan, the one validity check (broken_rule) and the launch itself:
// checks, fault note, cuLaunchKernel, --sync; k:bench's timed launches (see launch.hpp); a
// launch while hardware counters count, told to the session (lab/counters.hpp).
#include "lab/launch.hpp"

#include <climits>
#include <cstdio>

#include "cu/error.hpp"
#include "cu/graph.hpp"
#include "lab/counters.hpp"
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
  if (!k.sig)
    return "kernel " + k.display + " is extern \"C\": declare its parameters with m:kernel(\"" + k.display +
           "\", \"const float*, float*, int\")";
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

namespace {

[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void refuse(const KernelObj& k, const std::string& why) {
  throw Error(ErrorKind::bad_input, k.display + ": " + why);
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

[[gnu::cold]] std::string cluster_refused(const KernelObj& k, const cu::LaunchConfig& c) {
  const cu::Dim3 cl = cu::cluster_of(c, k.limits);
  return "the driver refused cluster " + std::to_string(cl.x) + "x" + std::to_string(cl.y) + "x" +
         std::to_string(cl.z) +
         " for this kernel (with the launch checks on, or with k:check{...}, warplab "
         "names the rule it breaks)";
}

// A launch while a counter session is active (off the usual path: the caller tests one
// pointer). CUPTI replays a counted launch to its end inside the driver call, so the
// session's clock is set around it for the watchdog (CounterSession::overdue); a captured
// launch would not run until its graph does, so it is refused.
[[gnu::cold]] [[gnu::noinline]] void counted_launch(CounterSession& s, KernelObj& k,
                                                    const cu::LaunchConfig& c, const Where& where) {
  if (cu::capture_info(c.stream).active())
    throw Error(
        ErrorKind::bad_input,
        k.display +
            ": hardware counters cannot count a launch inside a stream capture (a captured launch runs only "
            "when its graph is launched); count the kernel launched on its own, outside the capture");
  std::string site = where.line > 0 && where.source
                         ? std::string(where.source) + ":" + std::to_string(where.line)
                         : std::string();
  s.driver_call(k.display, site);
  try {
    cu::launch(*k.fn, c, k.argptrs.data());
  } catch (...) {
    s.driver_done();
    throw;
  }
  s.record_launch(k, c.grid, c.block, std::move(site));
}

// Everything a launch checks before the driver sees it, then the launch, noted for fault
// attribution: kernel, configuration and the script line that made it.
void checked_launch(Run& run, KernelObj& k, const cu::LaunchConfig& c, const char* arg_error,
                    const Where& where) {
  if (run.opts.check) {
    if (const auto broken = broken_rule(k, c, run.limits())) [[unlikely]]
      refuse(k, broken->sentence);
  }
  if (arg_error) [[unlikely]]
    throw Error(ErrorKind::bad_input, arg_error);
  if (!k.fn) [[unlikely]] {
    run.require_gpu("a kernel launch");
    // Live, a kernel without a function is one whose code was not loaded: another arch's.
    const auto v = cu::check_code(k.limits, run.limits());
    refuse(k, v ? v->sentence : "its module is not loaded on this device");
  }
  k.last_launch = {c.block.x * c.block.y * c.block.z,
                   c.shared_bytes};                         // for `warplab watch` (watch_feed.hpp)
  LaunchNote& n = run.faults.note(k.display, c, k.limits);  // plain copies, no formatting
  n.stream = run.streams.note(c.stream);                    // 0 for the default stream
  if (where.line > 0) {
    std::memcpy(n.source, where.source, sizeof n.source);
    n.line = where.line;
  }
  try {
    if (CounterSession* s = CounterSession::active()) [[unlikely]]
      counted_launch(*s, k, sendable(k, c), where);
    else
      cu::launch(*k.fn, sendable(k, c), k.argptrs.data());
  } catch (const cu::Error& e) {
    run.faults.forget();
    if (e.code() == CUDA_ERROR_INVALID_CLUSTER_SIZE) [[unlikely]]  // with --no-check: still a sentence
      refuse(k, cluster_refused(k, c));
    throw;
  } catch (...) {  // a counted launch's refusal or CUPTI's error: the launch did not happen
    run.faults.forget();
    throw;
  }
}

// A launch during a stream capture (capture.hpp): checked the same, recorded in the graph,
// not run: on the capture's stream when it names none (the legacy default stream cannot
// capture), else on a stream in the capture; no fault note and no --sync, since nothing
// runs until the graph is launched.
[[gnu::cold]] [[gnu::noinline]] void captured_launch(Run& run, KernelObj& k, cu::LaunchConfig c,
                                                     const char* arg_error) {
  if (run.opts.check)
    if (const auto broken = broken_rule(k, c, run.limits())) refuse(k, broken->sentence);
  if (arg_error) throw Error(ErrorKind::bad_input, arg_error);
  if (!k.fn) {
    run.require_gpu("a kernel launch");
    const auto v = cu::check_code(k.limits, run.limits());  // another arch's code: not loaded
    refuse(k, v ? v->sentence : "its module is not loaded on this device");
  }
  if (!c.stream)
    c.stream = run.capture.stream();
  else
    run.capture.check_stream(c.stream, "a kernel launch");
  cu::launch(*k.fn, sendable(k, c), k.argptrs.data());
}

}  // namespace

void launch(Run& run, KernelObj& k, const cu::LaunchConfig& c, const char* arg_error, const Where& where) {
  if (run.capture.active()) [[unlikely]]
    return captured_launch(run, k, c, arg_error);
  checked_launch(run, k, c, arg_error, where);
  if (run.opts.sync) synchronize_launched(run);
}

std::vector<double> bench(Run& run, KernelObj& k, const cu::LaunchConfig& c, const char* arg_error,
                          const Where& where, int warmup, int reps) {
  run.capture.refuse(CaptureOp::bench, "k:bench");
  checked_launch(run, k, c, arg_error, where);  // one untimed launch even with warmup = 0: it loads the code
  const cu::LaunchConfig& sent = sendable(k, c);
  CounterSession* const counting = CounterSession::active();  // each launch is counted as well
  auto again = [&] {
    counting ? counted_launch(*counting, k, sent, where) : cu::launch(*k.fn, sent, k.argptrs.data());
  };
  for (int i = 1; i < warmup; ++i) again();
  EventTimes t(run.context, c.stream, reps);
  for (int i = 0; i < reps; ++i) {
    t.start(i);
    again();
    t.stop(i);
  }
  return t.ms(run);
}

}  // namespace warplab::lab
