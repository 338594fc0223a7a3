// repl/counters.hpp: `:counters [SETS] CHUNK` and `:lines [SETS] CHUNK`: the Lua the worker
// evaluates for them (the chunk inside cuda.counters or cuda.lines, whose rows print as their
// table or listing) and the word that names the sets, told from the chunk's own first word.
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

// The same for `:lines [SETS] CHUNK`: a first word whose comma-separated parts are each a
// line column set (counts, instructions, shared, global, local, stalls) is SETS (empty:
// cuda.lines' default); lua is `return cuda.lines(function() <chunk> end[, "<sets>"])`.
CountedChunk lined_chunk(const std::string& arg);

}  // namespace warplab::app::repl
