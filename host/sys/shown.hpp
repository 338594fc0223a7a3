// shown.hpp: a name or path as a message quotes it. A message is one sentence, so a name of
// thousands of characters (a path the OS calls too long, a pasted blob) is quoted by its
// start and its length; and a message is text for a terminal, so a control character (an
// escape sequence that would recolour or clear the screen) or a byte that is not UTF-8 is
// written as \xNN, an invisible character as \u{NNNN}. Standard library only.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace warplab::sys {

// `s` with each control character (C0 and DEL) but those in `keep`, and each byte that
// does not start or continue a valid UTF-8 character, written as \xNN; an invisible or
// direction-changing character as \u{NNNN}.
inline std::string printable(std::string_view s, std::string_view keep = "") {
  std::string out;
  out.reserve(s.size());
  auto hex = [&out](unsigned char b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", b);
    out += buf;
  };
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      if ((b < 0x20 || b == 0x7f) && keep.find(static_cast<char>(b)) == std::string_view::npos)
        hex(b);
      else
        out += static_cast<char>(b);
      ++i;
      continue;
    }
    // A lead byte, its continuation bytes, and the value they make: overlong forms,
    // surrogates and values past U+10FFFF are not UTF-8.
    const std::size_t len = b >= 0xc2 && b <= 0xdf   ? 2
                            : b >= 0xe0 && b <= 0xef ? 3
                            : b >= 0xf0 && b <= 0xf4 ? 4
                                                     : 0;
    bool ok = len > 0 && i + len <= s.size();
    char32_t c = len == 2 ? b & 0x1f : len == 3 ? b & 0x0f : b & 0x07;
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto cb = static_cast<unsigned char>(s[i + k]);
      ok = (cb & 0xc0) == 0x80;
      c = (c << 6) | (cb & 0x3f);
    }
    ok = ok && !(len == 3 && c < 0x800) && !(len == 4 && (c < 0x10000 || c > 0x10ffff)) &&
         !(c >= 0xd800 && c <= 0xdfff);
    if (!ok) {
      hex(b);
      ++i;
      continue;
    }
    // Characters that print as nothing or turn the text around (zero-width spaces, joiners,
    // bidirectional overrides, the byte-order mark): a name holding one looks like another.
    if ((c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2069) ||
        c == 0xfeff) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u{%04x}", static_cast<unsigned>(c));
      out += buf;
      i += len;
      continue;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

// `s` itself up to 200 characters, else its first 80, "..." and "(N characters)"; made
// printable (above).
inline std::string shown(std::string_view s) {
  if (s.size() <= 200) return printable(s);
  return printable(s.substr(0, 80)) + "... (" + std::to_string(s.size()) + " characters)";
}

}  // namespace warplab::sys
