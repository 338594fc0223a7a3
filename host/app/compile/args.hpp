// compile/args.hpp: what `warplab compile`'s command line says, what it is refused before
// any compile, and the NVRTC options of each variant (--diff compiles two: the options
// before --diff are both's, those after it the second's).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "rtc/compile.hpp"

namespace warplab::app {

// What -D, -I and --arch say: before --diff, of both variants; after it, of the second.
struct Variant {
  std::string arch;
  bool arch_given = false;  // --arch "" is an error, not "no --arch"
  std::vector<std::string> defines;
  std::vector<std::string> include_dirs;
  bool empty() const { return !arch_given && defines.empty() && include_dirs.empty(); }
};

struct CompileArgs {
  std::string file;
  Variant both;  // the options before --diff
  bool ptx = false;
  std::string sass;  // --sass: "clean" (the listing), "raw" (the tool's text); "": none
  std::string cubin;
  bool cubin_given = false;  // --cubin "" is an error, not "no --cubin"
  bool lineinfo = false;
  std::size_t max_errors = 10;
  std::vector<std::string> kernels;  // --kernel 'NAME<...>': name expressions to instantiate
  bool json = false;
  bool timings = false;   // where the time went
  bool pch = false;       // headers kept warm before the compile
  bool lines = false;     // --lines: each kernel's source lines and the instructions they made (lines.hpp)
  bool diff = false;      // --diff: the SASS (or PTX) of a second variant against this one's (code.hpp)
  std::string diff_file;  // --diff FILE; "": the same file
  Variant second;         // the options after --diff
  int diff_lines = 0;     // at most this many lines of each kernel's diff (0: all)
  // Where -D, -I and --arch go as they are parsed: after --diff, to the second variant.
  Variant& variant() { return diff ? second : both; }
  // SASS is printed or compared: --sass, or --diff without --ptx.
  bool wants_sass() const { return !sass.empty() || (diff && !ptx); }
};

// `a` with its files found as occupancy and cuda.compile find them: a relative name that is
// not in the current folder is looked for among the shipped kernels (`warps/thread_ids.cu`).
// A name found nowhere stays as given, for the reader's sentence.
CompileArgs with_shipped_files(CompileArgs a);

// The refusals before any compile: an empty or virtual --arch where a cubin or SASS is asked
// for (bad input), --cubin "", --lines with --sass=raw, --diff without a second variant or
// with the same one (usage). Throws warplab::Error.
void check_args(const CompileArgs& a);

// The NVRTC options of the first variant (`second` null) or of the second: the options
// before --diff, then the second's, whose -D replace those of the same name.
rtc::Options options_of(const CompileArgs& a, const Variant* second, const std::string& arch);

// The label of a variant in the diff: "k.cu", "k.cu -D PAD --arch sm_80".
std::string variant_label(const std::string& file, const Variant* second);

// The valid architectures, for the sentences that refuse one.
std::string join_archs();

}  // namespace warplab::app
