// watch_feed.hpp: what a run tells `warplab watch`, the records the watcher reads: the
// files it read (WARPLAB_DEPS_FILE: every file that should trigger a re-run, the script,
// kernel sources and the headers they include, one absolute path a line) and the code it
// made and how it launched it (the code folder, WARPLAB_CODE_DIR). Without those variables
// each of these is a no-op. No Lua.
#pragma once
#include <cstddef>
#include <string>

namespace warplab::lab {

// Appends `path` (made absolute) to $WARPLAB_DEPS_FILE once per process. Best effort:
// a failure to write is ignored, since the watcher always watches the script itself.
void record_dependency(const std::string& path);

// Appends "> PATH" (made absolute) to $WARPLAB_DEPS_FILE once per process, before the run
// writes, replaces, renames or removes that file: a write by the run itself is not a save
// by the person, and the watcher does not run the script again for it (a script that
// writes the kernel it then compiles, or appends to itself, would run without end).
void record_written(const std::string& path);

}  // namespace warplab::lab

namespace warplab::cu {
struct DeviceSnapshot;
}
namespace warplab::rtc {
struct CompileResult;
}

namespace warplab::lab {

// `warplab watch` gives its runs WARPLAB_CODE_DIR, a folder where a run says what code it
// made and how it launched it, so the watcher can show what an edit changed (no-op
// without it). Per compiled module (n counts modules in compile order, <stem> is the
// module's file name): <n>.<stem>.ptx, <n>.<stem>.cubin, and <n>.<stem>.spills, one
// "MANGLED STORE_BYTES LOAD_BYTES" line per kernel (-1: unknown). Then `launches`, one
// "STEM MANGLED THREADS DYNAMIC_SHARED" line per kernel launched in the run (its last
// launch, written when the kernel is released), and `device.json`, the profile of the
// device the run worked on (cu/profile.hpp).
void record_code(const std::string& module_name, const rtc::CompileResult& r);
void record_launch(const std::string& module_name, const std::string& mangled, unsigned threads,
                   unsigned dynamic_shared) noexcept;
void record_device(const cu::DeviceSnapshot& d);
// WARPLAB_CODE_DIR when it names a folder watch made: a directory (not a link) named
// warplab-code-*, owned by this user and writable by no one else; else nullptr (the
// variable set by hand to another folder would have its device.json, launches and
// N.stem.* files replaced).
const char* code_dir();
// The file-name stem a module's records carry ("k.cu" for ".../k.cu").
std::string code_stem(const std::string& module_name);

}  // namespace warplab::lab
