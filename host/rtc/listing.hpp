// listing.hpp: a kernel's code as lines to read and to compare: its PTX body, its SASS
// cleaned (no addresses or encodings, branch targets as labels, no padding), and the diff of
// two such listings that takes renumbered registers and labels for no change. What
// `compile --sass`, `compile --diff` and `watch --diff` print; no GPU.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rtc/instructions.hpp"

namespace warplab::rtc {

using Lines = std::vector<std::string>;

// A line with register numbers and labels replaced by '#' (%r12 -> %r#, R12 -> R#, UP1 ->
// UP#, B0 -> B#, $L__BB0_3 -> $L__BB#, .L3 -> .L#).
std::string normalize(const std::string& line);
// True when the two differ at most in register numbers and labels (what line_diff shows as
// no change).
bool same_code(const Lines& a, const Lines& b);
// Unified diff of two line lists: hunks "@@ -a,n +b,m @@" of "- old", "+ new" and "  context"
// lines, compared with normalize() so that renumbered registers are no change; at most
// max_lines lines of output (0: all), then "... and N more changed lines" and `more`.
std::string line_diff(const Lines& a, const Lines& b, int context, int max_lines,
                      const std::string& more = {});

// Kernel name (mangled) -> its PTX body, without comments and blank lines.
std::map<std::string, Lines> ptx_kernels(const std::string& ptx);

// One kernel's SASS as read from a disassembler (either tool's output): its instructions in
// order, without addresses' padding: the NOPs after the last instruction are left out, and
// each branch target (cuobjdump's "BRA 0x220", nvdisasm's "BRA `(.L_x_0)") is a label,
// ".L1", ".L2", ... in code order, so two variants compare by what they do.
struct SassCode {
  std::string mangled;
  std::vector<SassInst> insts;                  // text: "@!P1 BRA .L1" (no ';', no encoding)
  std::map<std::uint32_t, std::string> labels;  // offset -> ".L1"
  // The lines a diff compares: each instruction's text, a label on a line of its own (".L1:").
  Lines lines() const;
  // The listing to read: "  0130  @!P1 BRA .L1" (offset, predicate column, instruction), a
  // label on a line of its own.
  std::string text() const;
};
// Every kernel of a disassembly, in the order the tool printed them.
std::vector<SassCode> sass_code(const std::string& dump);
// Kernel name (mangled) -> SassCode::lines(), for diffs.
std::map<std::string, Lines> sass_kernels(const std::string& dump);

}  // namespace warplab::rtc
