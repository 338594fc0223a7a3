// refused_text.hpp: what a source must not hand NVRTC, each refused as a diagnostic at its
// line before NVRTC runs: bytes that end the source early, and identifiers long enough to
// break NVRTC itself.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "rtc/diagnostics.hpp"

namespace warplab::rtc {

// The longest identifier warplab hands NVRTC. NVRTC 13's ptxas report (--ptxas-options=-v)
// corrupts the heap for a function name near 100000 characters, and names nest into the
// mangled names of templates and parameter types; 4096 is past any name a person writes.
inline constexpr std::size_t kMaxIdentifier = 4096;

// A NUL or 0xFF byte in `text` (NVRTC would stop reading there), or an identifier longer
// than kMaxIdentifier: a diagnostic in `out` at its line (`line_offset` added) and true.
bool refused_text(const std::string& text, const std::string& file, int line_offset,
                  std::vector<Diagnostic>& out);

}  // namespace warplab::rtc
