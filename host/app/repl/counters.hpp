// repl/counters.hpp: `:counters [SETS] CHUNK`: the Lua the worker evaluates for it (the chunk
// inside cuda.counters, whose rows print as their table) and the word that names the
// counters, told from the chunk's own first word.
#pragma once
#include <string>

namespace warplab::app::repl {

// What `:counters` counts when no SETS are given: memory traffic, occupancy and warp
// efficiency (4 replay passes per launch; `time` alone needs 8).
inline constexpr const char* kDefaultCounters = "memory,warps";

struct CountedChunk {
  std::string sets;   // "shared,memory"
  std::string chunk;  // "k:launch(1, 32, a)"; empty when none was given
  std::string lua;    // return cuda.counters(<chunk loaded as typed, "=repl">, "<sets>")
};

// Splits the argument of :counters: a first word whose comma-separated parts are each a
// set name, a set's metric name or a CUPTI metric name (it has "__") is SETS; so is a word
// of name characters, not a Lua keyword, before a chunk that starts with a name (its
// misspelling gets "did you mean"); anything else starts the chunk.
CountedChunk counted_chunk(const std::string& arg);

}  // namespace warplab::app::repl
