// read.hpp: the one reader of whole files warplab reads as input (scripts, kernel sources,
// profiles). C++ streams either swallowed a read error (a source read as empty) or threw
// it past every handler (an internal error): this reads with read(2) and says why it could
// not, and refuses what is not a regular file (a FIFO would block the read). No Lua, no
// CUDA; callers check the file's kind and size first, for their own sentences.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace warplab::sys {

// The bytes of the file at `path` in `out`: nullopt when read whole, else the OS reason
// ("Input/output error") with `out` left empty. More than `max_bytes` is refused ("larger
// than N bytes"), for a file that grew after its size was checked.
std::optional<std::string> read_whole(const std::string& path, std::string& out, std::size_t max_bytes);

// The first `max_bytes` of the file at `path` in `out` (all of it when shorter): as
// read_whole, but a longer file is not an error (a header, a summary line).
std::optional<std::string> read_head(const std::string& path, std::string& out, std::size_t max_bytes);

}  // namespace warplab::sys
