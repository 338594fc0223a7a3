// param_type.cpp: one kernel parameter type from its spelling, as the demangler prints it
// ("float const*", "unsigned long long*", "double2") or as a user declares it ("const
// float* x", "size_t"). Classifies it (pointer, signed, unsigned, float, bool, other) and
// sizes it, so a launch can check a Lua value against it. Pure string work.
#include <cctype>
#include <regex>

#include "rtc/error.hpp"
#include "rtc/signature.hpp"
#include "rtc/type_words.hpp"
#include "sys/regex_span.hpp"

namespace warplab::rtc {
namespace detail {
namespace {

using Kind = ParamType::Kind;

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A name token: identifier, `::` chains and balanced <...> template arguments, into `out`;
// the reason when malformed.
std::optional<std::string> read_name(std::string_view t, std::size_t& i, std::string& out) {
  const std::size_t start = i;
  if (t.substr(i, 2) == "::") i += 2;
  while (true) {
    if (i >= t.size() || !ident_start(t[i])) return "has a malformed name";
    while (i < t.size() && ident_char(t[i])) ++i;
    std::size_t j = i;
    while (j < t.size() && t[j] == ' ') ++j;
    if (j < t.size() && t[j] == '<') {
      int depth = 0;
      for (; j < t.size(); ++j) {
        if (t[j] == '<' || t[j] == '(')
          ++depth;
        else if ((t[j] == '>' || t[j] == ')') && --depth == 0)
          break;
      }
      if (j >= t.size()) return "has an unbalanced '<'";
      i = j + 1;
    }
    if (t.substr(i, 2) != "::") break;
    i += 2;
  }
  out = tidy_angles(std::string(t.substr(start, i - start)));
  return std::nullopt;
}

}  // namespace

std::string tidy_angles(std::string s) {
  for (std::size_t p; (p = s.find("> >")) != std::string::npos;) s.erase(p + 1, 1);
  return s;
}

namespace {

// A parameter declaration in pieces: specifiers ("const unsigned long"), then the
// declarator (pointer levels with their cv, a reference, maybe a name).
struct Decl {
  struct Level {
    bool c = false, v = false;
  };
  std::vector<std::string> words;  // builtin type words: "unsigned", "long", ...
  std::string named;               // or one named type: "float2", "ns::Foo<int>"
  std::string param_name;          // "n" in "int n" (declared signatures only)
  bool base_const = false, base_volatile = false, ref = false;
  std::vector<Level> levels;  // one per '*'
};

// The declaration `t` in pieces into `d`; the reason when it is not one.
std::optional<std::string> read_decl(std::string_view t, bool allow_name, Decl& d) {
  for (std::size_t i = 0; i < t.size();) {
    const char c = t[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    if (!d.param_name.empty()) return "has text after the parameter name '" + d.param_name + "'";
    if (c == '*') {
      if (d.ref) return "is a pointer to a reference";
      d.levels.push_back({});
      ++i;
      continue;
    }
    if (c == '&') {
      if (d.ref) return "is a reference to a reference";
      d.ref = true;
      i += t.substr(i, 2) == "&&" ? 2 : 1;
      continue;
    }
    if (!ident_start(c) && t.substr(i, 2) != "::") return std::string("has an unexpected '") + c + "'";
    std::string w;
    if (auto why = read_name(t, i, w)) return why;
    const bool in_specifiers = d.levels.empty() && !d.ref;
    if ((w == "const" || w == "volatile") && !in_specifiers && d.levels.empty())
      return "has '" + w + "' after a reference";  // "int& const" (fuzz finding)
    if (w == "const" || w == "volatile") {
      // Before any '*' it qualifies the base type (either side of it); after, the pointer.
      bool& slot = in_specifiers ? (w == "const" ? d.base_const : d.base_volatile)
                                 : (w == "const" ? d.levels.back().c : d.levels.back().v);
      slot = true;
    } else if (is_ignored_word(w)) {
      continue;
    } else if (in_specifiers && d.named.empty() && is_type_word(w)) {
      d.words.push_back(w);
    } else if (in_specifiers && d.named.empty() && d.words.empty()) {
      d.named = w;
    } else if (allow_name && w.find_first_of(":<") == std::string::npos) {
      d.param_name = w;  // a second name after a complete type: the parameter's
    } else {
      return "has an unexpected word '" + w + "'";
    }
  }
  if (d.words.empty() && d.named.empty()) return "names no type";
  return std::nullopt;
}

// Kind, size, spelling and pointee of a declaration whose base type is `base`.
ParamType classify(const Decl& d, const std::string& base) {
  ParamType p;
  // West const for readability and for matching what users declare: "const float*".
  const std::string base_spelling =
      std::string(d.base_const ? "const " : "") + (d.base_volatile ? "volatile " : "") + base;
  std::string spelling = base_spelling;
  for (std::size_t k = 0; k < d.levels.size(); ++k) {
    spelling += std::string("*") + (d.levels[k].c ? " const" : "");
    spelling += d.levels[k].v ? " volatile" : "";
    if (k + 2 == d.levels.size()) p.pointee = spelling;  // all but the last level
  }
  p.spelling = spelling + (d.ref ? "&" : "");
  if (!d.levels.empty()) {
    p.kind = Kind::Pointer;
    p.size = 8;
    if (d.levels.size() == 1) {
      p.pointee = base;
      p.pointee_const = d.base_const;
    } else {
      // The pointee's own top-level const is reported in pointee_const, not in the text.
      p.pointee_const = d.levels[d.levels.size() - 2].c;
      const std::string suffix = " const";
      if (p.pointee_const && p.pointee.size() >= suffix.size() &&
          p.pointee.compare(p.pointee.size() - suffix.size(), suffix.size(), suffix) == 0)
        p.pointee.resize(p.pointee.size() - suffix.size());
    }
  } else if (d.ref) {
    p.kind = Kind::Other;  // a reference travels as a pointer
    p.size = 8;
  } else if (auto it = builtin_types().find(base); it != builtin_types().end()) {
    p.kind = it->second.kind;
    p.size = it->second.size;
  } else {
    p.size = vector_type_size(base);  // 0 for a type we know nothing about
  }
  return p;
}

}  // namespace

std::optional<std::string> parse_type(std::string_view t, bool allow_name, ParamType& out) {
  const std::size_t b = t.find_first_not_of(" \t\n");
  if (b == std::string_view::npos) return "is empty";
  t = t.substr(b, t.find_last_not_of(" \t\n") - b + 1);

  // A function pointer, "void (*)(int)": passed as a pointer; we keep its spelling.
  if (t.find('(') != std::string_view::npos) {
    if (t.size() > sys::regex_span)  // std::regex recurses per character
      return "is a function pointer type of " + std::to_string(t.size()) + " characters (at most " +
             std::to_string(sys::regex_span) + ")";
    static const std::regex fptr(R"re(^(.*)\(\s*\*\s*([A-Za-z_]\w*)?\s*\)(\s*\(.*\))$)re");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_match(t.begin(), t.end(), m, fptr)) return "has an unexpected '('";
    out = ParamType{};
    out.kind = Kind::Pointer;
    out.size = 8;
    out.pointee = m[1].str() + m[3].str();
    out.spelling = m[1].str() + "(*)" + m[3].str();
    return std::nullopt;
  }

  Decl d;
  if (auto why = read_decl(t, allow_name, d)) return why;
  std::string base;
  if (!d.words.empty()) {
    if (auto why = combine_type_words(d.words, base)) return why;
  } else {
    // std::size_t, ::int64_t: the alias table is keyed without the qualifier.
    std::string key = d.named;
    if (key.rfind("std::", 0) == 0)
      key = key.substr(5);
    else if (key.rfind("::", 0) == 0)
      key = key.substr(2);
    const auto it = type_aliases().find(key);
    base = it != type_aliases().end() ? it->second : d.named;
  }
  if (base == "void" && d.levels.empty()) return "has type void";
  out = classify(d, base);
  return std::nullopt;
}

}  // namespace detail

ParamType parse_param_type(const std::string& text) {
  ParamType p;
  if (const auto why = detail::parse_type(text, false, p))
    throw Error("'" + text + "' is not a parameter type: it " + *why);
  return p;
}

std::string_view to_string(ParamType::Kind k) {
  switch (k) {
    case ParamType::Kind::Pointer:
      return "pointer";
    case ParamType::Kind::Signed:
      return "signed";
    case ParamType::Kind::Unsigned:
      return "unsigned";
    case ParamType::Kind::Float:
      return "float";
    case ParamType::Kind::Bool:
      return "bool";
    case ParamType::Kind::Other:
      return "other";
  }
  return "other";
}

}  // namespace warplab::rtc
