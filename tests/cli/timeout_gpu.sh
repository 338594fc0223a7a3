#!/usr/bin/env bash
# timeout_gpu.sh: the kernel watchdog on a real GPU. A grid four times larger than what
# fits on the GPU at once waits at a home-made inter-block barrier: the resident blocks
# wait for blocks that cannot start until they leave. (Each wait also ends by itself
# after 20 s, so the GPU is never stuck for longer.) `warplab --timeout 1 run` must end
# within seconds, exit 7, and name the kernel, its script line and the co-resident
# capacity; a pcall around the waiting call must not swallow it. Skips without a GPU.
set -u
W="$1"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; echo "--- stderr"; cat "$T/err"; exit 1; }
echo 'print(cuda.device().live)' > "$T/probe.lua"
[ "$("$W" -q run "$T/probe.lua" 2>/dev/null)" = "true" ] || { echo "skip: no GPU"; exit 77; }
cat > "$T/barrier.lua" <<'LUA'
local m = assert(cuda.compile{source = [[
#include <warplab/ids.cuh>
__global__ void grid_barrier(unsigned* arrived, unsigned blocks, unsigned long long limit_ns) {
  if (threadIdx.x == 0) {
    atomicAdd(arrived, 1u);
    const unsigned long long t0 = warplab::global_timer();
    while (atomicAdd(arrived, 0u) < blocks && warplab::global_timer() - t0 < limit_ns) {}
  }
  __syncthreads();
}
]]})
local k = m.grid_barrier
local fits = k:occupancy{block = 256}.blocks_per_sm * cuda.device().sm_count
local arrived = cuda.array("u32", 1):zero()
k:launch(4 * fits, 256, arrived, 4 * fits, 20 * 1000000000)
print("launched", 4 * fits)
print(pcall(function() return arrived[1] end))  -- the watchdog must not be swallowed
print("not reached")
LUA
start=$(date +%s)
"$W" --timeout 1 run "$T/barrier.lua" >"$T/out" 2>"$T/err"
rc=$?
took=$(( $(date +%s) - start ))
[ $rc -eq 7 ] || fail "exit $rc, expected 7 (timeout)"
[ $took -le 12 ] || fail "took $took s: the watchdog did not end the run promptly"
grep -q "kernel 'grid_barrier' launched at .*barrier.lua:15 did not finish within 1 s" "$T/err" ||
  fail "the message names the kernel and its launch line"
grep -Eq "probable inter-block deadlock: grid [0-9]+ blocks > [0-9]+ co-resident \([0-9]+ per SM x [0-9]+ SMs\)" "$T/err" ||
  fail "the message gives the co-resident capacity"
grep -q "not reached" "$T/out" && fail "a pcall swallowed the watchdog"
echo "timeout_gpu: ok ($took s): $(grep -o "did not finish.*" "$T/err" | head -n 1)"
