// refused_text.cpp: see refused_text.hpp. Plain scans over the text (no std::regex, which
// recurses per character).
#include "rtc/refused_text.hpp"

#include <algorithm>
#include <cctype>

namespace warplab::rtc {
namespace {

Diagnostic at_offset(const std::string& text, std::size_t at, const std::string& file, int line_offset) {
  Diagnostic d;
  d.file = file;
  d.line = line_offset + 1 +
           static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  const std::size_t nl = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
  d.col = static_cast<int>(std::min<std::size_t>(at - (nl == std::string::npos ? 0 : nl + 1), 1u << 30)) + 1;
  return d;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

}  // namespace

bool refused_text(const std::string& text, const std::string& file, int line_offset,
                  std::vector<Diagnostic>& out) {
  // NVRTC takes sources as C strings, so a NUL byte ends the source there, and its front
  // end takes a 0xFF byte for the end of the file: either would compile less than the file
  // holds, silently.
  if (const std::size_t at = text.find_first_of(std::string("\0\xff", 2)); at != std::string::npos) {
    Diagnostic d = at_offset(text, at, file, line_offset);
    d.message = std::string(text[at] == '\0' ? "a NUL byte" : "a 0xFF byte") + " at byte offset " +
                std::to_string(at) + ": NVRTC would stop reading the source there; remove it";
    out.push_back(std::move(d));
    return true;
  }
  // Identifiers outside comments and literals (a long comment line or string is fine).
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (text.compare(i, 2, "//") == 0) {
      i = std::min(text.find('\n', i), text.size());
      continue;
    }
    if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 2;
      continue;
    }
    if (c == '"' || c == '\'') {  // to the closing quote on the line, past escapes
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != c && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    if (!word_char(c)) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && word_char(text[end])) ++end;
    if (std::isdigit(static_cast<unsigned char>(c))) {  // a number
      i = end;
      continue;
    }
    if (end - i > kMaxIdentifier) {
      Diagnostic d = at_offset(text, i, file, line_offset);
      d.message = "a name of " + std::to_string(end - i) +
                  " characters is longer than warplab hands NVRTC (at most " +
                  std::to_string(kMaxIdentifier) + "; NVRTC's resource report breaks on very long names)";
      out.push_back(std::move(d));
      return true;
    }
    i = end;
  }
  return false;
}

}  // namespace warplab::rtc
