// cli/environment.cpp: every environment variable warplab reads, with what it changes, and
// where warplab keeps its files: one table that `warplab help environment`, the man page and
// docs/cli.md show, and whose common rows `warplab --help` ends with (tests/cli/environment.sh
// checks they agree with the getenv calls of host/ and lua/).
#include <algorithm>

#include "app/cli/command.hpp"

namespace warplab::app {

const std::vector<EnvVar>& environment() {
  static const std::vector<EnvVar> vars = {
      {"WARPLAB_PROFILE", "the profile to use when --profile is not given (a shipped name or a .json file)",
       true},
      {"WARPLAB_CACHE_DIR", "the compile cache's folder (default below, under Files)", true},
      {"WARPLAB_CACHE_MAX_MB", "the compile cache's bound in MiB (default 512); the oldest entries go first",
       true},
      {"WARPLAB_CUPTI_DIR", "the one folder to load CUPTI (libcupti.so) from, for hardware counters", true},
      {"WARPLAB_COMPUTE_SANITIZER", "the compute-sanitizer that run --sanitize starts"},
      {"WARPLAB_SANITIZE_LOG", "run --sanitize keeps compute-sanitizer's raw log in this file"},
      {"WARPLAB_LINEINFO", "1: every cuda.compile adds -lineinfo (run --sanitize sets it)"},
      {"WARPLAB_SANITIZE", "set by run --sanitize for the script: the tool it runs under"},
      {"WARPLAB_NO_DRIVER", "1: act as if no NVIDIA driver were installed (work from a profile)", true},
      {"WARPLAB_LUA_DIR", "a folder searched first for the Lua library (require \"warplab.report\")"},
      {"WARPLAB_KERNELS_DIR", "the kernels_src folder (<warplab/...> headers) instead of the shipped one"},
      {"WARPLAB_DEPS_FILE", "set by watch for each run: where the run lists the files it read"},
      {"WARPLAB_CODE_DIR", "set by watch for each run: where the run leaves its kernels' code"},
      {"WARPLAB_PAGE", "set by --serve and --html for each run: the marker of what it sends to its page"},
      {"WARPLAB_STARTUP_TRACE", "1: print on stderr where start-up time goes (loader, cuInit, context, ...)"},
      {"WARPLAB_UNSAFE_DEBUG", "1: scripts get Lua's whole debug library (warplab's own tests)"},
      {"NO_COLOR", "set: no ANSI colours (as --no-color)", true},
      {"TERM", "dumb: no colours in attrs"},
      {"COLUMNS", "the width `warplab list` wraps to on a terminal (default: the terminal's)"},
      {"CUDA_HOME, CUDA_PATH",
       "a CUDA toolkit's folder: its headers, CUPTI, compute-sanitizer, cuobjdump, nvdisasm", true},
      {"CUDA_INJECTION64_PATH",
       "set (by ncu, nsys): --counters and --lines say another NVIDIA tool is attached"},
      {"CUDAToolkit_ROOT", "a CUDA toolkit's folder where run --sanitize also looks for compute-sanitizer"},
      {"PATH", "where compute-sanitizer, cuobjdump, nvdisasm and xdg-open are looked for"},
      {"NVDISASM_PATH",
       "the folder cuobjdump runs nvdisasm from; unset, warplab sets it to the nvdisasm it found"},
      {"BROWSER", "the browser --open starts with the page's URL (default: xdg-open)"},
      {"TMPDIR", "temporary files (default /tmp)"},
      {"XDG_CACHE_HOME", "the compile cache goes to $XDG_CACHE_HOME/warplab"},
      {"XDG_STATE_HOME", "the REPL's history goes to $XDG_STATE_HOME/warplab/history"},
      {"EDITRC", "the REPL's key bindings (libedit's), instead of ~/.editrc"},
      {"HOME",
       "~/.cache/warplab and ~/.local/state/warplab when the XDG variables are not set; ~/.editrc; :save "
       "~/FILE"},
  };
  return vars;
}

const std::vector<EnvVar>& files() {
  static const std::vector<EnvVar> out = {
      {"compile cache",
       "$WARPLAB_CACHE_DIR, else $XDG_CACHE_HOME/warplab, else ~/.cache/warplab, else "
       "$TMPDIR/warplab-cache-UID; `warplab cache info` prints it, `warplab cache clear` empties it"},
      {"REPL history", "$XDG_STATE_HOME/warplab/history, else ~/.local/state/warplab/history"},
      {"examples, Lua library, kernels, profiles",
       "share/warplab/ beside the binary's folder (PREFIX/bin/warplab: PREFIX/share/warplab/)"},
  };
  return out;
}

std::string environment_text(bool all) {
  std::size_t width = 0, more = 0;
  for (const EnvVar& v : environment()) width = std::max(width, v.name.size());
  std::string out = "Environment:\n";
  for (const EnvVar& v : environment()) {
    if (!all && !v.common) {
      ++more;
      continue;
    }
    out += "  " + v.name + std::string(width - v.name.size() + 2, ' ') + v.meaning + "\n";
  }
  if (more)
    out += "  and " + std::to_string(more) +
           " more (the toolkit's, the system's, those warplab sets for its runs): warplab help environment\n";
  out += "\nFiles:\n";
  for (const EnvVar& f : files()) out += "  " + f.name + ": " + f.meaning + "\n";
  return out;
}

}  // namespace warplab::app
