#!/usr/bin/env bash
# bad_inputs_reentrancy.sh: tests/bad_inputs/lua/reentrancy.lua (Lua code that frees what a
# call is using, in the middle of the call) through the stand-in driver
# build/fake_driver/libcuda.so.1, so its cases with streams, events, graphs and pinned
# memory run with no GPU (offline, CTest runs the file as bad_inputs.lua.reentrancy): every
# case passes, nothing crashes, and each s:free() that cuda.bench defers says so on stderr
# with the script's line. gpu.cases runs the same file on a GPU.
# Usage: bash bad_inputs_reentrancy.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; SRC="$2"
LIB="$(dirname "$W")/fake_driver"
[ -f "$LIB/libcuda.so.1" ] || { echo "skipped: no $LIB/libcuda.so.1 (target warplab_fake_driver)"; exit 77; }
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1
export WARPLAB_LUA_DIR="$SRC/lua"
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" | tail -n 30; exit 1; }
cd "$SRC/tests/bad_inputs/lua" || exit 1
"$W" run reentrancy.lua >"$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "reentrancy.lua with the stand-in driver exited $rc"
tail -n 1 "$T/out" | grep -Eq '^[0-9]+ passed, 0 failed$' || fail "reentrancy.lua did not pass"
[ "$(tail -n 1 "$T/out" | cut -d' ' -f1)" -ge 35 ] || fail "reentrancy.lua ran fewer than its 35 live cases"
grep -Eq '^warplab: reentrancy\.lua:[0-9]+: s:free\(\) while cuda\.bench uses this stream: the stream is destroyed when cuda\.bench returns$' "$T/out" ||
  fail "a stream freed inside cuda.bench is not said"
echo 'print(tostring(cuda.device()))' >"$T/which.lua"
"$W" -q run "$T/which.lua" 2>&1 | grep -q "fake driver" || { echo "FAIL: the stand-in driver was not the one loaded"; exit 1; }
echo "bad_inputs_reentrancy: ok ($(tail -n 1 "$T/out"))"
