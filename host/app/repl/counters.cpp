// repl/counters.cpp: `:counters [SETS] CHUNK` and `:lines [SETS] CHUNK` (counters.hpp).
#include "app/repl/counters.hpp"

#include <cctype>
#include <string>

#include "lab/counters.hpp"
#include "sys/text.hpp"

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
  for (const std::string& name : sys::split(word, ','))
    if (!counter_name(name)) return false;
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

// `chunk` as a Lua long string, "[==[\n" CHUNK "]==]": the level is the first whose
// closing bracket appears only at the end, counting the chunk's own end too (a chunk that
// ends in "]", "x = t[1]", would otherwise close "[[...]]" one bracket early).
std::string long_string(const std::string& chunk) {
  std::string level;
  for (;;) {
    const std::string close = "]" + level + "]", whole = chunk + close;
    if (whole.find(close) == chunk.size()) return "[" + level + "[\n" + whole;
    level += '=';
  }
}

}  // namespace

CountedChunk counted_chunk(const std::string& arg) {
  CountedChunk c;
  c.sets = kDefaultCounters;
  c.chunk = sys::trim(arg);
  const auto sp = c.chunk.find_first_of(" \t");
  if (sp == std::string::npos && counter_names(c.chunk)) {  // names, and no chunk
    c.sets = c.chunk;
    c.chunk.clear();
  } else if (sp != std::string::npos &&
             (counter_names(c.chunk.substr(0, sp)) ||
              looks_like_names(c.chunk.substr(0, sp), sys::trim(c.chunk.substr(sp))))) {
    c.sets = c.chunk.substr(0, sp);
    c.chunk = sys::trim(c.chunk.substr(sp));
  }
  if (c.chunk.empty()) return c;
  // The chunk is compiled on its own, as typed, under the REPL's chunk name: its errors
  // cite repl:1 and the words the person typed (wrapped in `function() ... end` they
  // cited repl:2, and a chunk that did not parse was blamed on an `end` nobody typed).
  // It goes in as a long string whose brackets it does not hold, its load error raised
  // as it is; the call stays on line 1, where cuda.counters' own errors point. The names
  // are plain words (checked above, or the default), so quoting them is safe.
  c.lua =
      "return cuda.counters((function(s) local f, e = load(s, \"=repl\", \"t\") if not f then error(e, 0) "
      "end return f end)(" +
      long_string(c.chunk) + "), \"" + c.sets + "\")";
  return c;
}

CountedChunk lined_chunk(const std::string& arg) {
  CountedChunk c;
  c.chunk = sys::trim(arg);
  const auto sp = c.chunk.find_first_of(" \t");
  const std::string first = c.chunk.substr(0, sp);
  bool sets = !first.empty();
  for (const std::string& w : sys::split(first, ','))
    sets = sets && (w == "counts" || w == "instructions" || w == "shared" || w == "global" || w == "local" ||
                    w == "stalls" || w == "all");
  if (sets) {
    c.sets = first;
    c.chunk = sp == std::string::npos ? "" : sys::trim(c.chunk.substr(sp));
  }
  if (c.chunk.empty()) return c;
  // Compiled as typed, as :counters' chunk (above): its errors cite repl:1.
  c.lua =
      "return cuda.lines((function(s) local f, e = load(s, \"=repl\", \"t\") if not f then error(e, 0) "
      "end return f end)(" +
      long_string(c.chunk) + (c.sets.empty() ? "" : "), \"" + c.sets + "\"") + (c.sets.empty() ? "))" : ")");
  return c;
}

}  // namespace warplab::app::repl
