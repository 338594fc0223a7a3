#!/usr/bin/env bash
# lines_watch_gpu.sh (GPU): `warplab watch --lines` on a script whose kernel file reads
# shared memory at a stride S: the first run shows the kernel's hottest lines (the strided
# load at line 8, 32.0-way); after the kernel file is saved with S = 1 the re-run shows what
# changed at that line ("bank  line 8: 32.0-way -> 1.0-way shared"); a save that changes
# nothing the lines count says "lines: no change". Exit 77 without a GPU.
# Usage: bash lines_watch_gpu.sh <warplab binary> <source root>
set -u
W=$(realpath "$1")
T=$(mktemp -d)
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }
wait_for() {  # FILE REGEX: up to 60 s (compiles, patched launches)
  for _ in $(seq 600); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  fail "no '$2' in $(basename "$1") after 60 s"
}
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
export NO_COLOR=1 XDG_STATE_HOME=$T/state
cd "$T" || exit 1
echo 'io.write(tostring(cuda.device().live))' >probe.lua
[ "$("$W" run probe.lua 2>/dev/null)" = true ] || { echo "skipped: no CUDA device"; exit 77; }

kernel() {  # STRIDE
  cat >k.cu <<CU
#define S $1
__global__ void bank(float* out, int reps) {
  __shared__ float s[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = (float)i;
  __syncthreads();
  float acc = 0.f;
  for (int r = 0; r < reps; ++r)
    acc += s[(threadIdx.x * S + r) & (32 * 32 - 1)];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
CU
}
kernel 32
cat >s.lua <<'LUA'
local m = assert(cuda.compile("k.cu"))
local out = cuda.array("f32", 132 * 256)
m.bank:launch(132, 256, out, 64)
cuda.synchronize()
print("launched")
LUA
"$W" watch --lines s.lua >"$T/out" 2>"$T/err" &
WPID=$!
wait_for "$T/err" 'run 1 ok'
wait_for "$T/err" '^hot lines:'
wait_for "$T/err" '^  bank  line 8: .*32\.0-way shared'
grep -E '^  bank  line' "$T/err" | head -n 3
sleep 0.5
kernel 1
wait_for "$T/err" 'run 2 ok'
wait_for "$T/err" '^  bank  line 8: 32\.0-way -> 1\.0-way shared'
grep -E '^  bank  line 8: 32' "$T/err"
sleep 0.5
kernel 1
echo '// a comment' >>k.cu
wait_for "$T/err" 'run 3 ok'
wait_for "$T/err" '^lines: no change'
kill -INT $WPID
for _ in $(seq 100); do kill -0 $WPID 2>/dev/null || break; sleep 0.05; done
WPID=""
echo "lines_watch_gpu.sh: ok"
