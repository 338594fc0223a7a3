# setup.sh: sourced by scripts/run and scripts/test. Installs missing Debian packages,
# then configures and builds warplab incrementally into build/.
# Honors: CI=true (warnings are errors), WARPLAB_BUILD_DIR, WARPLAB_JOBS.
set -euo pipefail
WARPLAB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WARPLAB_BUILD_DIR="${WARPLAB_BUILD_DIR:-$WARPLAB_ROOT/build}"
# groff-base: tests/cli/man.sh renders the manual page with it (warnings are errors).
WARPLAB_PACKAGES=(cmake ninja-build g++ pkg-config libcli11-dev liblua5.4-dev libedit-dev
                  nlohmann-json3-dev libgtest-dev libxxhash-dev groff-base libevent-dev)

warplab_install_packages() {
  local missing=()
  for p in "${WARPLAB_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "warplab: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 ||
    { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q "${missing[@]}" >/dev/null; }
}

warplab_find_cuda() {
  if [ -z "${CUDAToolkit_ROOT:-}" ]; then
    for d in /usr/local/cuda /usr/local/cuda-13.0 /usr/local/cuda-12; do
      [ -f "$d/include/cuda.h" ] && { export CUDAToolkit_ROOT="$d"; break; }
    done
  fi
  [ -n "${CUDAToolkit_ROOT:-}" ] || {
    echo "warplab: no CUDA toolkit found in /usr/local/cuda, /usr/local/cuda-13.0 or /usr/local/cuda-12:" \
         "install NVIDIA's cuda-toolkit-13-0 (README.md says how) or set CUDAToolkit_ROOT to its folder" >&2
    exit 3
  }
}

# warplab_build [TARGET...]: configure if needed, then build the targets (default: all).
warplab_build() {
  warplab_install_packages
  warplab_find_cuda
  # CI turns warnings into errors; otherwise the build keeps whatever it was configured
  # with, so `scripts/run` after a CI-style `scripts/test` does not rebuild everything.
  local flags=()
  [ "${CI:-}" = "true" ] && flags+=(-DWARPLAB_WERROR=ON)
  if [ ! -f "$WARPLAB_BUILD_DIR/build.ninja" ]; then
    cmake -S "$WARPLAB_ROOT" -B "$WARPLAB_BUILD_DIR" -G Ninja "${flags[@]}" >/dev/null
  else
    cmake -S "$WARPLAB_ROOT" -B "$WARPLAB_BUILD_DIR" "${flags[@]}" >/dev/null
  fi
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build "$WARPLAB_BUILD_DIR" -j "${WARPLAB_JOBS:-$(nproc)}" "${targets[@]}"
}
