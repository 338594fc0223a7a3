// text.cpp: see text.hpp.
#include "sys/text.hpp"

#include <algorithm>
#include <cctype>

namespace warplab::sys {

namespace {

// The characters of UTF-8 text: a continuation byte belongs to the character before it,
// so "ø" and a zero-width space count as one character each, not two or three.
std::vector<std::string_view> characters(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 1; i <= s.size(); ++i)
    if (i == s.size() || (static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) {
      out.push_back(s.substr(start, i - start));
      start = i;
    }
  return out;
}

}  // namespace

std::size_t edit_distance(std::string_view a_text, std::string_view b_text) {
  const std::vector<std::string_view> a = characters(a_text), b = characters(b_text);
  // One row of the table at a time: row[j] is the distance from a[0, i) to b[0, j).
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string plural(long long n, std::string_view one, std::string_view many) {
  std::string out = std::to_string(n) + " ";
  if (n == 1) return out.append(one);
  if (many.empty()) return out.append(one).append("s");
  return out.append(many);
}

std::string trim(std::string_view s, std::string_view blanks) {
  const std::size_t b = s.find_first_not_of(blanks);
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(b, s.find_last_not_of(blanks) - b + 1));
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  for (std::size_t at = 0;;) {
    const std::size_t end = s.find(sep, at);
    out.emplace_back(s.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
    if (end == std::string_view::npos) return out;
    at = end + 1;
  }
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out.append(sep);
    out += items[i];
  }
  return out;
}

}  // namespace warplab::sys
