// line_map.hpp: which source line each instruction of a kernel came from, and what kind of
// instruction it is, from its module alone (no GPU): the CUBIN's line table read through
// CUPTI (cuptiGetSassToSourceCorrelation, one call per SASS instruction), the kinds from the
// SASS a disassembler prints (rtc/sass.hpp). Without a disassembler, or without CUPTI, the
// PTX's .loc lines and PTX instruction kinds stand in (the note says so). The per-line rows
// of `compile --lines` and cuda.lines(m) are built here; live counts fill them in lines.hpp.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "lab/module.hpp"
#include "rtc/instructions.hpp"

namespace warplab::lab {

// Where the map came from.
enum class LineSource {
  sass,  // CUPTI's line table per SASS offset, kinds from the disassembly
  ptx,   // the PTX's .loc lines and PTX instruction kinds (no disassembler, or no CUPTI)
};

// One instruction of a kernel.
struct LineInst {
  std::uint32_t offset = 0;  // SASS byte offset; for the PTX fallback, the instruction's index
  std::string text;          // "LDS R5, [R5]" or "ld.shared.f32 %f13, [%rd8];"
  rtc::InstKind kind = rtc::InstKind::other;
  int file = -1;  // index into KernelLines::files; -1: no line information
  unsigned line = 0;
};

struct KernelLines {
  std::string kernel;              // the symbol (mangled), as CUPTI's records name it
  std::string display;             // "banks", "reduce<256>"
  std::vector<std::string> files;  // display paths, as the listing shows them
  std::vector<int> line_offsets;   // per file: added to a line (an inline source's place in its Lua file)
  std::vector<std::string> texts;  // per file: its text, "" when it cannot be read
  std::vector<LineInst> insts;     // in code order
  LineSource from = LineSource::sass;
  std::string note;  // "" or one sentence: the fallback taken, or why there are no lines
  bool has_lines() const;
  // The instruction at SASS byte offset `pc` (a record's), or null.
  const LineInst* at(std::uint64_t pc) const;
};

// The map of kernel `mangled` (shown as `display`) of a compiled module. Throws lab::Error
// for a module with neither CUBIN nor PTX.
KernelLines kernel_lines(const ModuleObj& m, const std::string& mangled, const std::string& display);

// The sentence for a kernel compiled without line information.
std::string no_line_info(const std::string& display);

// ---- rows ---------------------------------------------------------------------------

inline constexpr double kNotCounted = std::numeric_limits<double>::quiet_NaN();

// One source line of one kernel: what it compiled to and, live, what it did.
struct LineRow {
  std::string kernel;              // display name
  std::string file;                // display path ("kernels_src/banks.cu", "banks.lua" for an inline source)
  unsigned line = 0;               // 1-based in `file`; 0: instructions with no line information
  std::string text;                // the source line as written ("" when the file cannot be read)
  std::size_t instructions = 0;    // SASS (or PTX) instructions on this line
  std::vector<std::string> kinds;  // their kinds, each once: "shared load", "branch"
  std::vector<std::uint32_t> offsets;  // their SASS offsets
  // Counted (SASS metrics), summed over every launch; NaN when not counted.
  double inst = kNotCounted;                 // warp instructions executed
  double thread_inst = kNotCounted;          // thread instructions executed
  double thread_inst_pred_on = kNotCounted;  // ... with their predicate true
  double shared_wavefronts = kNotCounted, shared_ideal = kNotCounted;
  double global_sectors = kNotCounted, global_ideal = kNotCounted;
  double local_sectors = kNotCounted;
  double divergent_branches = kNotCounted;
  // Sampled (PC sampling); NaN when not sampled.
  double samples = kNotCounted;                         // stall samples on this line
  double share = kNotCounted;                           // of the kernel's samples, 0..1
  std::vector<std::pair<std::string, double>> reasons;  // "short_scoreboard", samples; most first
  // Derived: shared wavefronts per ideal (32.0 for a 32-way conflict), NaN without shared access.
  double shared_way() const;
  // The share of thread instructions whose predicate was off (divergence, guards), 0..1.
  double predicated_off() const;
  // Global sectors beyond the ideal (ncu's "excessive"), NaN when not counted.
  double global_excess() const;
};

// The rows of a map: one per source line that has instructions, in file then line order;
// instructions without line information form one row of line 0.
std::vector<LineRow> line_rows(const KernelLines& k);

}  // namespace warplab::lab
