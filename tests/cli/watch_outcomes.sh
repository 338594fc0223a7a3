#!/usr/bin/env bash
# watch_outcomes.sh: how `warplab watch` reports a run, offline.
# - A compile error (the run's exit 5) and a run that needs a GPU or a value the profile
#   does not know (exit 3) are one "run stopped (..., see above)" line: the diagnostics or
#   the sentence come once, from the run, with no "exit 5" or "exit 3"; watch waits for the
#   next save. A script's own os.exit(3) is still "run failed (exit 3)".
# - The compile feedback (a resource line per changed kernel, the --diff of its PTX) comes
#   after a run that ended early too (offline at its first launch, or at an error after
#   the compile), and a module such a run did not get to is not "gone".
# - Kernels are named as their author wrote them: "k(const float*, float*)".
# - An example is watched by its `warplab list` name, as `run` takes it.
# Usage: bash watch_outcomes.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
export WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1 TMPDIR="$T"
WPID=""
trap '[ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"' EXIT
fail() {
  echo "FAIL: $*"
  echo "--- stderr"
  cat "$T/err"
  failures=$((failures + 1))
}
wait_for() {  # wait_for FILE REGEX: poll for a matching line, 15 s at most
  for _ in $(seq 300); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  return 1
}
start() {  # start ARGS...: watch in the background, in $T/w
  (cd "$T/w" && exec "$BIN" "$@") >"$T/out" 2>"$T/err" &
  WPID=$!
}
stop() {
  kill -INT "$WPID"
  wait "$WPID"
  local rc=$?
  WPID=""
  [ $rc -eq 0 ] || fail "watch ended with exit $rc after SIGINT"
}
mkdir -p "$T/w" "$T/other"
cd "$T/w" || exit 1

# ---- a compile error, then its fix ----------------------------------------------------------
printf '__global__ void k(const float* a, float* b) { b[0] = a[0] + x; }\n' >k.cu
echo 'local m = assert(cuda.compile("k.cu")) print("compiled", #m.kernels)' >s.lua
start --profile h100 watch s.lua
wait_for "$T/err" '^run stopped \(compile error, see above\) at [0-9:]{8}; no good run yet$' ||
  fail "a compile error is not one 'run stopped' line"
[ "$(grep -c 'identifier "x" is undefined' "$T/err")" -eq 1 ] || fail "the diagnostic is not shown exactly once"
grep -Eq 'exit 5|exited' "$T/err" && fail "a compile error is reported as an exit status"
printf '__global__ void k(const float* a, float* b) { b[0] = a[0]; }\n' >k.cu
wait_for "$T/out" '^compiled	1$' || fail "watch did not run again after the fix"
wait_for "$T/err" 'run 2 ok' || fail "the fixed run did not end well"
stop

# ---- needs a GPU: offline at the first launch; the feedback still comes ---------------------------
cat >s.lua <<'LUA'
local m = assert(cuda.compile("k.cu"))
local a = cuda.array("f32", 256)
m.k:launch(1, 1, a, a)
LUA
printf '__global__ void k(const float* a, float* b) { b[0] = a[0]; }\n' >k.cu
start --profile h100 watch --diff s.lua
wait_for "$T/err" '^run stopped \(needs a GPU or a fuller profile, see above\) at [0-9:]{8}; no good run yet$' ||
  fail "a launch offline is not one 'run stopped' line"
# More registers: the resource line, and the PTX diff, though the run stops at its launch.
cat >k.cu <<'CU'
__global__ void k(const float* a, float* b) {
  float v[24];
#pragma unroll
  for (int i = 0; i < 24; ++i) v[i] = a[threadIdx.x + i * 64];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 24; ++i) s += v[i] * v[23 - i];
  b[threadIdx.x] = s;
}
CU
wait_for "$T/err" '^k\(const float\*, float\*\): regs [0-9]+→[0-9]+' ||
  fail "no resource line after a run that stopped at its launch (or not as the kernel was written)"
wait_for "$T/err" '^PTX of k\(const float\*, float\*\) changed:$' || fail "no --diff after a run that stopped at its launch"
[ "$(grep -c '^run stopped (needs a GPU' "$T/err")" -eq 2 ] || fail "each run is one line"
grep -Eq 'exit 3|float const' "$T/err" && fail "an exit status or the demangler's spelling"
stop

# ---- an error after the compile; a module the run did not get to is not gone -------------------
printf '__global__ void a(int* p) { p[0] = 1; }\n' >a.cu
printf '__global__ void b(int* p) { p[0] = 2; }\n' >b.cu
echo 'assert(cuda.compile("a.cu")) assert(cuda.compile("b.cu")) print("both")' >s.lua
start --profile h100 watch s.lua
wait_for "$T/err" 'run 1 ok' || fail "no first run"
printf 'assert(cuda.compile("a.cu")) error("stop here")\nassert(cuda.compile("b.cu"))\n' >s.lua
wait_for "$T/err" '^run failed \(exit 1\)' || fail "the error did not end run 2"
printf '__global__ void a(int* p) { p[0] = threadIdx.x * 3 + blockIdx.x; }\n' >a.cu
wait_for "$T/err" '^a\(int\*\): ' || fail "no line for the kernel a run that failed after its compile changed"
grep -q 'is gone' "$T/err" && fail "a kernel the run did not get to was called gone"
stop

# ---- a value the profile does not know; a script's own os.exit(3) --------------------------------
echo 'print(cuda.device().sm_count)' >s.lua
start --profile sm_86 watch s.lua
wait_for "$T/err" '^run stopped \(needs a GPU or a fuller profile, see above\)' ||
  fail "an unknown value of the profile is not one 'run stopped' line"
[ "$(grep -c 'is unknown for profile sm_86' "$T/err")" -eq 1 ] || fail "the sentence is not shown once"
echo 'os.exit(3)' >s.lua
wait_for "$T/err" '^run failed \(exit 3\) at' || fail "the script's own os.exit(3) is not its exit status"
stop

# ---- an example by its `warplab list` name, from any folder ------------------------------------------
name=$("$BIN" list 2>/dev/null | awk '/^[a-z]+\/$/ {dir = $1} /^  [a-z_]+\.lua/ && dir != "" {print dir $1; exit}')
if [ -z "$name" ]; then
  fail "warplab list names no example in a folder"
else
  (cd "$T/other" && exec "$BIN" --profile h100 watch "$name") >"$T/out" 2>"$T/err" &
  WPID=$!
  wait_for "$T/err" "run 1: .*examples/$name\$" || fail "watch $name did not find the example"
  wait_for "$T/err" '^(\[[0-9:]{8}\] run 1 ok|run (stopped|failed))' || fail "watch $name: the run did not end"
  stop
fi
(cd "$T/other" && "$BIN" --profile h100 watch no/such.lua) >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 4 ] || fail "watch of a missing example: exit $rc, want 4"
grep -q "nor an example in .*warplab list" "$T/err" || fail "watch of a missing example: no pointer to warplab list"

[ $failures -eq 0 ] && echo ok
exit $((failures > 0))
