// compile/lines.hpp: `compile --lines`: each kernel's source lines with the instructions
// they made and their kinds, from the CUBIN alone (lab/line_map.hpp), no GPU.
#pragma once
#include <string>

#include "rtc/compile.hpp"

namespace warplab::app {

// The listing of every kernel of a successful compile of `src` with `opt`; `sass`: each
// line's SASS instructions under it.
std::string compile_lines(const rtc::Source& src, const rtc::Options& opt, const rtc::CompileResult& r,
                          bool sass, bool color);

}  // namespace warplab::app
