// watch/warm.hpp: the headers `watch` keeps warm between runs: NVRTC and the headers the
// last run's modules open with, precompiled in this process (rtc/pch.hpp) so that every run
// forked from now on compiles with them.
#pragma once
#include <string>

namespace warplab::app::watch {

// For the first few modules in `modules` (lab/prebuilt.hpp's feed of what the last run
// built): a PCH in `dir` that still fits is kept, one whose header changed is made again, the
// others are removed. A pending SIGINT ends it at once (NVRTC would discard it). With
// WARPLAB_STARTUP_TRACE, one line a module on stderr.
void warm_headers(const std::string& modules, const std::string& dir);

}  // namespace warplab::app::watch
