// compile.hpp: NVRTC behind one call. compile(Source, Options) resolves the includes
// itself, compiles for a real architecture (PTX and cubin; a virtual one on request), and returns
// diagnostics, per-kernel resources, entries, lowered names and the headers it used. A source that does not
// compile is a value (ok = false); only misuse throws rtc::Error. No GPU, no Lua.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rtc/diagnostics.hpp"
#include "rtc/error.hpp"
#include "rtc/extern_c.hpp"
#include "rtc/includes.hpp"
#include "rtc/ptx.hpp"
#include "rtc/resources.hpp"
#include "rtc/signature.hpp"
#include "rtc/source.hpp"

namespace warplab::rtc {

struct Options {
  std::string arch;  // a real architecture: "sm_90" (also "sm_90a"); see supported_archs()
  // Also accept a virtual architecture (compute_90): PTX only, no cubin, kernels known by
  // name alone (no resources) and one resource note saying so.
  bool allow_virtual = false;
  // {"BLOCK", "256"} -> -DBLOCK=256; {"EMPTY", ""} -> -DEMPTY= (defined, empty). Names are
  // checked by compile() (check_define_name); parse_define builds pairs from "N=V" text.
  std::vector<std::pair<std::string, std::string>> defines;
  // Searched for "..." (after the including file's dir) and <...> (before CUDA's
  // headers); relative dirs are taken from the current directory.
  std::vector<std::string> include_dirs;
  bool lineinfo = false;
  std::string std = "c++17";
  int max_registers = 0;  // --maxrregcount; 0: no limit
  // Passed to NVRTC as they are, once rtc::check_options (nvrtc_options.hpp) accepts them
  // (compile() throws its sentence otherwise); their -I folders are searched by warplab too.
  std::vector<std::string> extra;
  std::vector<std::string> name_expressions;  // "reduce<256>": instantiated and lowered
};

// Where compile() spent its time, in ms (`warplab compile --timings`). NVRTC's own split
// of its call (front end, optimizer, PTX, ptxas) is known only when asked for
// (set_phase_times): -1 otherwise.
struct CompileTimes {
  double includes = 0;  // reading the headers warplab resolves, hashing them
  double cache = 0;     // the on-disk cache's lookup (and store)
  double nvrtc = 0;     // nvrtcCompileProgram, all of it
  double frontend = -1, optimizer = -1, ptx = -1, ptxas = -1;
  double outputs = 0;  // PTX, cubin and its ELF records read back, extern "C" kernels' types
};

struct CompileResult {
  bool ok = false;
  std::string log;                       // NVRTC's log as it came
  std::vector<Diagnostic> diagnostics;   // parsed from the log, ptxas report left out
  std::string ptx;                       // empty unless ok
  std::vector<char> cubin;               // ELF for `arch`; empty unless ok
  std::vector<KernelResources> kernels;  // per kernel, in PTX order when ok
  // Why a number is unknown, or where the CUBIN and the ptxas report disagree: sentences.
  std::vector<std::string> resource_notes;
  std::vector<std::pair<std::string, std::string>> lowered;  // name expression -> mangled
  std::vector<std::string> entries;                          // every kernel's (mangled) name, PTX order
  std::vector<ExternCParams> extern_c;                       // per entry without a mangled name
  std::vector<Dependency> dependencies;                      // every header warplab resolved
  // Exactly the options NVRTC received, but for those that leave its output alone: a PCH
  // (pch tells) and --time (CompileTimes).
  std::vector<std::string> options;
  std::string arch;
  std::string nvrtc_version;  // "13.0"
  double compile_ms = 0;      // the whole compile() call
  bool from_cache = false;    // true when the on-disk cache answered
  std::string cache_key;      // what the cache filed it under (empty: no cache)
  bool pch = false;           // NVRTC used headers kept warm in this process (pch.hpp)
  std::string pch_note;       // the PCH file used, or why none was
  CompileTimes times;         // not kept by the cache: a hit's are its own lookup's

  std::size_t errors() const { return count(diagnostics, Severity::Error); }
  // nullptr / "" when unknown.
  const KernelResources* resources(const std::string& mangled) const;
  std::string lowered_name(const std::string& expression) const;
  // An entry's parameter types: demangled (C++), or read for an extern "C" kernel
  // (extern_c.hpp); nullopt when they are not known.
  std::optional<Signature> signature(const std::string& entry) const;
  // What was read for an extern "C" entry; nullptr for others.
  const ExternCParams* extern_c_params(const std::string& entry) const;
};

// Throws rtc::Error for an unsupported arch (the sentence lists supported_archs()), for an
// option check_options refuses, and when NVRTC itself fails (out of memory, ...).
// Everything about the source is a value.
class Cache;
// With a cache, a compile of exactly the same bytes, options, architecture and NVRTC
// version is answered from disk (rtc/cache.hpp); successful compiles are stored.
CompileResult compile(const Source& src, const Options& opt, Cache* cache = nullptr);

// The result's diagnostics, formatted (see diagnostics.hpp).
std::string format_diagnostics(const CompileResult& r, std::size_t max_shown, bool color);

// "N=V" -> {N, V}; "N=" -> {N, ""} (defined, empty); "N" -> {N, "1"}, as -D N does.
// Throws rtc::Error (bad input) for a name that is empty or not an identifier (a
// function-like "F(a,b)" is allowed).
std::pair<std::string, std::string> parse_define(const std::string& spec);
void check_define_name(const std::string& name);

// The options compile() hands NVRTC for `opt` on a cache miss (nvrtc_options.hpp's list
// and --no-cache where NVRTC has it: what a kept PCH must match, pch.hpp), and where it
// looks for the headers it resolves (the include folders, those of -I among opt.extra, then
// warplab's; throws rtc::Error for one that cannot be used).
std::vector<std::string> compile_options(const Options& opt);
std::vector<std::filesystem::path> include_search_dirs(const Options& opt);
// NVRTC's split of each compile's time (front end, optimizer, PTX, ptxas: CompileTimes),
// asked for with --time from here on in this process (compile --timings).
void set_phase_times(bool on);

std::string nvrtc_version();  // "13.0"
// {"sm_75", ..., "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", ...}: NVRTC's numbers,
// each followed by the a/f variants NVIDIA's rule gives them (no compile: fast enough for
// shell completion); a variant given to compile() is checked by NVRTC itself.
std::vector<std::string> supported_archs();
bool is_virtual_arch(const std::string& arch);  // "compute_90" (Options::allow_virtual)

}  // namespace warplab::rtc
