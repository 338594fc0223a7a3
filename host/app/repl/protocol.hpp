// repl_protocol.hpp: the messages between the REPL prompt and its worker process over a
// socketpair: one type byte, a 4-byte little-endian length, the payload. Small and
// blocking on purpose: one request, one reply. POSIX only, no Lua.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace warplab::app::repl {

// Request types (prompt -> worker).
inline constexpr char kEval = 'E';       // a chunk; an incomplete one answers kIncomplete
inline constexpr char kEvalFinal = 'F';  // a chunk with no more input to come (end of stdin)
inline constexpr char kComplete = 'C';   // the line up to the cursor -> candidates
inline constexpr char kAttrs = 'A';      // a pattern -> matching dev.attr lines
// Reply types (worker -> prompt).
inline constexpr char kReady = 'R';        // the worker's state is open
inline constexpr char kStartFailed = 'X';  // payload "<exit code>\n<message>"
inline constexpr char kOk = 'O';           // payload: the values to print (may be empty)
inline constexpr char kError = 'e';        // payload: the error message
inline constexpr char kIncomplete = 'I';   // the chunk needs more lines
inline constexpr char kSyntax = 'S';       // payload: the syntax error
inline constexpr char kLost = 'D';         // payload: the error; the GPU context is now unusable
inline constexpr char kCandidates = 'L';   // payload: candidates, one a line

struct Message {
  char type = 0;
  std::string payload;
};

// Larger frames are refused as corrupt: no answer of the REPL gets near this.
inline constexpr std::uint32_t kMaxPayload = 64u << 20;

// Writes a whole frame, retrying on EINTR; false when the peer is gone.
bool write_message(int fd, char type, const std::string& payload);
// Reads a whole frame, retrying on EINTR; nullopt on end of file, error or a bad frame.
std::optional<Message> read_message(int fd);

}  // namespace warplab::app::repl
