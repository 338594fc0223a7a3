#!/usr/bin/env bash
# bad_inputs_reentrancy.sh: tests/bad_inputs/lua/reentrancy.lua (Lua code that frees what a
# call is using, in the middle of the call) through the stand-in driver
# build/fake_driver/libcuda.so.1, so its cases with streams, events, graphs and pinned
# memory run with no GPU (offline, CTest runs the file as bad_inputs.lua.reentrancy): every
# case passes, nothing crashes, and each s:free() that cuda.bench defers says so on stderr
# with the script's line. gpu.cases runs the same file on a GPU. Then coroutines.lua (a yield
# inside such a call) the same way, with the stand-in CUPTI (build/fake_cupti) when it is
# there, so cuda.counters' function yields too.
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
[ "$(tail -n 1 "$T/out" | cut -d' ' -f1)" -ge 37 ] || fail "reentrancy.lua ran fewer than its 37 live cases"
re="$(tail -n 1 "$T/out")"
grep -Eq '^warplab: reentrancy\.lua:[0-9]+: s:free\(\) while cuda\.bench uses this stream: the stream is destroyed when cuda\.bench returns$' "$T/out" ||
  fail "a stream freed inside cuda.bench is not said"
CUPTI="$(dirname "$W")/fake_cupti"
[ -f "$CUPTI/libcupti.so.13" ] && export WARPLAB_CUPTI_DIR="$CUPTI"
"$W" run coroutines.lua >"$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "coroutines.lua with the stand-in driver exited $rc"
tail -n 1 "$T/out" | grep -Eq '^[0-9]+ passed, 0 failed$' || fail "coroutines.lua did not pass"
[ "$(tail -n 1 "$T/out" | cut -d' ' -f1)" -ge 26 ] || fail "coroutines.lua ran fewer than its 26 live cases"
co="$(tail -n 1 "$T/out")"
echo 'print(tostring(cuda.device()))' >"$T/which.lua"
"$W" -q run "$T/which.lua" 2>&1 | grep -q "fake driver" || { echo "FAIL: the stand-in driver was not the one loaded"; exit 1; }
echo "bad_inputs_reentrancy: ok (reentrancy.lua: $re; coroutines.lua: $co)"
