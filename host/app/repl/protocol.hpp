// repl/protocol.hpp: the messages between the REPL prompt and its worker process over a
// socketpair: one type byte, a 4-byte little-endian length, the payload; and the one Status
// every answer carries, from the evaluator through the socket to the prompt. Small and
// blocking on purpose: one request, one reply. POSIX only, no Lua.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warplab::app::repl {

// Request types (prompt -> worker).
inline constexpr char kEval = 'E';         // a chunk; an incomplete one answers kIncomplete
inline constexpr char kEvalFinal = 'F';    // a chunk with no more input to come (end of stdin)
inline constexpr char kComplete = 'C';     // the line up to the cursor -> candidates, one a line
inline constexpr char kAttrs = 'A';        // a pattern -> matching dev.attr lines
inline constexpr char kCheckOutput = 'W';  // a path :save will write -> kError when the worker read it

// What became of a request. The evaluator returns it, the worker sends it as the reply's
// type byte, the prompt acts on it. The first reply, to no request, says whether the
// worker's state opened: kOk, or kError with the payload "<exit code>\n<message>".
enum class Status : char {
  kOk = 'O',          // payload: the values to print (may be empty), or the candidates
  kError = 'e',       // payload: the error message
  kIncomplete = 'I',  // the chunk needs more lines
  kSyntax = 'S',      // payload: the syntax error (the prompt offers the chunk for editing)
  kLost = 'D',        // payload: see lost_payload; the worker's GPU context is now unusable
  kDied = 0,          // never sent: the worker ended before it replied
};

// One answer: a status and its text ("worker died (signal 11)" for kDied).
struct Reply {
  Status status = Status::kOk;
  std::string text;
  // Evaluations are numbered by the worker that runs them, 1, 2, ... from its start:
  // `eval` is this one's (set by Worker::eval), and a kLost reply names in `faulted` the
  // evaluation that made the launch the fault's sentence names (unfinished at the fault).
  unsigned long long eval = 0;
  std::vector<unsigned long long> faulted = {};
};

// A kLost reply on the wire: the faulted numbers ("3 5", or nothing), a line break, the
// text; and back.
std::string lost_payload(const Reply& r);
Reply lost_reply(const std::string& payload);

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
