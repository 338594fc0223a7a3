// write.hpp: the one writer of every file warplab writes. The bytes go to a temporary file
// in the target's own folder (created O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable
// name), written whole and fsync'd, then renamed onto the target: a reader sees the old
// file or the new one, never half, and a failed write (a full disk, a quota, a file size
// limit) leaves the old file as it was. No Lua, no CUDA; the caller words its own advice.
#pragma once
#include <string>
#include <string_view>

namespace warplab::sys {

// Whether an existing file at the target may be replaced. A symbolic link at the target is
// never followed and never replaced (WriteResult::Status::link), whatever this says.
enum class Replace { never, allowed };
// durable: fsync the file before the rename and its folder after (a crash cannot leave an
// empty file under the name). none: for files that check themselves (the compile cache).
enum class Sync { durable, none };

struct WriteOptions {
  Replace replace = Replace::never;
  Sync sync = Sync::durable;
  unsigned mode = 0666;  // of a new file, less the umask; a replaced file keeps its mode
};

struct WriteResult {
  enum class Status {
    ok,
    exists,    // something is at the target and Replace::never said to keep it
    link,      // the target is a symbolic link (dangling or not): not followed, not replaced
    not_file,  // the target is a folder, a socket or a block device
    input,     // the target is an input of this process (sys/output.hpp): never replaced
    failed,    // the system refused (errno in `error`); an old file is unchanged
  };
  Status status = Status::ok;
  int error = 0;        // errno, for failed
  std::string message;  // one sentence naming the path and the OS reason; empty when ok
  explicit operator bool() const { return status == Status::ok; }
};

// Writes `bytes` to `path`. An existing character device or FIFO there (/dev/null, a pipe
// with a reader) is written into, not replaced, when Replace::allowed. A file this process
// noted as an input (sys/output.hpp: the script, a kernel it compiled) is never replaced,
// whatever `replace` says.
WriteResult write_file(const std::string& path, std::string_view bytes, const WriteOptions& opts = {});
inline WriteResult write_file(const std::string& path, std::string_view bytes, Replace replace) {
  return write_file(path, bytes, WriteOptions{replace});
}
// The same inside an open folder: `name` is one path component of `dir_fd`; `shown` is what
// the messages call the file.
WriteResult write_file_at(int dir_fd, const std::string& name, std::string_view bytes,
                          const WriteOptions& opts, const std::string& shown);

// The temporary name write_file uses for `name` while it writes: "<name>.tmp.<16 random
// hex digits>" (the name shortened so the whole fits a file name). A signal that ends the
// process meanwhile (Ctrl-C, SIGTERM, SIGHUP) removes it first; a crash or SIGKILL can
// leave one.
std::string temp_name_for(const std::string& name);

}  // namespace warplab::sys
