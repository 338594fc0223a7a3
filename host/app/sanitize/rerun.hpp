// sanitize/rerun.hpp: the pieces of `run --sanitize` that decide, before anything runs,
// which compute-sanitizer is used and the child's command line (rerun.cpp; unit-tested).
// The run itself is cli/sanitize.hpp's sanitize::run. POSIX; no Lua, no CUDA.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "app/cli/sanitize.hpp"

namespace warplab::app::sanitize {

// Where compute-sanitizer is looked for, in order: $WARPLAB_COMPUTE_SANITIZER alone when
// set (a path to the executable); else each PATH entry, then $CUDA_HOME, $CUDA_PATH,
// $CUDAToolkit_ROOT, the toolkit whose headers NVRTC uses (rtc::cuda_include_dirs) and
// /usr/local/cuda, each as bin/compute-sanitizer and compute-sanitizer/compute-sanitizer.
// `getenv` is injectable for tests.
using Getenv = std::function<const char*(const char*)>;
std::vector<std::string> candidates(const Getenv& getenv, const std::vector<std::string>& toolkit_dirs);
// The first candidate that is an executable file; "" when none is.
std::string find_tool(const std::vector<std::string>& candidates);

// The command line of the child run: `argv` (warplab's own, argv[0] included) with
// `--sanitize X` / `--sanitize=X` removed (never after a `--`), argv[0] replaced by `exe`.
std::vector<std::string> child_argv(const std::vector<std::string>& argv, const std::string& exe);

}  // namespace warplab::app::sanitize
