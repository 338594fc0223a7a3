#!/usr/bin/env bash
# types_fake_driver.sh: tests/lua/api_types.lua with the stand-in driver
# build/fake_driver/libcuda.so.1 (bench/fake_driver.cpp), so its live case runs with no
# GPU: a released stream, event or graph raises its one sentence from every method, and
# :free() and <close> release it once.
# Usage: bash types_fake_driver.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; SRC="$2"
LIB="$(dirname "$W")/fake_driver"
[ -f "$LIB/libcuda.so.1" ] || { echo "skipped: no $LIB/libcuda.so.1 (target warplab_fake_driver)"; exit 77; }
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1
export WARPLAB_LUA_DIR="$SRC/lua" WARPLAB_UNSAFE_DEBUG=1
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
cd "$SRC" || exit 1
"$W" -q run tests/lua/api_types.lua >"$T/out" 2>&1
rc=$?
if [ $rc -ne 0 ] || ! tail -n 1 "$T/out" | grep -Eq '^[0-9]+ passed, 0 failed$'; then
  echo "FAIL: api_types.lua with the stand-in driver exited $rc"
  sed 's/^/    /' "$T/out" | tail -n 30
  exit 1
fi
echo 'print(tostring(cuda.device()))' >"$T/which.lua"
"$W" -q run "$T/which.lua" 2>&1 | grep -q "fake driver" ||
  { echo "FAIL: the stand-in driver was not the one loaded"; exit 1; }
echo "types_fake_driver: ok ($(tail -n 1 "$T/out"))"
