// instructions.hpp: what kind each instruction of a kernel is (shared/global/local load or
// store, atomic, branch, barrier, ...), read from the SASS a disassembler printed
// (sass.hpp) or, without one, from the PTX with its .loc line directives (-lineinfo). No
// GPU; the per-line listing (lab/line_map.hpp) groups these by source line.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace warplab::rtc {

enum class InstKind {
  other,
  shared_load,
  shared_store,
  global_load,
  global_store,
  local_load,
  local_store,
  generic_load,   // LD / ld: the address decides at run time
  generic_store,  // ST / st
  atomic,         // ATOM, RED / atom, red: generic, the address decides at run time
  shared_atomic,  // ATOMS, REDAS / atom.shared, red.shared
  global_atomic,  // ATOMG, REDG / atom.global, red.global
  branch,
  barrier,  // __syncthreads (BAR.SYNC, bar.sync, barrier.sync)
  fence,    // MEMBAR / membar, fence
  shuffle,
  async_copy,  // LDGSTS / cp.async: global to shared
  tma,         // UTMALDG, UBLKCP / cp.async.bulk
  texture,
};

// "shared load", "global store", "branch", ... ("" for other).
const char* inst_kind_name(InstKind k);

// The kind of a SASS opcode as a disassembler prints it ("LDS.U.128", "BAR.SYNC.DEFER_BLOCKING").
InstKind sass_kind(std::string_view opcode);
// The kind of a PTX instruction ("ld.shared.f32", "bar.sync", "@%p1 bra").
InstKind ptx_kind(std::string_view opcode);

struct SassInst {
  std::uint32_t offset = 0;  // byte offset in the function: "/*0260*/"
  std::string text;          // "LDS R5, [R5]" (predicate kept, ';' and encoding left out)
  InstKind kind = InstKind::other;
};

// The instructions of one kernel's part of a disassembly (sass_of()'s text), in order.
std::vector<SassInst> sass_instructions(const std::string& kernel_dump);

// One PTX instruction under the .loc directive before it.
struct PtxInst {
  int file = 0;       // the .file number; 0: no .loc yet
  unsigned line = 0;  // 0: no line information
  std::string text;   // "ld.shared.f32 %f2, [%r12];"
  InstKind kind = InstKind::other;
};

struct PtxLines {
  std::map<int, std::string> files;  // .file N "name"
  std::vector<PtxInst> insts;        // the entry's instructions in order
};

// The instructions of entry `name` of `ptx` with their .loc lines (none without -lineinfo).
PtxLines ptx_lines(const std::string& ptx, const std::string& name);

}  // namespace warplab::rtc
