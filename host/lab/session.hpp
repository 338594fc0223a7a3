// session.hpp: what a run sets up around its script that needs no Lua: the folders the
// warplab Lua library is searched in, the compile cache (its warning printed once per
// process), and whether output is colored. host/bind/state.cpp opens Lua states with these.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lab/options.hpp"
#include "rtc/cache.hpp"

namespace warplab::lab {

// The folder of the running program ("" when /proc/self/exe cannot be read).
std::string exe_dir();
// The directories holding lua/warplab/*.lua, most specific first: $WARPLAB_LUA_DIR, then
// next to the program (build tree, installed layout), then `source_dir`/lua; only those
// that have a warplab/ folder, made canonical.
std::vector<std::string> lua_library_dirs(const std::string& source_dir);
// The compile cache in its default folder, or null when `opts.cache` is off; a cache
// warning (unusable folder) goes to stderr once per process.
std::unique_ptr<rtc::Cache> open_cache(const Options& opts);
// Color on stdout: asked for, stdout is a terminal, and NO_COLOR is not set.
bool stdout_color(const Options& opts);

}  // namespace warplab::lab
