// extern_c.hpp: the parameter types of extern "C" kernels, whose PTX names carry none, so
// that they launch by name with the checks a C++ kernel's mangled name gives. The source's
// own list gives them where its words are plain (source_params.hpp); otherwise NVRTC is
// asked, front end only, for the mangled name of a template instantiated with the kernel's
// function type (__warplab_params_of<decltype(&k)>), which holds each parameter's type as
// the compiler resolved it (macros, typedefs, #if). Either answer must match the PTX's
// parameter count and sizes; where none does, the list as written is kept for the hint.
#pragma once
#include <string>
#include <vector>

namespace warplab::rtc {

struct ExternCParams {
  std::string entry;    // the kernel's name, as in the PTX
  std::string written;  // its parameter list as the source writes it, on one line; "": not found
  bool known = false;   // `types` holds its parameter types
  std::string types;    // "const float*, int": their spellings, as parse_signature reads them
  std::string why;      // when not known, why not: a clause for the hint
};

struct CompileResult;
struct Options;
struct ResolvedIncludes;

// Fills r.extern_c, one record per entry of r.entries that is not mangled, from the
// compiled source (`inc`, named `main_name` for NVRTC) and r.ptx. NVRTC failing to answer is
// a reason in the record, never a throw.
void read_extern_c(const ResolvedIncludes& inc, const std::string& main_name, const Options& opt,
                   CompileResult& r);

}  // namespace warplab::rtc
