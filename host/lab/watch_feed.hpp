// watch_feed.hpp: the feed, what a run tells `warplab watch` (the files the watcher reads):
// the files it read (WARPLAB_DEPS_FILE: every file that should trigger a re-run, the script,
// kernel sources and the headers they include, one absolute path a line) and the code it
// made and how it launched it (the code folder, WARPLAB_CODE_DIR). Without those variables
// each feed_* is a no-op. No Lua.
#pragma once
#include <cstddef>
#include <string>

#include "cu/launch.hpp"

namespace warplab::lab {

// Appends `path` (made absolute) to $WARPLAB_DEPS_FILE once per process. Best effort:
// a failure to write is ignored, since the watcher always watches the script itself.
void feed_dependency(const std::string& path);

// Appends "> PATH" (made absolute) to $WARPLAB_DEPS_FILE once per process, before the run
// writes, replaces, renames or removes that file: a write by the run itself is not a save
// by the person, and the watcher does not run the script again for it (a script that
// writes the kernel it then compiles, or appends to itself, would run without end).
void feed_written(const std::string& path);

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
// launch, fed when the kernel is released: LastLaunch), and `device.json`, the profile of
// the device the run worked on (cu/profile.hpp).
void feed_code(const std::string& module_name, const rtc::CompileResult& r);
void feed_device(const cu::DeviceSnapshot& d);

// A kernel's last launch in this run, what `warplab watch` computes occupancy at: noted by
// every launch that runs now (one store, lab/launch.cpp) and, offline, by the launch the
// preflight refuses for want of a GPU after its checks passed (the script's block size all
// the same); fed once, when the kernel is released (KernelObj's destructor: feed_launch).
struct LastLaunch {
  unsigned threads = 0;  // per block; 0: never launched
  unsigned dynamic_shared = 0;
  void note(const cu::LaunchConfig& c) noexcept {
    threads = c.block.x * c.block.y * c.block.z;
    dynamic_shared = c.shared_bytes;
  }
};
// The `launches` line of kernel `mangled` of module `module_name`; nothing when it never
// launched. Never throws (a destructor calls it).
void feed_launch(const std::string& module_name, const std::string& mangled, const LastLaunch& last) noexcept;
// WARPLAB_CODE_DIR when it names a folder watch made: a directory (not a link) named
// warplab-code-*, owned by this user and writable by no one else; else nullptr (the
// variable set by hand to another folder would have its device.json, launches and
// N.stem.* files replaced).
const char* code_dir();
// The file-name stem a module's files carry ("k.cu" for ".../k.cu").
std::string code_stem(const std::string& module_name);

}  // namespace warplab::lab
