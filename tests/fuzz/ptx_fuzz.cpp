// ptx_fuzz.cpp: libFuzzer harness for the PTX reader (rtc::ptx_entries: the .entry names
// of a module's PTX, as NVRTC or a cache entry gives it). It never throws, and every name
// it returns is non-empty and appears in the text.
#include "fuzz_util.hpp"
#include "rtc/ptx.hpp"

using namespace warplab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string ptx = fuzz::text(data, size);
  fuzz::expect_only<fuzz::Never>("rtc::ptx_entries", [&] {
    for (const std::string& e : rtc::ptx_entries(ptx))
      if (e.empty() || ptx.find(e) == std::string::npos)
        fuzz::finding("ptx_entries returned a name that is not in the text: '" + e + "'");
  });
  return 0;
}
