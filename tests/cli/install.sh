#!/usr/bin/env bash
# install.sh: `cmake --install` to a temporary prefix, the tree moved elsewhere, and the
# source checkout hidden (a private mount namespace lays an empty tmpfs over it, so no
# path from the build machine can be used): the tour runs, `warplab list` and the Lua
# library come from the installed share/warplab. Then `cpack -G DEB`, unpacked the same
# way, with its control fields. Skipped (77) where BIN's folder is not a CMake build (a
# carried build-gpu/). scripts/deb-check installs the .deb on a clean Debian 12 (not in CI).
# Usage: bash install.sh <warplab binary> <source root>
set -u
BIN=$1 ROOT=$(cd "$2" && pwd)
B=$(cd "$(dirname "$BIN")" && pwd)
[ -f "$B/cmake_install.cmake" ] || { echo "skip: $B is not a CMake build folder"; exit 77; }
T=$(mktemp -d /tmp/warplab-install.XXXXXX) && trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; [ -f "$T/out" ] && sed 's/^/    /' "$T/out" | tail -20; exit 1; }
export WARPLAB_NO_DRIVER=1
unset WARPLAB_LUA_DIR WARPLAB_KERNELS_DIR WARPLAB_PROFILE

cmake --install "$B" --prefix "$T/p" >"$T/out" 2>&1 || fail "cmake --install"
for f in bin/warplab share/warplab/lua/warplab/report.lua share/warplab/examples/tour.lua \
         share/warplab/kernels_src/include/warplab/reduce.cuh share/warplab/profiles/h100.json; do
  [ -e "$T/p/$f" ] || fail "the install has no $f"
done
mv "$T/p" "$T/moved"

# Runs "$@" with the source checkout (and so the build folder in it) hidden, when the
# system allows a private mount namespace; else as it is, saying so.
hidden() {
  if unshare --mount --propagation private true 2>/dev/null; then
    unshare --mount --propagation private bash -c 'mount -t tmpfs none "$0" && exec "$@"' "$ROOT" "$@"
  else
    echo "note: no mount namespace here: the checkout stays visible" >&2
    "$@"
  fi
}
W="$T/moved/bin/warplab"
(cd "$T" && hidden "$W" --profile h100 run "$T/moved/share/warplab/examples/tour.lua") >"$T/out" 2>&1 ||
  fail "the tour from the moved install"
grep -q "no GPU here" "$T/out" || fail "the tour did not reach its end offline"
hidden "$W" --profile h100 list >"$T/out" 2>&1 || fail "list"
grep -q "^examples in $T/moved/share/warplab/examples$" "$T/out" || fail "list does not use the installed examples"
printf 'io.write(package.path)\n' >"$T/path.lua"
hidden "$W" --profile h100 run "$T/path.lua" >"$T/out" 2>/dev/null || fail "package.path"
grep -q "$T/moved/share/warplab/lua/?.lua" "$T/out" || fail "the Lua library is not the installed one"
hidden "$W" --profile h100 compile "$T/moved/share/warplab/kernels_src/reductions/ladder.cu" >"$T/out" 2>&1 ||
  fail "a kernel that includes <warplab/...> from the installed kernels_src"

# The Debian package, unpacked (dpkg -i would change this machine).
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null; then
  (cd "$T" && cpack -G DEB --config "$B/CPackConfig.cmake" -B "$T/deb") >"$T/out" 2>&1 || fail "cpack -G DEB"
  deb=$(ls "$T"/deb/*.deb 2>/dev/null | head -n 1)
  [ -n "$deb" ] || fail "cpack made no .deb"
  dpkg-deb -f "$deb" Package Depends Recommends >"$T/out" && grep -q "^Package: warplab" "$T/out" || fail "the package's control fields"
  # Depends: what the binary links (dpkg-shlibdeps at pack time); NVRTC recommended from
  # NVIDIA's repository; the binary stripped (scripts/deb-check installs it on Debian 12).
  grep -q '^Depends: libc6 (>= [0-9.]*), libedit2.*libstdc++6 (>= [0-9]*)' "$T/out" || fail "Depends lacks libc6/libedit2/libstdc++6"
  grep -q '^Recommends: cuda-nvrtc-[0-9]*-[0-9]*' "$T/out" || fail "no Recommends of NVIDIA's cuda-nvrtc"
  dpkg-deb -x "$deb" "$T/root" || fail "dpkg-deb -x"
  readelf -S "$T/root/usr/bin/warplab" | grep -q '\.debug_info' && fail "the packed binary keeps its debug information"
  (cd "$T" && hidden "$T/root/usr/bin/warplab" --profile h100 run "$T/root/usr/share/warplab/examples/tour.lua") \
    >"$T/out" 2>&1 || fail "the tour from the unpacked package"
fi
echo "install: ok"
