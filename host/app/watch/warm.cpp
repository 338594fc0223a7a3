// watch/warm.cpp: warm_headers (warm.hpp).
#include "app/watch/warm.hpp"

#include <cstdio>
#include <exception>
#include <vector>

#include "app/watch/signals.hpp"
#include "cu/trace.hpp"
#include "lab/prebuilt.hpp"
#include "rtc/pch.hpp"

namespace warplab::app::watch {
namespace {

// At most this many modules get their headers kept warm (each PCH is ~100 MB on disk).
constexpr std::size_t kMaxWarmModules = 4;

}  // namespace

void warm_headers(const std::string& modules, const std::string& dir) {
  std::vector<std::string> files;
  std::vector<lab::ModuleSpec> specs = lab::read_module_feed(modules);
  if (specs.size() > kMaxWarmModules) specs.resize(kMaxWarmModules);
  for (const lab::ModuleSpec& s : specs) {
    // NVRTC would discard a pending SIGINT (signals.hpp): leave first, warm nothing.
    if (Signals::leave_pending()) return;
    try {
      const rtc::WarmResult w = rtc::warm_headers(s.source, s.options, dir);
      if (w.made) files.push_back(w.file);
      if (cu::tracing()) {
        const std::string what = w.kept ? "still warm" : w.made ? "kept warm" : "none kept (" + w.why + ")";
        std::fflush(stdout);
        std::fprintf(stderr, "warplab: trace: headers of %s: %s, %ld ms\n", s.source.name.c_str(),
                     what.c_str(), static_cast<long>(w.ms));
      }
    } catch (const std::exception&) {  // an unsupported arch: the run said so already
    }
  }
  rtc::forget_warm_headers(files);
}

}  // namespace warplab::app::watch
