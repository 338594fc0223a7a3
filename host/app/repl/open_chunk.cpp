// repl/open_chunk.cpp: see open_chunk.hpp.
#include "app/repl/open_chunk.hpp"

#include <cctype>
#include <string>

namespace warplab::app::repl {
namespace {

// The level of a long bracket "[", "=" * level, "[" at `at`, else -1.
int long_bracket(std::string_view s, std::size_t at) {
  if (at >= s.size() || s[at] != '[') return -1;
  std::size_t i = at + 1;
  while (i < s.size() && s[i] == '=') ++i;
  return i < s.size() && s[i] == '[' ? static_cast<int>(i - at - 1) : -1;
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

void OpenChunk::add_line(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n && !broken_) {
    if (long_level_ >= 0) {  // inside [==[ ... ]==]: look for its closer
      const std::string closer = "]" + std::string(static_cast<std::size_t>(long_level_), '=') + "]";
      const std::size_t end = s.find(closer, i);
      if (end == std::string_view::npos) return;
      i = end + closer.size();
      long_level_ = -1;
      continue;
    }
    if (quote_ != 0) {  // inside '...' or "...": escapes skip a character
      while (i < n && s[i] != quote_) i += s[i] == '\\' ? 2 : 1;
      if (i < n) {
        quote_ = 0;
        ++i;
        continue;
      }
      // The line ended inside the string: only "\" then the newline carries it on.
      if (!(i == n + 1 && s[n - 1] == '\\')) broken_ = true;
      return;
    }
    const char c = s[i];
    if (c == '-' && i + 1 < n && s[i + 1] == '-') {  // a comment: long, or to the end of the line
      const int level = long_bracket(s, i + 2);
      if (level < 0) return;
      long_level_ = level;
      i += 4 + static_cast<std::size_t>(level);
    } else if (c == '[' && long_bracket(s, i) >= 0) {
      long_level_ = long_bracket(s, i);
      i += 2 + static_cast<std::size_t>(long_level_);
    } else if (c == '(' || c == '{' || c == '[') {
      ++depth_, ++i;
    } else if (c == ')' || c == '}' || c == ']') {
      if (--depth_ < 0) broken_ = true;
      ++i;
    } else if (c == '"' || c == '\'') {
      quote_ = c, ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t b = i;
      while (i < n && name_char(s[i])) ++i;
      const std::string_view w = s.substr(b, i - b);
      // `then` opens what `end` closes (if, elseif); `elseif` closes the `then` before it.
      if (w == "function" || w == "do" || w == "then" || w == "repeat") ++depth_;
      if ((w == "end" || w == "until" || w == "elseif") && --depth_ < 0) broken_ = true;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < n && (name_char(s[i]) || s[i] == '.')) ++i;  // 0x1F, 1e5, 3.25
    } else {
      ++i;
    }
  }
}

}  // namespace warplab::app::repl
