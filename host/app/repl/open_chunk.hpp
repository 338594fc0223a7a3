// repl/open_chunk.hpp: what a chunk typed (or pasted) line by line leaves open: blocks
// (function, do, then, repeat), brackets, a long string or comment, a short string carried
// on by a backslash. Scanned a line at a time, so a pasted table literal of 20,000 lines is
// read once, not parsed again whole after each of its lines (a 1 MB paste took 8 to 20 s).
// No Lua: a rough lexer that says "surely incomplete" only when Lua would say "<eof>".
#pragma once
#include <string_view>

namespace warplab::app::repl {

class OpenChunk {
 public:
  // The next line of the chunk (without its newline).
  void add_line(std::string_view line);
  // True when the chunk so far cannot be complete: something it opened is still open and
  // nothing it said was out of place (a closer too many, a string left unfinished: then
  // only Lua's parser can tell, and this says false until reset()).
  bool surely_incomplete() const { return !broken_ && (long_level_ >= 0 || quote_ != 0 || depth_ > 0); }
  void reset() { *this = OpenChunk(); }

 private:
  int depth_ = 0;        // blocks and brackets opened, less those closed
  int long_level_ = -1;  // inside a long string or comment of this level ([==[ is 2)
  char quote_ = 0;       // inside a short string continued on the next line ('\\' at the end)
  bool broken_ = false;  // something Lua would refuse before the end of the input
};

}  // namespace warplab::app::repl
