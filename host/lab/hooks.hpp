// hooks.hpp: what the hooks of the global `warplab` table do (bind/hooks.cpp), without
// Lua: making a folder with its parents, and a monotonic clock. Depends on the standard
// library only.
#pragma once
#include <string>

namespace warplab::lab {

// Creates `dir` and its parents (no shell). Empty when `dir` is a folder afterwards, else
// the sentence: "cannot create the folder 'x': a file is in the way".
std::string make_dir(const std::string& dir);

// Monotonic seconds with sub-microsecond resolution (os.time() ticks whole seconds).
double now_seconds();

}  // namespace warplab::lab
