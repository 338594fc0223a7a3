// diagnostics_fuzz.cpp: libFuzzer harness for what warplab reads out of NVRTC's log:
// rtc::parse_log (diagnostics, mapped to the user's files, an inline source's line
// offset and name expressions), format_diagnostics, and the ptxas resource report
// (rtc::parse_ptxas_report). None of them may throw: a log is data, never an error.
#include <map>

#include "fuzz_util.hpp"
#include "rtc/diagnostics.hpp"
#include "rtc/resources.hpp"

using namespace warplab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string log = fuzz::text(data, size);
  // The names NVRTC prints for the main source and a header, one with a line offset (an
  // inline source inside a Lua file), with texts for the echoed source lines.
  const std::map<std::string, rtc::LogFile> files = {
      {"k.cu", {"kernels/k.cu", "__global__ void k(int* x) {\n  x[0] = y;\n}\n", 0}},
      {"inline.cu", {"script.lua", "local src = [[\n__global__ void g() {}\n]]\n", 12}},
      {"include/h.cuh", {"kernels/include/h.cuh", log.substr(0, 64), -3}}};
  fuzz::expect_only<fuzz::Never>("rtc::parse_log", [&] {
    const auto diags = rtc::parse_log(log, files, {"reduce<256>", "f<int>"});
    (void)rtc::format_diagnostics(diags, 0, true);
    (void)rtc::format_diagnostics(diags, 3, false);
    (void)rtc::count(diags, rtc::Severity::Warning);
  });
  fuzz::expect_only<fuzz::Never>("rtc::parse_ptxas_report", [&] { (void)rtc::parse_ptxas_report(log); });
  return 0;
}
