// launch.cpp: see launch.hpp.
#include "lab/launch.hpp"

#include <climits>
#include <cstdio>

#include "cu/error.hpp"
#include "cu/stream.hpp"
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
  return k.display + " expects " + std::to_string(k.slots.size()) + " arguments (" + k.sig->to_string() +
         "), got " + std::to_string(n);
}

std::string limit_error(const cu::LaunchConfig& c, const cu::KernelLimits& k, const cu::DeviceLimits& d) {
  if (auto v = cu::check(c, k, d)) [[unlikely]]
    return std::move(v->sentence);
  return {};
}

std::string why_not(const KernelObj& k, const cu::LaunchConfig& c, const cu::DeviceLimits& d) {
  if (auto v = cu::check(c, k.limits, d)) [[unlikely]]
    return std::move(v->sentence);
  if (!k.fn || !c.clustered()) return {};
  try {  // only the driver's answer can throw here (a failed cuOccupancyMaxActiveClusters)
    if (auto v = cu::check_clusters(*k.fn, c)) return std::move(v->sentence);
  } catch (const cu::Error& e) {
    return e.what();
  }
  return {};
}

std::vector<double> time_launches(KernelObj& k, const cu::LaunchConfig& c, const cu::ContextPtr& ctx,
                                  int warmup, int reps, const std::function<void(cu::Event&)>& wait) {
  for (int i = 1; i < warmup; ++i) cu::launch(*k.fn, c, k.argptrs.data());
  return time_events(
      ctx, c.stream, reps, [&] { cu::launch(*k.fn, c, k.argptrs.data()); }, wait);
}

}  // namespace warplab::lab
