// module_find.hpp: a module's kernels by the names people write: the entry a name
// means (base name, full name, signature, name expression, or the entry itself), with
// the "no kernel" and "ambiguous" sentences, and the kernel name lists a module shows.
#pragma once
#include <string>
#include <vector>

#include "lab/module.hpp"

namespace warplab::lab {

// The mangled entry for a user-facing name: a base name ("saxpy"), a full name
// ("reduce<256>"), a signature ("k(double*)", for overloads; "k(int*)" for an extern "C" kernel
// whose types were read), a name expression compiled
// with kernels = {...}, or the entry's own (mangled or extern "C") name. Throws Error (bad_input)
// "module M has no kernel 'x' (kernels: ...)" or "'x' is ambiguous in module M: ...".
std::string find_entry(const ModuleObj& m, const std::string& name);

// Each entry's demangled name ("reduce<256>"), or the entry itself (extern "C").
std::vector<std::string> kernel_names(const rtc::CompileResult& r);
// Each demangled entry's base name ("reduce"), and each extern "C" kernel's name, for completion.
std::vector<std::string> kernel_bases(const rtc::CompileResult& r);

}  // namespace warplab::lab
