// regex_span.hpp: how much of a line warplab hands to std::regex. libstdc++'s matcher
// recurses once per character a pattern consumes, so a line of some ten thousand
// characters (a long kernel name in ptxas's report, a long macro name, a long line in a
// log) overflowed the stack. Patterns read at most regex_span bytes; what may be longer (a
// name, the rest of a line) is cut from the whole line without a regex. Standard library only.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace warplab::sys {

inline constexpr std::size_t regex_span = 2048;

// The first regex_span bytes of `line`: what a pattern anchored at its start may read.
inline std::string regex_head(std::string_view line) { return std::string(line.substr(0, regex_span)); }

}  // namespace warplab::sys
