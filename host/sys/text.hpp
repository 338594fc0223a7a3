// text.hpp: the small text helpers every layer shares, written once: the edit distance
// behind every "did you mean", a count with its noun ("3 launches"), a list split at a
// separator, blanks trimmed, ASCII lower case, and joining. No Lua, no CUDA.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace warplab::sys {

// Levenshtein distance: the fewest one-character insertions, deletions and substitutions
// that turn `a` into `b`, counted in UTF-8 characters ("ø" is one, not two).
std::size_t edit_distance(std::string_view a, std::string_view b);

// "1 launch", "3 launches", "0 errors": the count, a space and the noun, singular for 1
// only; `many` is the plural where it is not `one` + "s" ("launch", "launches").
std::string plural(long long n, std::string_view one, std::string_view many = {});

// `s` without the leading and trailing characters found in `blanks`.
std::string trim(std::string_view s, std::string_view blanks = " \t");

// The pieces of `s` between the `sep`s, empty ones kept: "a,,b" is "a", "", "b" and ""
// is one empty piece.
std::vector<std::string> split(std::string_view s, char sep);

// `s` with ASCII letters in lower case (names here are ASCII; other bytes are kept).
std::string lower(std::string_view s);

// The items with `sep` between each two.
std::string join(const std::vector<std::string>& items, std::string_view sep);

}  // namespace warplab::sys
