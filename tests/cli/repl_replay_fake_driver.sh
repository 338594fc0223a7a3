#!/usr/bin/env bash
# repl_replay_fake_driver.sh: the REPL after a GPU fault, with no GPU, through the stand-in
# driver (bench/fake_driver.cpp: a kernel named fake_fault leaves a sticky illegal address
# for the next call that waits). The fault is noticed by a later input; a new worker starts
# once; the message says which input made the launch the fault names; :replay skips that
# input and says so, replays the others (no second fault, no second worker), and :save
# writes a script `run` runs: before :replay with the faulted launch as a comment, after
# it without.
# Usage: bash repl_replay_fake_driver.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
LIB="$(dirname "$W")/fake_driver"
[ -f "$LIB/libcuda.so.1" ] || { echo "skipped: no $LIB/libcuda.so.1 (target warplab_fake_driver)"; exit 77; }
WARPLAB_CACHE_DIR="$(mktemp -d)"
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" WARPLAB_CACHE_DIR NO_COLOR=1
export XDG_STATE_HOME="$WARPLAB_CACHE_DIR"
T="$(mktemp -d)"; trap 'rm -rf "$T" "$WARPLAB_CACHE_DIR"' EXIT
unset WARPLAB_NO_DRIVER
cd "$T" || exit 1
fail() { echo "FAIL: $*"; cat "$T/out"; exit 1; }

cat >"$T/in" <<'LUA'
x = 41
m = assert(cuda.compile{source = "__global__ void fake_fault(int n) {}\n__global__ void fine(int n) {}"})
a = cuda.array("i32", 4)
m.fine:launch(1, 1, 1)
m.fake_fault:launch(1, 1, 7)
x
print(a[1])
:save before.lua
:replay
print(x + 1)
:save s.lua
LUA
"$W" repl <"$T/in" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "exit $rc, want 1 (one input failed)"
grep -q "kernel 'fake_fault' launched at repl:1 faulted: CUDA_ERROR_ILLEGAL_ADDRESS" "$T/out" || fail "the fault sentence"
grep -qF "Lost: every global, array, module and kernel of the session (6 successful inputs); :replay runs them again, without input 5 (m.fake_fault:launch(1, 1, 7)), whose kernel launch faulted" "$T/out" ||
  fail "what was lost, and which input :replay leaves out"
grep -qxF "replay skips input 5 (m.fake_fault:launch(1, 1, 7)): its kernel launch faulted" "$T/out" || fail ":replay says what it skips"
grep -qxF "replayed 5 inputs (skipped 1 whose launch faulted)" "$T/out" || fail ":replay's count"
[ "$(grep -c 'new worker started' "$T/out")" -eq 1 ] || fail "the replay faulted again (a second worker)"
grep -qx 42 "$T/out" || fail "the state after :replay"
grep -qx -- "-- m.fake_fault:launch(1, 1, 7)" before.lua || fail ":save before :replay: the faulted launch is not commented out"
grep -q "fake_fault:launch" s.lua && fail ":save after :replay: the faulted launch is still part of the session"
grep -qx "m.fine:launch(1, 1, 1)" s.lua || fail ":save: the other launch is not there"
"$W" run s.lua >"$T/out" 2>&1 || fail ":save's script does not run"
[ "$(cat "$T/out")" = "$(printf '41\n42')" ] || fail ":save's script: the bare expression x printed, then x + 1"
echo "repl replay: ok"
