// signature_fuzz.cpp: libFuzzer harness for kernel signatures: rtc::demangle (mangled
// names from the PTX, through abi::__cxa_demangle and warplab's parser of its output),
// rtc::parse_signature (an extern "C" kernel's declared parameter text, from Lua) and
// rtc::parse_param_type. demangle never throws; the other two throw only rtc::Error.
#include "fuzz_util.hpp"
#include "rtc/error.hpp"
#include "rtc/signature.hpp"

using namespace warplab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string in = fuzz::text(data, size);
  fuzz::expect_only<fuzz::Never>("rtc::demangle", [&] {
    if (const auto sig = rtc::demangle(in)) {
      (void)sig->to_string();
      for (const auto& p : sig->params) (void)rtc::to_string(p.kind);
    }
    // Names as NVRTC lowers them are always _Z-prefixed: try the input as a suffix too.
    (void)rtc::demangle("_Z" + in);
    (void)rtc::detail::tidy_angles(in);
  });
  fuzz::expect_only<rtc::Error>("rtc::parse_signature", [&] {
    const rtc::Signature s = rtc::parse_signature("k", in);
    (void)s.to_string();
  });
  fuzz::expect_only<rtc::Error>("rtc::parse_param_type", [&] { (void)rtc::parse_param_type(in); });
  rtc::ParamType t;
  fuzz::expect_only<fuzz::Never>("rtc::detail::parse_type", [&] {
    (void)rtc::detail::parse_type(in, true, t);
    (void)rtc::detail::parse_type(in, false, t);
  });
  return 0;
}
