// compile/code.hpp: the code `warplab compile` prints: the SASS listing, clean (per kernel,
// instructions without addresses' encodings, branch targets as labels: rtc/listing.hpp),
// and the diff of two variants' SASS or PTX, kernel by kernel, in which what was only
// renumbered is no change (the diff `watch --diff` shows).
#pragma once
#include <ostream>
#include <string>

#include "rtc/compile.hpp"

namespace warplab::app {

// Every kernel of a compile, in the table's order: a header line naming it, then its
// instructions. Throws rtc::Error as rtc::disassemble does (`what` names the request).
std::string sass_listing(const rtc::CompileResult& r, const char* what);

// One side of a diff: what it is called ("k.cu -D PAD") and what it compiled to.
struct CodeSide {
  std::string label;
  const rtc::CompileResult* result;
};

// "--- a (sm_90)", "+++ b (sm_90)", then per kernel (paired by name; one left on each side
// is paired with the other) a line saying what changed, its resources' changes, and the
// hunks of its SASS (or with `ptx` its PTX), at most `max_lines` lines each (0: all).
// True when the code differs beyond renumbering, or a kernel is on one side only.
bool print_code_diff(std::ostream& out, const CodeSide& a, const CodeSide& b, bool ptx, int max_lines);

}  // namespace warplab::app
