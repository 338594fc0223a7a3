// type_words.cpp: the vocabulary of parameter types: builtin arithmetic types with kind
// and size, library typedefs resolved to what the compiler mangles (LP64, as CUDA's
// device ABI follows the host's), CUDA vector types. Pure data and string work.
#include "rtc/type_words.hpp"

#include <array>
#include <regex>

namespace warplab::rtc::detail {

using Kind = ParamType::Kind;

// Library typedefs, resolved to the builtin or struct name the compiler mangles (LP64).
const std::map<std::string, std::string>& type_aliases() {
  static const std::map<std::string, std::string> m = {{"size_t", "unsigned long"},
                                                       {"ssize_t", "long"},
                                                       {"ptrdiff_t", "long"},
                                                       {"intptr_t", "long"},
                                                       {"uintptr_t", "unsigned long"},
                                                       {"int8_t", "signed char"},
                                                       {"uint8_t", "unsigned char"},
                                                       {"int16_t", "short"},
                                                       {"uint16_t", "unsigned short"},
                                                       {"int32_t", "int"},
                                                       {"uint32_t", "unsigned int"},
                                                       {"int64_t", "long"},
                                                       {"uint64_t", "unsigned long"},
                                                       {"half", "__half"},
                                                       {"_Float16", "__half"},
                                                       {"__fp16", "__half"},
                                                       {"nv_bfloat16", "__nv_bfloat16"},
                                                       {"__bf16", "__nv_bfloat16"},
                                                       {"bfloat16_t", "__nv_bfloat16"},
                                                       {"half2", "__half2"},
                                                       {"nv_bfloat162", "__nv_bfloat162"}};
  return m;
}

const std::map<std::string, BuiltinType>& builtin_types() {
  static const std::map<std::string, BuiltinType> m = {{"bool", {Kind::Bool, 1}},
                                                       {"char", {Kind::Signed, 1}},
                                                       {"signed char", {Kind::Signed, 1}},
                                                       {"unsigned char", {Kind::Unsigned, 1}},
                                                       {"short", {Kind::Signed, 2}},
                                                       {"unsigned short", {Kind::Unsigned, 2}},
                                                       {"int", {Kind::Signed, 4}},
                                                       {"unsigned int", {Kind::Unsigned, 4}},
                                                       {"long", {Kind::Signed, 8}},
                                                       {"unsigned long", {Kind::Unsigned, 8}},
                                                       {"long long", {Kind::Signed, 8}},
                                                       {"unsigned long long", {Kind::Unsigned, 8}},
                                                       {"__int128", {Kind::Signed, 16}},
                                                       {"unsigned __int128", {Kind::Unsigned, 16}},
                                                       {"wchar_t", {Kind::Signed, 4}},
                                                       {"char8_t", {Kind::Unsigned, 1}},
                                                       {"char16_t", {Kind::Unsigned, 2}},
                                                       {"char32_t", {Kind::Unsigned, 4}},
                                                       {"float", {Kind::Float, 4}},
                                                       {"double", {Kind::Float, 8}},
                                                       {"long double", {Kind::Float, 16}},
                                                       {"__half", {Kind::Float, 2}},
                                                       {"__nv_bfloat16", {Kind::Float, 2}},
                                                       {"__half2", {Kind::Other, 4}},
                                                       {"__nv_bfloat162", {Kind::Other, 4}},
                                                       {"void", {Kind::Other, 0}}};
  return m;
}

// CUDA's vector types: float2, uchar4, longlong2, double4_16a, ... (LP64 long).
int vector_type_size(const std::string& name) {
  static const std::regex re(
      R"re(^(u?char|u?short|u?int|u?long|u?longlong|float|double)([1-4])(_16a|_32a)?$)re");
  std::smatch m;
  if (!std::regex_match(name, m, re)) return 0;
  std::string elem = m[1];
  if (elem[0] == 'u') elem = elem.substr(1);
  const int bytes = elem == "char" ? 1 : elem == "short" ? 2 : elem == "int" || elem == "float" ? 4 : 8;
  return bytes * std::stoi(m[2]);
}

// The words of a builtin arithmetic type in any order ("long unsigned int") -> the
// compiler's spelling ("unsigned long") in `out`; the reason when they do not form a type.
std::optional<std::string> combine_type_words(const std::vector<std::string>& words, std::string& out) {
  int sign = 0, shorts = 0, longs = 0, ints = 0;
  std::string core;  // char, bool, float, double, void, __int128, ...
  for (const std::string& w : words) {
    if (w == "signed" || w == "unsigned") {
      if (sign) return "has two signedness words";
      sign = w == "signed" ? 1 : 2;
    } else if (w == "short")
      ++shorts;
    else if (w == "long")
      ++longs;
    else if (w == "int")
      ++ints;
    else if (!core.empty())
      return "combines '" + core + "' and '" + w + "'";
    else
      core = w;
  }
  if (ints > 1 || shorts > 1 || longs > 2 || (shorts && longs))
    return "is not a valid combination of integer words";
  if (!core.empty()) {
    const bool long_double = core == "double" && longs == 1 && !sign && !shorts && !ints;
    if (long_double) {
      out = "long double";
      return std::nullopt;
    }
    const bool sign_ok = core == "char" || core == "__int128";
    if (shorts || longs || ints || (sign && !sign_ok)) return "combines '" + core + "' with integer words";
    if (core == "char")
      out = sign == 1 ? "signed char" : sign == 2 ? "unsigned char" : "char";
    else
      out = sign == 2 ? "unsigned " + core : core;
    return std::nullopt;
  }
  const std::string base = shorts ? "short" : longs == 2 ? "long long" : longs ? "long" : "int";
  out = sign == 2 ? "unsigned " + base : base;
  return std::nullopt;
}

bool is_type_word(const std::string& w) {
  static const std::array<const char*, 15> words = {
      "signed", "unsigned", "short",    "long",    "int",     "char",     "bool",    "float",
      "double", "void",     "__int128", "wchar_t", "char8_t", "char16_t", "char32_t"};
  for (const char* x : words)
    if (w == x) return true;
  return false;
}

bool is_ignored_word(const std::string& w) {
  return w == "struct" || w == "class" || w == "union" || w == "enum" || w == "typename" ||
         w == "__restrict__" || w == "__restrict" || w == "restrict";
}

}  // namespace warplab::rtc::detail
