// temp.hpp: where warplab's private temporary files and folders go, chosen so that a bad
// TMPDIR never fails a command: $TMPDIR when it names a folder warplab can write, else
// /tmp, else none (the caller does without). A note (one sentence, for the caller to print
// once) says when TMPDIR was set but could not be used. No Lua, no CUDA.
#pragma once
#include <string>

#include "sys/fd.hpp"

namespace warplab::sys {

struct TempRoot {
  std::string dir;   // "" when no folder is usable
  std::string note;  // why $TMPDIR (or /tmp) was passed over; "" when TMPDIR was fine or unset
};
// The folder for temporary files: $TMPDIR if it is a folder warplab can write, else /tmp.
TempRoot temp_root();

struct TempFile {
  Fd fd;             // open for reading and writing; empty when none could be made
  std::string path;  // <root>/<prefix>XXXXXX
  std::string note;  // as TempRoot::note, or why no file could be made anywhere
};
// A new private file (0600, O_CREAT|O_EXCL, random name) in the temp root, trying /tmp
// when $TMPDIR is set but refuses it. The caller removes it (or unlinks it at once).
TempFile make_temp_file(const std::string& prefix);

struct TempFolder {
  std::string path;  // "" when none could be made
  std::string note;
};
// A new private folder (0700, random name) in the temp root, as make_temp_file.
TempFolder make_temp_folder(const std::string& prefix);

}  // namespace warplab::sys
