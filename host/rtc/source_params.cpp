// source_params.cpp: see source_params.hpp. A scan of text, not a parse of C++: it reads
// what it is sure of and answers nullopt for the rest, which the compiler then tells.
#include "rtc/source_params.hpp"

#include <algorithm>
#include <cctype>

#include "rtc/type_words.hpp"

namespace warplab::rtc {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string collapse(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (space(c)) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The ')' matching the '(' at `open`, or npos.
std::size_t matching_paren(std::string_view code, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < code.size(); ++i) {
    if (code[i] == '(')
      ++depth;
    else if (code[i] == ')' && --depth == 0)
      return i;
  }
  return std::string_view::npos;
}

// Whether the identifier at `at` is named in a declaration: its statement (since the last
// ';', '{' or '}') says __global__, or void comes just before it, past attributes such as
// __launch_bounds__(256) or __cluster_dims__(2, 1, 1). A call such as `f(x);` is neither.
bool declared_at(std::string_view code, std::size_t at) {
  const std::size_t b = code.find_last_of(";{}", at);
  std::string_view head =
      code.substr(b == std::string_view::npos ? 0 : b + 1, at - (b == std::string_view::npos ? 0 : b + 1));
  for (std::size_t p = head.find("__global__"); p != std::string_view::npos;
       p = head.find("__global__", p + 1))
    if ((p == 0 || !ident_char(head[p - 1])) && (p + 10 >= head.size() || !ident_char(head[p + 10])))
      return true;
  for (int guard = 0; guard < 16; ++guard) {
    while (!head.empty() && space(head.back())) head.remove_suffix(1);
    if (!head.empty() && head.back() == ')') {  // an attribute's arguments
      int depth = 0;
      std::size_t i = head.size();
      while (i-- > 0) {
        if (head[i] == ')')
          ++depth;
        else if (head[i] == '(' && --depth == 0)
          break;
      }
      if (i == std::string_view::npos || i >= head.size()) return false;
      head = head.substr(0, i);
      while (!head.empty() && space(head.back())) head.remove_suffix(1);
    }
    std::size_t s = head.size();
    while (s > 0 && ident_char(head[s - 1])) --s;
    const std::string_view word = head.substr(s);
    if (word == "void") return true;
    if (word.size() < 5 || word.substr(0, 2) != "__") return false;  // not an attribute
    head = head.substr(0, s);
  }
  return false;
}

// Identifiers and single punctuation characters of `s`, spaces dropped; where each starts
// into `at` when given.
std::vector<std::string> tokens(std::string_view s, std::vector<std::size_t>* at = nullptr) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    if (space(s[i])) {
      ++i;
      continue;
    }
    if (at) at->push_back(i);
    if (ident_start(s[i])) {
      const std::size_t b = i;
      while (i < s.size() && ident_char(s[i])) ++i;
      out.emplace_back(s.substr(b, i - b));
    } else {
      out.emplace_back(1, s[i++]);
    }
  }
  return out;
}

bool qualifier(const std::string& w) {
  return w == "const" || w == "volatile" || w == "__restrict__" || w == "__restrict";
}

// A type named by one word that every CUDA compile knows: "size_t", "float2", "__half".
bool known_type_name(const std::string& w) {
  return detail::type_aliases().count(w) || detail::builtin_types().count(w) ||
         detail::vector_type_size(w) > 0;
}

}  // namespace

std::string code_only(std::string_view text) {
  std::string joined;  // backslash-newline removed first, as translation phase 2 does
  joined.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      continue;
    }
    if (text[i] == '\\' && i + 2 < text.size() && text[i + 1] == '\r' && text[i + 2] == '\n') {
      i += 2;
      continue;
    }
    joined += text[i];
  }
  std::string out(joined.size(), ' ');
  enum { code, line, block, str, chr } state = code;
  for (std::size_t i = 0; i < joined.size(); ++i) {
    const char c = joined[i];
    const char next = i + 1 < joined.size() ? joined[i + 1] : '\0';
    if (c == '\n') {
      out[i] = '\n';
      if (state != block) state = code;  // an unterminated literal ends with its line
      continue;
    }
    switch (state) {
      case code:
        if (c == '/' && next == '/') {
          state = line;
        } else if (c == '/' && next == '*') {
          state = block;
          ++i;
        } else {
          out[i] = c;
          // '1'000' is a digit separator, not a character literal.
          if (c == '"') state = str;
          if (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(joined[i - 1])))) state = chr;
        }
        break;
      case line:
        break;
      case block:
        if (c == '*' && next == '/') {
          state = code;
          ++i;
        }
        break;
      case str:
      case chr:
        if (c == '\\' && next != '\n') {
          ++i;
        } else if (c == (state == str ? '"' : '\'')) {
          out[i] = c;
          state = code;
        }
        break;
    }
  }
  return out;
}

std::optional<std::string> written_params(const std::vector<std::string>& codes, const std::string& name) {
  std::set<std::string> definitions, declarations;
  if (name.empty()) return std::nullopt;
  for (const std::string_view code : codes)
    for (std::size_t at = code.find(name); at != std::string_view::npos; at = code.find(name, at + 1)) {
      const std::size_t end = at + name.size();
      if ((at > 0 && ident_char(code[at - 1])) || (end < code.size() && ident_char(code[end]))) continue;
      std::size_t open = end;
      while (open < code.size() && space(code[open])) ++open;
      if (open >= code.size() || code[open] != '(') continue;
      const std::size_t close = matching_paren(code, open);
      if (close == std::string_view::npos || !declared_at(code, at)) continue;
      std::size_t after = close + 1;
      while (after < code.size() && space(code[after])) ++after;
      const bool body = after < code.size() && code[after] == '{';
      (body ? definitions : declarations).insert(collapse(code.substr(open + 1, close - open - 1)));
    }
  const std::set<std::string>& found = definitions.empty() ? declarations : definitions;
  if (found.size() != 1) return std::nullopt;
  return *found.begin();
}

void PlainWords::define(std::map<std::string, std::string>& table, const std::string& name,
                        const std::string& value) {
  if (doubtful_.count(name)) return;
  auto& other = &table == &macros_ ? typedefs_ : macros_;
  const auto it = table.find(name);
  if (other.count(name) || (it != table.end() && it->second != value)) {
    table.erase(name);
    other.erase(name);
    doubtful_.insert(name);
    return;
  }
  table[name] = value;
}

PlainWords::PlainWords(const std::vector<std::string>& codes,
                       const std::vector<std::pair<std::string, std::string>>& defines) {
  for (const auto& [name, value] : defines) {
    const std::size_t paren = name.find('(');
    if (paren == std::string::npos)
      define(macros_, name, collapse(value));
    else
      doubtful_.insert(name.substr(0, paren));
  }
  for (const std::string& code : codes) {
    // Directives first, line by line: #define and #undef, and how deep in #if each line is
    // (an include guard, #ifndef G then #define G as the first two directives, does not count).
    std::string rest = code;  // the code with directive lines blanked, for the declarations
    std::vector<bool> frames;
    std::vector<int> depth_of_line;
    int depth = 0, directives = 0;
    std::string guard;
    for (std::size_t b = 0; b <= code.size();) {
      std::size_t e = code.find('\n', b);
      if (e == std::string::npos) e = code.size();
      depth_of_line.push_back(depth);
      const std::vector<std::string> t = tokens(std::string_view(code).substr(b, e - b));
      if (!t.empty() && t[0] == "#") {
        for (std::size_t i = b; i < e; ++i) rest[i] = ' ';
        const std::string word = t.size() > 1 ? t[1] : "";
        const std::string arg = t.size() > 2 ? t[2] : "";
        ++directives;
        if (word == "if" || word == "ifdef" || word == "ifndef") {
          const bool is_guard = directives == 1 && word == "ifndef";
          if (is_guard) guard = arg;
          frames.push_back(!is_guard);
          depth += is_guard ? 0 : 1;
        } else if (word == "endif" && !frames.empty()) {
          depth -= frames.back() ? 1 : 0;
          frames.pop_back();
        } else if (word == "define" && !arg.empty()) {
          const std::size_t name_at = code.find(arg, code.find("define", b) + 6);
          const std::size_t after = name_at + arg.size();
          if (directives == 2 && arg == guard && t.size() == 3) {
            // the guard's own macro: names nothing a parameter uses
          } else if (after < e && code[after] == '(') {
            doubtful_.insert(arg);  // function-like: expanded only where called
          } else if (depth > 0) {
            doubtful_.insert(arg);
            macros_.erase(arg);
          } else {
            define(macros_, arg, collapse(std::string_view(code).substr(after, e - after)));
          }
        } else if (word == "undef" && !arg.empty()) {
          doubtful_.insert(arg);
          macros_.erase(arg);
        }
      }
      b = e + 1;
    }
    // Then the declarations that name a type: typedef and using to builtin words are read,
    // any other (a pointer, a struct, under #if) makes its name doubtful, as do class names.
    std::vector<std::size_t> line_starts{0};
    for (std::size_t i = 0; i < rest.size(); ++i)
      if (rest[i] == '\n') line_starts.push_back(i + 1);
    auto line_depth = [&](std::size_t at) {
      const auto n = static_cast<std::size_t>(std::upper_bound(line_starts.begin(), line_starts.end(), at) -
                                              line_starts.begin()) -
                     1;
      return depth_of_line[std::min(n, depth_of_line.size() - 1)];
    };
    std::vector<std::size_t> starts;
    const std::vector<std::string> t = tokens(rest, &starts);
    for (std::size_t i = 0; i < t.size(); ++i) {
      const std::size_t at = starts[i];
      const std::string& w = t[i];
      if ((w == "struct" || w == "class" || w == "union" || w == "enum") && i + 1 < t.size()) {
        doubtful_.insert(t[i + 1]);
        continue;
      }
      const bool is_using = w == "using" && i + 2 < t.size() && t[i + 2] == "=";
      if (w != "typedef" && !is_using) continue;
      std::size_t end = i + 1;
      while (end < t.size() && t[end] != ";" && t[end] != "{") ++end;
      if (end < t.size() && t[end] == "{") {  // typedef struct { ... } S: S names a class
        for (int braces = 0; end < t.size(); ++end) {
          braces += (t[end] == "{") - (t[end] == "}");
          if (braces == 0 && t[end] == ";") break;
        }
        if (end < t.size() && ident_start(t[end - 1][0])) doubtful_.insert(t[end - 1]);
        continue;
      }
      if (end >= t.size()) continue;
      std::vector<std::string> value(t.begin() + static_cast<long>(is_using ? i + 3 : i + 1),
                                     t.begin() + static_cast<long>(is_using ? end : end - 1));
      const std::string name = is_using ? t[i + 1] : t[end - 1];
      bool plain = !value.empty() && ident_start(name[0]) && line_depth(at) == 0;
      std::string text;
      for (const std::string& v : value) {
        plain = plain && (qualifier(v) || detail::is_type_word(v) || known_type_name(v));
        text += (text.empty() ? "" : " ") + v;
      }
      if (plain)
        define(typedefs_, name, text);
      else if (ident_start(name[0]))
        doubtful_.insert(name);
    }
  }
}

std::optional<std::vector<ParamType>> PlainWords::types(const std::string& written) const {
  std::vector<ParamType> out;
  const std::string all = collapse(written);
  if (all.empty() || all == "void") return out;
  for (const std::string& part : detail::split_top(all)) {
    // Macros expanded as the preprocessor would (bounded: a macro is not expanded inside
    // itself), then only words and '*' may remain.
    std::vector<std::string> t = tokens(part);
    std::set<std::string> active;
    for (int round = 0; round < 16; ++round) {
      std::vector<std::string> next;
      bool changed = false;
      for (const std::string& w : t) {
        if (doubtful_.count(w)) return std::nullopt;
        const auto m = macros_.find(w);
        if (m == macros_.end() || active.count(w)) {
          next.push_back(w);
          continue;
        }
        for (std::string& v : tokens(m->second)) next.push_back(std::move(v));
        active.insert(w);
        changed = true;
      }
      t = std::move(next);
      if (!changed) break;
      if (t.size() > 64) return std::nullopt;
    }
    // Then the specifiers as C++ reads them: builtin words, or one type name (a typedef
    // read above, or a CUDA type), then '*'s, then the parameter's name.
    std::string text;
    bool pointer = false, named = false, words = false;
    for (std::size_t i = 0; i < t.size(); ++i) {
      const std::string& w = t[i];
      std::string piece = w;
      if (w == "*") {
        pointer = true;
      } else if (!ident_start(w[0])) {
        return std::nullopt;  // brackets, a default value, a reference, a template
      } else if (qualifier(w)) {
      } else if (!pointer && !named && detail::is_type_word(w)) {
        words = true;
      } else if (!pointer && !named && !words && typedefs_.count(w)) {
        piece = typedefs_.at(w);
        named = true;
      } else if (!pointer && !named && !words && known_type_name(w)) {
        named = true;
      } else if (i + 1 != t.size() || (!named && !words)) {
        return std::nullopt;  // a class type, or a word no one here defines
      }
      text += (text.empty() || w == "*" ? "" : " ") + piece;
    }
    ParamType p;
    if (detail::parse_type(text, true, p) || (p.kind == ParamType::Kind::Other && p.size == 0))
      return std::nullopt;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace warplab::rtc
