// deps.hpp: the dependency record `warplab watch` reads. A run started by the watcher
// gets WARPLAB_DEPS_FILE in its environment; every file the run reads that should
// trigger a re-run (the script, kernel sources, the headers they include) is appended
// to it, one absolute path a line. Without that variable this is a no-op. No Lua.
#pragma once
#include <cstddef>
#include <string>

namespace warplab::lab {

// Appends `path` (made absolute) to $WARPLAB_DEPS_FILE once per process. Best effort:
// a failure to write is ignored, since the watcher always watches the script itself.
void record_dependency(const std::string& path);

}  // namespace warplab::lab

namespace warplab::lab {

// `warplab watch --diff` gives its runs WARPLAB_CODE_DIR; each compiled module's PTX
// and CUBIN are written there (<dir>/<n>.<name>.ptx/.cubin, n counting modules in
// compile order) so the watcher can show what an edit changed. No-op without it.
void record_code(const std::string& module_name, const std::string& ptx, const char* cubin,
                 std::size_t cubin_bytes);

}  // namespace warplab::lab
