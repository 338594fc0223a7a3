// nvrtc_options.hpp: which NVRTC options a user may pass (cuda.compile's `options`,
// rtc::Options::extra): those that change the code or the diagnostics of one program
// (-lineinfo, -G, --use_fast_math, --maxrregcount, --ftz, -Xptxas -O2, -D, -I, ...; the
// list in docs/compile.md#nvrtc-options). Refused, each with one sentence: architecture
// options (the `arch` field chooses it, so checks and m.arch agree with the code), options
// that give no loadable cubin (-dlto, -rdc, --fdevice-syntax-only), that read or write
// files warplab does not track (--pre-include, --time, precompiled headers), and any other.
// Also the whole list NVRTC receives, in a fixed order. No GPU, no Lua.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace warplab::rtc {

struct Options;

// nullopt when NVRTC may receive `options` as they are; else one sentence naming the first
// option refused, why, and where the accepted ones are listed.
std::optional<std::string> check_options(const std::vector<std::string>& options);

// The folders the include options among `options` name (-I DIR, -IDIR, --include-path=DIR),
// in order: warplab resolves its includes there too, so what they supply is tracked.
std::vector<std::string> option_include_dirs(const std::vector<std::string>& options);

// What NVRTC receives for `opt`, in a fixed order (the cache keys on it): the architecture,
// ptxas -v (always: the spill counts come only from its report; everything else is read from
// the CUBIN, rtc/elf.hpp), the standard, the defines, CUDA's include folders, -lineinfo,
// --maxrregcount, then opt.extra as given.
std::vector<std::string> nvrtc_options(const Options& opt);

}  // namespace warplab::rtc
