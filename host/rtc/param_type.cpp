// param_type.cpp: one kernel parameter type from its spelling, as the demangler prints it
// ("float const*", "unsigned long long*", "double2") or as a user declares it ("const
// float* x", "size_t"). Classifies it (pointer, signed, unsigned, float, bool, other) and
// sizes it, so a launch can check a Lua value against it. Pure string work.
#include <array>
#include <cctype>
#include <map>
#include <regex>

#include "rtc/error.hpp"
#include "rtc/signature.hpp"

namespace warplab::rtc {
namespace detail {
namespace {

using Kind = ParamType::Kind;

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Library typedefs, resolved to the builtin or struct name the compiler mangles (LP64).
const std::map<std::string, std::string>& aliases() {
  static const std::map<std::string, std::string> m = {
      {"size_t", "unsigned long"},      {"ssize_t", "long"},
      {"ptrdiff_t", "long"},            {"intptr_t", "long"},
      {"uintptr_t", "unsigned long"},   {"int8_t", "signed char"},
      {"uint8_t", "unsigned char"},     {"int16_t", "short"},
      {"uint16_t", "unsigned short"},   {"int32_t", "int"},
      {"uint32_t", "unsigned int"},     {"int64_t", "long"},
      {"uint64_t", "unsigned long"},    {"half", "__half"},
      {"_Float16", "__half"},           {"__fp16", "__half"},
      {"nv_bfloat16", "__nv_bfloat16"}, {"__bf16", "__nv_bfloat16"},
      {"bfloat16_t", "__nv_bfloat16"},  {"half2", "__half2"},
      {"nv_bfloat162", "__nv_bfloat162"}};
  return m;
}

struct Builtin { Kind kind; int size; };

const std::map<std::string, Builtin>& builtins() {
  static const std::map<std::string, Builtin> m = {
      {"bool", {Kind::Bool, 1}},          {"char", {Kind::Signed, 1}},
      {"signed char", {Kind::Signed, 1}}, {"unsigned char", {Kind::Unsigned, 1}},
      {"short", {Kind::Signed, 2}},       {"unsigned short", {Kind::Unsigned, 2}},
      {"int", {Kind::Signed, 4}},         {"unsigned int", {Kind::Unsigned, 4}},
      {"long", {Kind::Signed, 8}},        {"unsigned long", {Kind::Unsigned, 8}},
      {"long long", {Kind::Signed, 8}},   {"unsigned long long", {Kind::Unsigned, 8}},
      {"__int128", {Kind::Signed, 16}},   {"unsigned __int128", {Kind::Unsigned, 16}},
      {"wchar_t", {Kind::Signed, 4}},     {"char8_t", {Kind::Unsigned, 1}},
      {"char16_t", {Kind::Unsigned, 2}},  {"char32_t", {Kind::Unsigned, 4}},
      {"float", {Kind::Float, 4}},        {"double", {Kind::Float, 8}},
      {"long double", {Kind::Float, 16}}, {"__half", {Kind::Float, 2}},
      {"__nv_bfloat16", {Kind::Float, 2}}, {"__half2", {Kind::Other, 4}},
      {"__nv_bfloat162", {Kind::Other, 4}}, {"void", {Kind::Other, 0}}};
  return m;
}

// CUDA's vector types: float2, uchar4, longlong2, double4_16a, ... (LP64 long).
int vector_size(const std::string& name) {
  static const std::regex re(R"re(^(u?char|u?short|u?int|u?long|u?longlong|float|double)([1-4])(_16a|_32a)?$)re");
  std::smatch m;
  if (!std::regex_match(name, m, re)) return 0;
  std::string elem = m[1];
  if (elem[0] == 'u') elem = elem.substr(1);
  const int bytes = elem == "char" ? 1 : elem == "short" ? 2 : elem == "int" || elem == "float" ? 4 : 8;
  return bytes * std::stoi(m[2]);
}

// The words of a builtin arithmetic type in any order ("long unsigned int") -> the
// compiler's spelling ("unsigned long"); empty + reason when they do not form a type.
std::string combine(const std::vector<std::string>& words, std::string& why) {
  int sign = 0, shorts = 0, longs = 0, ints = 0;
  std::string core;  // char, bool, float, double, void, __int128, ...
  for (const std::string& w : words) {
    if (w == "signed" || w == "unsigned") {
      if (sign) { why = "has two signedness words"; return {}; }
      sign = w == "signed" ? 1 : 2;
    } else if (w == "short") ++shorts;
    else if (w == "long") ++longs;
    else if (w == "int") ++ints;
    else if (!core.empty()) { why = "combines '" + core + "' and '" + w + "'"; return {}; }
    else core = w;
  }
  if (ints > 1 || shorts > 1 || longs > 2 || (shorts && longs)) {
    why = "is not a valid combination of integer words";
    return {};
  }
  if (!core.empty()) {
    const bool long_double = core == "double" && longs == 1 && !sign && !shorts && !ints;
    if (long_double) return "long double";
    const bool sign_ok = core == "char" || core == "__int128";
    if (shorts || longs || ints || (sign && !sign_ok)) {
      why = "combines '" + core + "' with integer words";
      return {};
    }
    if (core == "char") return sign == 1 ? "signed char" : sign == 2 ? "unsigned char" : "char";
    return sign == 2 ? "unsigned " + core : core;
  }
  std::string base = shorts ? "short" : longs == 2 ? "long long" : longs ? "long" : "int";
  return sign == 2 ? "unsigned " + base : base;
}

bool is_builtin_word(const std::string& w) {
  static const std::array<const char*, 15> words = {
      "signed", "unsigned", "short", "long", "int", "char", "bool", "float", "double", "void",
      "__int128", "wchar_t", "char8_t", "char16_t", "char32_t"};
  for (const char* x : words) if (w == x) return true;
  return false;
}

bool ignored_word(const std::string& w) {
  return w == "struct" || w == "class" || w == "union" || w == "enum" || w == "typename" ||
         w == "__restrict__" || w == "__restrict" || w == "restrict";
}

// A name token: identifier, `::` chains and balanced <...> template arguments.
bool read_name(std::string_view t, std::size_t& i, std::string& out, std::string& why) {
  const std::size_t start = i;
  if (t.substr(i, 2) == "::") i += 2;
  while (true) {
    if (i >= t.size() || !ident_start(t[i])) { why = "has a malformed name"; return false; }
    while (i < t.size() && ident_char(t[i])) ++i;
    std::size_t j = i;
    while (j < t.size() && t[j] == ' ') ++j;
    if (j < t.size() && t[j] == '<') {
      int depth = 0;
      for (; j < t.size(); ++j) {
        if (t[j] == '<' || t[j] == '(') ++depth;
        else if ((t[j] == '>' || t[j] == ')') && --depth == 0) break;
      }
      if (j >= t.size()) { why = "has an unbalanced '<'"; return false; }
      i = j + 1;
    }
    if (t.substr(i, 2) != "::") break;
    i += 2;
  }
  out = tidy_angles(std::string(t.substr(start, i - start)));
  return true;
}

}  // namespace

std::string tidy_angles(std::string s) {
  for (std::size_t p; (p = s.find("> >")) != std::string::npos;) s.erase(p + 1, 1);
  return s;
}

std::optional<ParamType> parse_type(std::string_view t, bool allow_name, std::string& why) {
  ParamType p;
  const std::size_t b = t.find_first_not_of(" \t\n");
  if (b == std::string_view::npos) { why = "is empty"; return std::nullopt; }
  t = t.substr(b, t.find_last_not_of(" \t\n") - b + 1);

  // A function pointer, "void (*)(int)": passed as a pointer; we keep its spelling.
  if (t.find('(') != std::string_view::npos) {
    static const std::regex fptr(R"re(^(.*)\(\s*\*\s*([A-Za-z_]\w*)?\s*\)(\s*\(.*\))$)re");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_match(t.begin(), t.end(), m, fptr)) { why = "has an unexpected '('"; return std::nullopt; }
    p.kind = Kind::Pointer;
    p.size = 8;
    p.pointee = m[1].str() + m[3].str();
    p.spelling = m[1].str() + "(*)" + m[3].str();
    return p;
  }

  struct Level { bool c = false, v = false; };
  std::vector<std::string> words;  // builtin type words: "unsigned", "long", ...
  std::string named, param_name;   // a named type; the parameter's own name
  bool base_const = false, base_volatile = false, ref = false;
  std::vector<Level> levels;
  for (std::size_t i = 0; i < t.size();) {
    const char c = t[i];
    if (c == ' ' || c == '\t') { ++i; continue; }
    if (!param_name.empty()) { why = "has text after the parameter name '" + param_name + "'"; return std::nullopt; }
    if (c == '*') {
      if (ref) { why = "is a pointer to a reference"; return std::nullopt; }
      levels.push_back({});
      ++i;
      continue;
    }
    if (c == '&') {
      if (ref) { why = "is a reference to a reference"; return std::nullopt; }
      ref = true;
      i += t.substr(i, 2) == "&&" ? 2 : 1;
      continue;
    }
    if (!ident_start(c) && t.substr(i, 2) != "::") {
      why = std::string("has an unexpected '") + c + "'";
      return std::nullopt;
    }
    std::string w;
    if (!read_name(t, i, w, why)) return std::nullopt;
    if (w == "const" || w == "volatile") {
      bool& slot = levels.empty() ? (w == "const" ? base_const : base_volatile)
                                  : (w == "const" ? levels.back().c : levels.back().v);
      slot = true;
    } else if (ignored_word(w)) {
      continue;
    } else if (levels.empty() && !ref && named.empty() && is_builtin_word(w)) {
      words.push_back(w);
    } else if (levels.empty() && !ref && named.empty() && words.empty()) {
      named = w;
    } else if (allow_name && w.find_first_of(":<") == std::string::npos) {
      param_name = w;
    } else {
      why = "has an unexpected word '" + w + "'";
      return std::nullopt;
    }
  }
  if (words.empty() && named.empty()) { why = "names no type"; return std::nullopt; }
  std::string base;
  if (!words.empty()) {
    base = combine(words, why);
    if (base.empty()) return std::nullopt;
  } else {
    base = named;
    std::string key = base.rfind("std::", 0) == 0 ? base.substr(5) : base.rfind("::", 0) == 0 ? base.substr(2) : base;
    if (auto it = aliases().find(key); it != aliases().end()) base = it->second;
  }
  if (base == "void" && levels.empty()) { why = "has type void"; return std::nullopt; }

  std::string base_spelling = std::string(base_const ? "const " : "") + (base_volatile ? "volatile " : "") + base;
  std::string spelling = base_spelling;
  for (std::size_t k = 0; k < levels.size(); ++k) {
    spelling += std::string("*") + (levels[k].c ? " const" : "") + (levels[k].v ? " volatile" : "");
    if (k + 2 == levels.size()) p.pointee = spelling;  // all but the last level
  }
  p.spelling = spelling + (ref ? "&" : "");
  if (!levels.empty()) {
    p.kind = Kind::Pointer;
    p.size = 8;
    if (levels.size() == 1) {
      p.pointee = base;
      p.pointee_const = base_const;
    } else {
      p.pointee_const = levels[levels.size() - 2].c;
      // The pointee's own top-level const is reported in pointee_const, not in the text.
      const std::string suffix = " const";
      if (p.pointee_const && p.pointee.size() >= suffix.size() &&
          p.pointee.compare(p.pointee.size() - suffix.size(), suffix.size(), suffix) == 0)
        p.pointee.resize(p.pointee.size() - suffix.size());
    }
  } else if (ref) {
    p.kind = Kind::Other;  // a reference travels as a pointer
    p.size = 8;
  } else if (auto it = builtins().find(base); it != builtins().end()) {
    p.kind = it->second.kind;
    p.size = it->second.size;
  } else {
    p.size = vector_size(base);
  }
  return p;
}

}  // namespace detail

ParamType parse_param_type(const std::string& text) {
  std::string why;
  auto p = detail::parse_type(text, false, why);
  if (!p) throw Error("'" + text + "' is not a parameter type: it " + why);
  return *p;
}

std::string_view to_string(ParamType::Kind k) {
  switch (k) {
    case ParamType::Kind::Pointer: return "pointer";
    case ParamType::Kind::Signed: return "signed";
    case ParamType::Kind::Unsigned: return "unsigned";
    case ParamType::Kind::Float: return "float";
    case ParamType::Kind::Bool: return "bool";
    case ParamType::Kind::Other: return "other";
  }
  return "other";
}

}  // namespace warplab::rtc
