// deps.hpp: the dependency record `warplab watch` reads. A run started by the watcher
// gets WARPLAB_DEPS_FILE in its environment; every file the run reads that should
// trigger a re-run (the script, kernel sources, the headers they include) is appended
// to it, one absolute path a line. Without that variable this is a no-op. No Lua.
#pragma once
#include <string>

namespace warplab::bind {

// Appends `path` (made absolute) to $WARPLAB_DEPS_FILE once per process. Best effort:
// a failure to write is ignored, since the watcher always watches the script itself.
void record_dependency(const std::string& path);

}  // namespace warplab::bind
