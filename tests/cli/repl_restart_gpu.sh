#!/usr/bin/env bash
# repl_restart_gpu.sh (GPU): after a sticky fault (an illegal address) and after a
# --timeout, the REPL says the context is unusable once, starts a fresh worker, names what
# was lost, and :replay brings the session back; later GPU calls work. Exit 77 without a GPU.
set -u
W="$1"; SRC="$2"
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
export XDG_STATE_HOME="$(mktemp -d)"
T="$(mktemp -d)"; trap 'rm -rf "$T" "$XDG_STATE_HOME"' EXIT
echo 'io.write(tostring(cuda.device().live))' >"$T/probe.lua"
[ "$("$W" -q run "$T/probe.lua" 2>/dev/null)" = "true" ] || { echo "skip: no GPU"; exit 77; }
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }

cat >"$T/fault.in" <<'LUA'
a = cuda.array("f32", 32):fill(1)
m = cuda.compile{source = [[__global__ void bad(float* p) { p[1 << 30] = 1; } __global__ void ok(float* p) { p[threadIdx.x] += 1; }]]}
m.bad:launch(1, 1, a); cuda.synchronize()
a[1]
:replay
m.ok:launch(1, 32, a); cuda.synchronize(); print("after", a[1])
LUA
timeout 120 "$W" repl <"$T/fault.in" >"$T/out" 2>"$T/err"
[ "$(grep -c 'the GPU context is unusable' "$T/err")" = 1 ] || fail "want the context-lost line once"
grep -q "Lost: every global.*(2 successful inputs)" "$T/err" || fail "what was lost"
grep -q "replayed 2 inputs" "$T/out" || fail ":replay after the fault"
grep -q "^after	2" "$T/out" || fail "GPU work after the restart"

cat >"$T/hang.in" <<'LUA'
a = cuda.array("u32", 1):zero()
m = cuda.compile{source = [[__global__ void spin(volatile unsigned* p) { while (p[0] == 0) {} }]]}
m.spin:launch(1, 1, a); cuda.synchronize()
:replay
print("alive", a[1])
LUA
timeout 120 "$W" --timeout 2 repl <"$T/hang.in" >"$T/out" 2>"$T/err"
grep -q "did not finish within 2 s" "$T/err" || fail "no timeout sentence"
[ "$(grep -c 'the GPU context is unusable' "$T/err")" = 1 ] || fail "want the context-lost line once after a timeout"
grep -q "^alive	0" "$T/out" || fail "GPU work after the timeout restart"
echo "repl_restart_gpu: ok"
