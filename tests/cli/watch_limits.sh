#!/usr/bin/env bash
# watch_limits.sh: offline (no driver, a profile), `warplab watch` names every limit an edit
# moved and the occupancy at the block size the script launches with: the launch stops the
# run for want of a GPU, but its configuration is the script's. Adding __launch_bounds__(256)
# says "max threads 1024→256 (__launch_bounds__)" with the occupancy at block 256 the same;
# a heavier kernel says its registers and the occupancy old -> new; a script launching at
# another block size says the occupancy there. The expected numbers are warplab's own
# calculator's for the same profile (k.max_threads, k:occupancy, offline).
# Usage: bash watch_limits.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
T="$(mktemp -d)"
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stderr"; cat "$T/err" 2>/dev/null; exit 1; }
wait_for() { for _ in $(seq 400); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done; fail "no '$2' after 20 s"; }
# Each run stops at its launch, offline: "run stopped (needs a GPU ...)", the Nth time.
stopped() {
  for _ in $(seq 400); do
    [ "$(grep -c '^run stopped (needs a GPU' "$T/err" 2>/dev/null)" -ge "$1" ] && return 0
    sleep 0.05
  done
  fail "run $1 did not stop at its launch after 20 s"
}
unset WARPLAB_PROFILE
export WARPLAB_NO_DRIVER=1 WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1
cd "$T" || exit 1

cat > light.cu <<'CU'
__global__ void BOUNDS k(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }
CU
# 64 live values: far more registers than the light kernel, fewer blocks per SM at 256.
cat > heavy.cu <<'CU'
__global__ void BOUNDS k(const float* in, float* out) {
  float v[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) v[i] = in[threadIdx.x + i * 64];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += v[i] * v[63 - i];
  out[threadIdx.x] = s;
}
CU
sed 's/BOUNDS //' light.cu > v1.cu
sed 's/BOUNDS/__launch_bounds__(256)/' light.cu > v2.cu
sed 's/BOUNDS/__launch_bounds__(256)/' heavy.cu > v3.cu
cat > s.lua <<'LUA'
local m = assert(cuda.compile("k.cu"))
m.k:launch(1, BLOCK, cuda.array("f32", 64 * 320), cuda.array("f32", 256))
LUA
sed 's/BLOCK/256/' s.lua > run.lua

# The expectation: each version's numbers from warplab's calculator, offline, same profile.
cat > calc.lua <<'LUA'
for _, f in ipairs{"v1.cu", "v2.cu", "v3.cu"} do
  local k = assert(cuda.compile(f)).k
  for _, block in ipairs{256, 128} do
    local o = k:occupancy{block = block}
    print(k.regs, k.max_threads, string.format("%.3g", 100 * o.occupancy), o.blocks_per_sm, o.limiter)
  end
end
LUA
"$W" --profile h200 run calc.lua > want 2>"$T/err" || fail "the offline calculation"
read -r _ max1 _ _ _ < <(sed -n 1p want)
read -r regs2 max2 occ2 blocks2 lim2 < <(sed -n 3p want)
read -r regs3 max3 occ3 blocks3 lim3 < <(sed -n 5p want)
read -r _ _ occ3s blocks3s lim3s < <(sed -n 6p want)
[ "$max1" = 1024 ] && [ "$max2" = 256 ] && [ "$max3" = 256 ] || fail "max threads $max1, $max2, $max3 (want 1024, 256, 256)"
[ "$occ2" != "$occ3" ] || fail "the heavier kernel does not move occupancy here ($occ2 %): the test cannot tell"
moved() { if [ "$1" = "$2" ]; then echo "$1"; else echo "$1→$2"; fi; }

cp v1.cu k.cu
"$W" --profile h200 watch run.lua >"$T/out" 2>"$T/err" &
WPID=$!
stopped 1
cp v2.cu k.cu
stopped 2
wait_for "$T/err" "^k\\(const float\\*, float\\*\\): max threads $max1→$max2 \\(__launch_bounds__\\), occupancy $occ2 % at block 256 \\(same: $blocks2 blocks/SM, limiter $lim2\\)$"
grep -q "code changed, same resources" "$T/err" && fail "a new launch bound called the same resources"
cp v3.cu k.cu
stopped 3
wait_for "$T/err" "^k\\(const float\\*, float\\*\\): regs $regs2→$regs3, .*occupancy $occ2 %→$occ3 % at block 256 \\($blocks2→$blocks3 blocks/SM, limiter $(moved "$lim2" "$lim3")\\)$"
# The script's block size alone: the same code, its occupancy at the new block.
sed 's/BLOCK/128/' s.lua > run.lua
stopped 4
wait_for "$T/err" "^k\\(const float\\*, float\\*\\): occupancy $(moved "$occ3 %" "$occ3s %") at block 256→128 \\($(moved "$blocks3" "$blocks3s") blocks/SM, limiter $(moved "$lim3" "$lim3s")\\)$"
kill -INT $WPID; wait $WPID; WPID=""
echo "watch_limits: ok (max threads $max1 -> $max2; occupancy $occ2 % -> $occ3 % at block 256, $occ3s % at 128)"
