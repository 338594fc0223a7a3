// source_params.hpp: a kernel's parameter list read from its source without a compiler,
// for extern "C" kernels, whose names carry no types (extern_c.hpp): comments and literals
// left out, the declaration found by the kernel's name, and the types its words name where
// the text says so plainly (builtin and CUDA types; macros and typedefs defined once, outside
// any #if). Anything less plain is left to the compiler. Pure text work.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rtc/signature.hpp"

namespace warplab::rtc {

// `text` with comments and the insides of string and character literals turned to spaces
// (line breaks kept) and each backslash-newline removed, so that a scan meets code only.
std::string code_only(std::string_view text);

// The parameter list of kernel `name` as `codes` (code_only's) write it: the text between
// the parentheses after the name, in a declaration that says __global__ or has void just
// before the name (attributes between them allowed), on one line with its spaces collapsed
// ("const float* x, int n"). A definition wins over declarations; nullopt when there is
// none, or when two differ (two versions under #if).
std::optional<std::string> written_params(const std::vector<std::string>& codes, const std::string& name);

// The words a set of sources (code_only's) and the -D macros define plainly, and the types a
// written parameter list names with them.
class PlainWords {
 public:
  PlainWords(const std::vector<std::string>& codes,
             const std::vector<std::pair<std::string, std::string>>& defines);
  // Each parameter's type when every word of `written` is plain: a builtin or CUDA type
  // word no source redefines, const/volatile/__restrict__, a parameter name, or a macro or
  // typedef that expands to those; nullopt otherwise (a class type, a word defined twice or
  // under #if, brackets, a default value).
  std::optional<std::vector<ParamType>> types(const std::string& written) const;

 private:
  std::map<std::string, std::string> macros_;    // object-like, one definition outside #if
  std::map<std::string, std::string> typedefs_;  // to builtin words only: "unsigned int"
  std::set<std::string> doubtful_;               // defined or declared any other way
  void define(std::map<std::string, std::string>& table, const std::string& name, const std::string& value);
};

}  // namespace warplab::rtc
