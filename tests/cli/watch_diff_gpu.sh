#!/usr/bin/env bash
# watch_diff_gpu.sh: `warplab watch --diff` on a real GPU. A script launches a kernel with
# 64 live values at 256 threads; capping its registers gives the line "regs A→B, ...,
# occupancy X %→Y % at block 256 (N→M blocks/SM, limiter LIMIT)", with each number from the
# same GPU (k.regs and k:occupancy in a plain run); changing one constant gives a unified SASS diff
# (cuobjdump or nvdisasm, required here) and a PTX diff. Prints what the watcher said.
# Skips (77) without a GPU.
set -u
W="$1"
T="$(mktemp -d)"
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- watch stderr"; cat "$T/err" 2>/dev/null; exit 1; }
wait_for() {  # FILE REGEX: poll for up to 30 s (the first compile and context take a while)
  for _ in $(seq 600); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no '$2' in $(basename "$1") after 30 s"
}
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache"
echo 'print(cuda.device().live)' > "$T/probe.lua"
[ "$("$W" -q run "$T/probe.lua" 2>/dev/null)" = "true" ] || { echo "skip: no GPU"; exit 77; }
cd "$T" || exit 1

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
local m = assert(cuda.compile{file = "b.cu", max_registers = CAP, defines = {SCALE = "SC"}})
local a, b = cuda.array("f32", 64 * 320):fill(1), cuda.array("f32", 256)
m.big:launch(1, 256, a, b)
cuda.synchronize()
print("out[1] = " .. b[1])
LUA
# The expectation, from this GPU: the kernel's registers and occupancy at each cap.
cat > calc.lua <<'LUA'
for _, cap in ipairs{255, 32} do
  local k = assert(cuda.compile{file = "b.cu", max_registers = cap, defines = {SCALE = "1"}}).big
  local o = k:occupancy{block = 256}
  print(k.regs, string.format("%.3g", 100 * o.occupancy), o.blocks_per_sm, o.limiter)
end
LUA
"$W" -q run calc.lua > want 2>"$T/err" || fail "the expectation run"
read -r regs_a occ_a blocks_a lim_a < <(sed -n 1p want)
read -r regs_b occ_b blocks_b lim_b < <(sed -n 2p want)
[ "$lim_a" = "$lim_b" ] && limiter="$lim_b" || limiter="$lim_a→$lim_b"
[ "$occ_a" != "$occ_b" ] || fail "the cap does not move occupancy on this GPU ($occ_a %): the test cannot tell"

sed -e 's/CAP/255/' -e 's/SC"/1"/' s.lua > run.lua
"$W" watch --diff run.lua >"$T/out" 2>"$T/err" &
WPID=$!
wait_for "$T/err" 'run 1 ok'
wait_for "$T/out" '^out\[1\] = 64(\.0)?$'
sed -e 's/CAP/32/' -e 's/SC"/1"/' s.lua > run.lua
wait_for "$T/err" 'run 2 ok'
wait_for "$T/err" "^big\\(const float\\*, float\\*\\): regs $regs_a→$regs_b, .*occupancy $occ_a %→$occ_b % at block 256 \\($blocks_a→$blocks_b blocks/SM, limiter $limiter\\)$"
sed -e 's/CAP/32/' -e 's/SC"/2"/' s.lua > run.lua
wait_for "$T/err" 'run 3 ok'
wait_for "$T/out" '^out\[1\] = 128(\.0)?$'
if grep -q "neither cuobjdump nor nvdisasm found" "$T/err"; then
  fail "no cuobjdump or nvdisasm on this machine: the SASS diff cannot be shown"
fi
wait_for "$T/err" '^SASS of big\(const float\*, float\*\) changed:$'
wait_for "$T/err" '^PTX of big\(const float\*, float\*\) changed:$'
grep -Eq '^@@ -[0-9]+,[0-9]+ \+[0-9]+,[0-9]+ @@$' "$T/err" || fail "no hunk header"
kill -INT $WPID; wait $WPID; WPID=""
echo "--- what watch said (stderr)"
cat "$T/err"
echo "watch_diff_gpu: ok (regs $regs_a -> $regs_b, occupancy $occ_a % -> $occ_b % at block 256)"
