// warplab_table.hpp: what the functions of the global `warplab` table do (bind/
// warplab_table.cpp), without Lua: making a folder with its parents, writing a result file,
// and a monotonic clock.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace warplab::lab {

// Creates `dir` and its parents (no shell). nullopt when `dir` is a folder afterwards, else
// the sentence: "cannot create the folder 'x': a file is in the way".
std::optional<std::string> make_dir(const std::string& dir);

// Writes `bytes` to `path` through the one writer (sys/write.hpp), replacing a file there:
// results (reports, plots, tables) are made again on every run. A symbolic link or a folder
// at `path` is refused, and a failed write leaves the old file as it was. nullopt on
// success, else the sentence: "cannot write 'out.svg': No space left on device (the old
// file is unchanged)".
std::optional<std::string> write_result(const std::string& path, std::string_view bytes);

// Monotonic seconds with sub-microsecond resolution (os.time() ticks whole seconds).
double now_seconds();

}  // namespace warplab::lab
