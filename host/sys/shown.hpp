// shown.hpp: a name or path as a message quotes it. A message is one sentence, so a name of
// thousands of characters (a path the OS calls too long, a pasted blob) is quoted by its
// start and its length. Standard library only.
#pragma once
#include <string>
#include <string_view>

namespace warplab::sys {

// `s` itself up to 200 characters, else its first 80, "..." and "(N characters)".
inline std::string shown(std::string_view s) {
  if (s.size() <= 200) return std::string(s);
  return std::string(s.substr(0, 80)) + "... (" + std::to_string(s.size()) + " characters)";
}

}  // namespace warplab::sys
