// signature.cpp: kernel signatures from mangled names (abi::__cxa_demangle, then our
// parser of the parameter list) and from declared text for extern "C" kernels.
#include "rtc/signature.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "rtc/error.hpp"
#include "sys/shown.hpp"

namespace warplab::rtc {
namespace detail {

std::vector<std::string> split_top(std::string_view s) {
  std::vector<std::string> out;
  std::string stack;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool in_parens = !stack.empty() && stack.back() == '(';
    if (c == '(' || c == '[')
      stack.push_back(c == '(' ? '(' : '[');
    else if (c == '<' && !in_parens)
      stack.push_back('<');
    else if ((c == ')' || c == ']') && !stack.empty())
      stack.pop_back();
    else if (c == '>' && !stack.empty() && stack.back() == '<')
      stack.pop_back();
    else if (c == ',' && stack.empty()) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.emplace_back(s.substr(start));
  return out;
}

}  // namespace detail

namespace {

using detail::split_top;

bool blank(std::string_view s) { return s.find_first_not_of(" \t\n") == std::string_view::npos; }

// "void a::b::k<float, 4>" -> name "a::b::k<float, 4>", base "k": the return type (which
// the demangler prints for template functions) ends at the last top-level space.
void split_name(const std::string& full, std::string& name, std::string& base) {
  std::string stack;
  std::size_t name_start = 0, last_sep = std::string::npos, first_lt = std::string::npos;
  for (std::size_t i = 0; i < full.size(); ++i) {
    const char c = full[i];
    const bool in_parens = !stack.empty() && stack.back() == '(';
    if (c == '(')
      stack.push_back('(');
    else if (c == ')' && !stack.empty())
      stack.pop_back();
    else if (c == '<' && !in_parens) {
      if (stack.empty() && first_lt == std::string::npos) first_lt = i;
      stack.push_back('<');
    } else if (c == '>' && !stack.empty() && stack.back() == '<')
      stack.pop_back();
    else if (stack.empty() && c == ' ') {
      name_start = i + 1;
      last_sep = std::string::npos;
      first_lt = std::string::npos;
    } else if (stack.empty() && c == ':' && i + 1 < full.size() && full[i + 1] == ':') {
      last_sep = i + 1;
      first_lt = std::string::npos;
      ++i;
    }
  }
  name = detail::tidy_angles(full.substr(name_start));
  const std::size_t b = last_sep == std::string::npos ? name_start : last_sep + 1;
  base = full.substr(b, (first_lt == std::string::npos ? full.size() : first_lt) - b);
}

}  // namespace

std::string Signature::to_string() const {
  std::string out = name + "(";
  for (std::size_t i = 0; i < params.size(); ++i) out += (i ? ", " : "") + params[i].spelling;
  return out + ")";
}

std::optional<Signature> demangle(const std::string& mangled) {
  // Itanium ABI names start with _Z; anything else is extern "C" (or not a function).
  if (mangled.rfind("_Z", 0) != 0) return std::nullopt;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                              std::free);
  if (status != 0 || !text) return std::nullopt;
  Signature sig;
  sig.demangled = text.get();
  const std::string& d = sig.demangled;
  if (d.empty() || d.back() != ')') return std::nullopt;
  // The parameter list is the last parenthesized group; find its '(' from the end.
  int depth = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = d.size(); i-- > 0;) {
    if (d[i] == ')')
      ++depth;
    else if (d[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos || open == 0) return std::nullopt;
  split_name(d.substr(0, open), sig.name, sig.base);
  const std::string list = d.substr(open + 1, d.size() - open - 2);
  if (!blank(list) && list != "void") {
    for (const std::string& p : split_top(list)) {
      ParamType t;
      // A type we cannot read stays visible, unclassified: demangle never throws, and a
      // launch check reports it as an unknown type rather than failing to load the module.
      if (detail::parse_type(p, false, t)) {
        t = ParamType{};
        const std::size_t first = p.find_first_not_of(' ');  // npos: a blank parameter
        t.spelling = first == std::string::npos ? "" : detail::tidy_angles(p.substr(first));
      }
      sig.params.push_back(std::move(t));
    }
  }
  return sig;
}

Signature parse_signature(const std::string& name, const std::string& params_text) {
  const std::string where =
      "bad signature for kernel '" + sys::shown(name) + "' (\"" + sys::shown(params_text) + "\")";
  if (blank(name)) throw Error("bad signature: the kernel name is empty");
  Signature sig;
  sig.name = name;
  std::string ignored;
  split_name(name, ignored, sig.base);
  // Unbalanced brackets would make the comma split meaningless: refuse them first.
  int depth = 0;
  for (char c : params_text) {
    depth += (c == '<' || c == '(') - (c == '>' || c == ')');
    if (depth < 0) break;
  }
  if (depth != 0) throw Error(where + ": unbalanced brackets");
  const std::size_t b = params_text.find_first_not_of(" \t\n");
  const std::string trimmed =
      b == std::string::npos ? "" : params_text.substr(b, params_text.find_last_not_of(" \t\n") - b + 1);
  if (trimmed == "void") {
    sig.demangled = sig.to_string();
    return sig;
  }
  if (!trimmed.empty()) {
    const std::vector<std::string> parts = split_top(trimmed);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      ParamType t;
      if (const auto why = detail::parse_type(parts[i], true, t)) {
        const std::string text = blank(parts[i]) ? "" : parts[i].substr(parts[i].find_first_not_of(" \t"));
        const std::string quoted = text.empty() ? "" : " ('" + sys::shown(text) + "')";
        throw Error(where + ": parameter " + std::to_string(i + 1) + quoted + " " + *why);
      }
      sig.params.push_back(std::move(t));
    }
  }
  sig.demangled = sig.to_string();
  return sig;
}

}  // namespace warplab::rtc
