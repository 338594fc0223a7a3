// repl/counters.cpp: `:counters [SETS] CHUNK` and `:lines [SETS] CHUNK` (counters.hpp).
#include "app/repl/counters.hpp"

#include <cctype>

#include "lab/counters.hpp"

namespace warplab::app::repl {
namespace {

bool counter_name(const std::string& word) {
  if (word.find("__") != std::string::npos) return true;  // a CUPTI metric name
  for (const auto& s : lab::counter_sets()) {
    if (s.name == word) return true;
    for (const auto& m : s.metrics)
      if (m.name == word) return true;
  }
  return false;
}

bool counter_names(const std::string& word) {
  if (word.empty()) return false;
  std::size_t at = 0;
  while (at <= word.size()) {
    std::size_t comma = word.find(',', at);
    if (comma == std::string::npos) comma = word.size();
    if (!counter_name(word.substr(at, comma - at))) return false;
    at = comma + 1;
  }
  return true;
}

// A first word that reads as names (letters, digits, _ . ,; not a Lua keyword) before a
// chunk that starts with a name: "sahred k:launch(...)" gets its "did you mean", while
// "x = 1" and "print (x)" stay Lua.
bool looks_like_names(const std::string& word, const std::string& rest) {
  static const char* const keywords[] = {
      "and", "break", "do",  "else", "elseif", "end",    "false",  "for",  "function", "goto",  "if",
      "in",  "local", "nil", "not",  "or",     "repeat", "return", "then", "true",     "until", "while"};
  for (const char* k : keywords)
    if (word == k) return false;
  for (char c : word)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ',')) return false;
  return !rest.empty() && (std::isalpha(static_cast<unsigned char>(rest[0])) || rest[0] == '_');
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

CountedChunk counted_chunk(const std::string& arg) {
  CountedChunk c;
  c.sets = kDefaultCounters;
  c.chunk = trim(arg);
  const auto sp = c.chunk.find_first_of(" \t");
  if (sp == std::string::npos && counter_names(c.chunk)) {  // names, and no chunk
    c.sets = c.chunk;
    c.chunk.clear();
  } else if (sp != std::string::npos && (counter_names(c.chunk.substr(0, sp)) ||
                                         looks_like_names(c.chunk.substr(0, sp), trim(c.chunk.substr(sp))))) {
    c.sets = c.chunk.substr(0, sp);
    c.chunk = trim(c.chunk.substr(sp));
  }
  if (c.chunk.empty()) return c;
  // The chunk is compiled on its own, as typed, under the REPL's chunk name: its errors
  // cite repl:1 and the words the person typed (wrapped in `function() ... end` they
  // cited repl:2, and a chunk that did not parse was blamed on an `end` nobody typed).
  // It goes in as a long string whose brackets it does not hold, its load error raised
  // as it is; the call stays on line 1, where cuda.counters' own errors point. The names
  // are plain words (checked above, or the default), so quoting them is safe.
  std::string level;
  while (c.chunk.find("]" + level + "]") != std::string::npos) level += '=';
  c.lua =
      "return cuda.counters((function(s) local f, e = load(s, \"=repl\", \"t\") if not f then error(e, 0) "
      "end return f end)([" +
      level + "[\n" + c.chunk + "]" + level + "]), \"" + c.sets + "\")";
  return c;
}

CountedChunk lined_chunk(const std::string& arg) {
  CountedChunk c;
  c.chunk = trim(arg);
  const auto sp = c.chunk.find_first_of(" \t");
  const std::string first = c.chunk.substr(0, sp);
  bool sets = !first.empty();
  for (std::size_t at = 0; sets && at <= first.size();) {
    std::size_t comma = first.find(',', at);
    if (comma == std::string::npos) comma = first.size();
    const std::string w = first.substr(at, comma - at);
    sets = w == "counts" || w == "instructions" || w == "shared" || w == "global" || w == "local" ||
           w == "stalls" || w == "all";
    at = comma + 1;
  }
  if (sets) {
    c.sets = first;
    c.chunk = sp == std::string::npos ? "" : trim(c.chunk.substr(sp));
  }
  if (c.chunk.empty()) return c;
  c.lua = "return cuda.lines(function()\n" + c.chunk + "\nend" +
          (c.sets.empty() ? "" : ", \"" + c.sets + "\"") + ")";
  return c;
}

}  // namespace warplab::app::repl
