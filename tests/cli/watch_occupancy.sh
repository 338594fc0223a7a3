#!/usr/bin/env bash
# watch_occupancy.sh: after a good re-run `warplab watch` prints, per changed kernel, one
# line of its resources old -> new and its occupancy at the block size the run last
# launched it with (blocks per SM and the limiter, old -> new); without --diff, and with no
# PTX diff. The launch path runs through the stand-in driver (build/fake_driver/libcuda.so.1:
# launches run nothing, the block is recorded all the same). The expected occupancies come
# from warplab's own calculator on the same device's attributes (captured with `attrs
# --json`, then k:occupancy offline).
# Usage: bash watch_occupancy.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
LIB="$(dirname "$W")/fake_driver"
[ -f "$LIB/libcuda.so.1" ] || { echo "skipped: no $LIB/libcuda.so.1 (target warplab_fake_driver)"; exit 77; }
T="$(mktemp -d)"
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stderr"; cat "$T/err" 2>/dev/null; exit 1; }
wait_for() { for _ in $(seq 200); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done; fail "no '$2' after 10 s"; }
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
export WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1
cd "$T" || exit 1

# 64 live values: far more than 64 registers uncapped, 32 under the cap.
cat > b.cu <<'CU'
__global__ void big(const float* in, float* out) {
  float v[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) v[i] = in[threadIdx.x + i * 64];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += v[i] * v[63 - i];
  out[threadIdx.x] = s * SCALE;
}
CU
cat > s.lua <<'LUA'
local m = assert(cuda.compile{file = "b.cu", max_registers = CAP, defines = {SCALE = "1"}})
local a, b = cuda.array("f32", 64 * 320), cuda.array("f32", 256)
m.big:launch(1, 256, a, b)
LUA
sed 's/CAP/255/' s.lua > run.lua

# The expectation: the same device's profile, offline, warplab's calculator per cap.
LD_LIBRARY_PATH="$LIB" "$W" attrs --json > fake.json || fail "attrs --json through the fake driver"
cat > calc.lua <<'LUA'
for _, cap in ipairs{255, 32} do
  local k = assert(cuda.compile{file = "b.cu", max_registers = cap, defines = {SCALE = "1"}}).big
  local o = k:occupancy{block = 256}
  print(k.regs, string.format("%.3g", 100 * o.occupancy), o.blocks_per_sm, o.limiter)
end
LUA
WARPLAB_NO_DRIVER=1 "$W" --profile fake.json run calc.lua > want 2>"$T/err" || fail "the offline calculation"
read -r regs_a occ_a blocks_a lim_a < <(sed -n 1p want)
read -r regs_b occ_b blocks_b lim_b < <(sed -n 2p want)
[ "$lim_a" = "$lim_b" ] && limiter="$lim_b" || limiter="$lim_a→$lim_b"
[ "$occ_a" != "$occ_b" ] || fail "the cap does not move occupancy here ($occ_a %): the test cannot tell"

export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$W" watch run.lua >"$T/out" 2>"$T/err" &
WPID=$!
wait_for "$T/err" 'run 1 ok'
sed 's/CAP/32/' s.lua > run.lua
wait_for "$T/err" 'run 2 ok'
wait_for "$T/err" "^big\\(const float\\*, float\\*\\): regs $regs_a→$regs_b, .*occupancy $occ_a %→$occ_b % at block 256 \\($blocks_a→$blocks_b blocks/SM, limiter $limiter\\)$"
# The same resources with other code: said in a word, without --diff no PTX.
sed -e 's/CAP/32/' -e 's/SCALE = "1"/SCALE = "2"/' s.lua > run.lua
wait_for "$T/err" 'run 3 ok'
wait_for "$T/err" '^big\(const float\*, float\*\): code changed, same resources$'
grep -q "PTX of" "$T/err" && fail "a PTX diff without --diff"
kill -INT $WPID; wait $WPID; WPID=""
echo "watch_occupancy: ok ($occ_a % -> $occ_b % at block 256)"
