#!/usr/bin/env bash
# occupancy.sh: `warplab occupancy FILE.cu` offline. Kernels whose answer does not hang on
# the registers NVRTC gives them (48 KiB of static shared memory; a one-warp block) give
# known blocks per SM and limits on h100, a100 and rtx4090, in the text (one size: a row
# per limit, the limit marked; several: a sweep) and in --json, which python3 parses; the
# same kernels through a Lua script's k:occupancy give the same numbers, field by field;
# a sweep stops at the kernel's own cap; compile --json's max_threads is k.max_threads.
# Usage: bash occupancy.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache" XDG_STATE_HOME="$T/state"
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cd "$T" || exit 1

cat >occ.cu <<'CU'
// occ.cu: kernels whose occupancy is set by shared memory, block slots and launch bounds.
// Shows:  tile: 48 KiB of static shared memory per block; tiny: a one-warp block;
//         capped: __launch_bounds__(256).
// Expect: on h100, tile at 256 threads: 4 blocks per SM, limited by shared memory.
__global__ void tile(float* out) {
  __shared__ float s[12288];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[255 - threadIdx.x % 256];
}
__global__ void tiny(int* p) { p[threadIdx.x] = threadIdx.x; }
__global__ void __launch_bounds__(256) capped(int* p) { p[threadIdx.x] = 2 * threadIdx.x; }
CU

# run WANT_EXIT ARGS...: warplab occupancy ARGS, stdout in out, stderr in err.
run() {
  local want=$1
  shift
  "$BIN" occupancy "$@" >out 2>err
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "occupancy $*: exit $rc, want $want: $(head -c 400 err)"
}
has() { grep -qF -- "$1" out || fail "occupancy $2: no '$1' in: $(head -c 1500 out)"; }

# One size, h100 (the default offline, with the one note): the answer and each limit's row.
run 0 occ.cu --kernel tile --block 256
grep -qF "no GPU (WARPLAB_NO_DRIVER is set): using profile h100" err || fail "no offline note: $(cat err)"
has "occ.cu on profile h100: NVIDIA H100" "tile 256"
has "tile(float*)  [" "tile 256"
has "48 KiB static shared" "tile 256"
has "block 256 (8 warps), 0 B dynamic shared: 4 blocks per SM, 32 of 64 warps (50%), limited by shared memory" \
  "tile 256"
grep -qE '^    shared memory +4  49 KiB +228 KiB +<- limit$' out || fail "tile 256: shared memory row: $(cat out)"
grep -qE '^    warps +8  8 warps +64 warps *$' out || fail "tile 256: warps row: $(cat out)"
grep -qE '^    blocks +32  1 +32 *$' out || fail "tile 256: blocks row: $(cat out)"
[ "$(grep -c '<- limit' out)" -eq 1 ] || fail "tile 256: not one limit marked: $(cat out)"
grep -qF "tiny" out && fail "--kernel tile also printed tiny"

# Other GPUs: a100 (164 KiB of shared memory per SM: 3 blocks), rtx4090 (100 KiB: 2 of 48 warps).
run 0 occ.cu --kernel tile --block 256 --profile a100,rtx4090
has "occ.cu on profile a100: NVIDIA A100" "a100"
has "3 blocks per SM, 24 of 64 warps (38%), limited by shared memory" "a100"
has "occ.cu on profile rtx4090: NVIDIA GeForce RTX 4090" "rtx4090"
has "2 blocks per SM, 16 of 48 warps (33%), limited by shared memory" "rtx4090"
[ ! -s err ] || fail "--profile: a note on stderr: $(cat err)"
# The global --profile, before the command, takes a list too.
"$BIN" --profile a100,h100 occupancy occ.cu --kernel tiny --block 32 >out 2>err || fail "global --profile list"
has "tiny(int*)" "global list"
[ "$(grep -c 'limited by blocks' out)" -eq 2 ] || fail "tiny 32: limited by blocks twice: $(cat out)"

# A sweep: every kernel, a row per size, the limit per row; the cap ends the default sweep.
run 0 occ.cu --block 64..256:64 --shared 1K
[ "$(grep -cE '^ +(64|128|192|256) +[0-9]+ ' out)" -eq 12 ] || fail "sweep: not 4 rows x 3 kernels: $(cat out)"
has "1 KiB dynamic shared per block" "sweep"
# The right-hand columns say what they count, in a caption whose bar is over theirs.
python3 - out <<'PY' || fail "sweep: no caption over the limits' columns: $(cat out)"
import sys
lines = open(sys.argv[1]).read().split("\n")
heads = [i for i, l in enumerate(lines) if l.lstrip().startswith("block  warps")]
assert len(heads) == 3, heads
for i in heads:
    cap = lines[i - 1]
    assert cap.strip() == "|  blocks per SM each limit allows", cap
    assert cap.index("|") == lines[i].index("|") == lines[i + 1].index("|"), (cap, lines[i], lines[i + 1])
PY
run 0 occ.cu --kernel capped
last=$(grep -E '^ +[0-9]+ +[0-9]+ +[0-9]+ ' out | tail -1 | awk '{print $1}')
[ "$last" = 256 ] || fail "capped: the default sweep ends at $last, not at its launch bounds (256): $(cat out)"
grep -qF "max 256 threads" out || fail "capped: no 'max 256 threads': $(cat out)"
run 0 occ.cu --kernel tiny
[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ ' out)" -eq 17 ] || fail "tiny: the default sweep is not 32, 64, ..., 1024"

# --json: parsed, the same numbers (with 2 KiB more per block, rtx4090's 100 KiB holds one
# tile); and the same as k:occupancy in a script, per profile.
run 0 occ.cu --block 32,256,1024 --shared 2K --profile h100,a100,rtx4090 --json
python3 -c 'import json,sys; json.load(open("out"))' || fail "--json does not parse: $(head -c 300 out)"
python3 - <<'PY' >json.txt || fail "--json: its numbers: $(cat json.txt)"
import json
j = json.load(open("out"))
want = {("profile h100", "tile", 256): (4, "shared memory"), ("profile a100", "tile", 256): (3, "shared memory"),
        ("profile rtx4090", "tile", 256): (1, "shared memory"), ("profile h100", "tiny", 32): (32, "blocks"),
        ("profile rtx4090", "tiny", 32): (24, "blocks"), ("profile h100", "capped", 1024): (0, "warps")}
seen = set()
for t in j["targets"]:
    for k in t["kernels"]:
        for r in k["rows"]:
            key = (t["source"], k["name"], r["block"])
            if key in want:
                assert (r["blocks_per_sm"], r["limiter"]) == want[key], (key, r)
                seen.add(key)
            print(t["source"].split()[-1], k["name"], r["block"], r["blocks_per_sm"], r["warps_per_block"],
                  r["active_warps"], r["max_warps"], "%.6f" % r["occupancy"], r["limiter"].replace(" ", "_"),
                  r["by_warps"], r["by_registers"], r["by_shared"], r["by_blocks"], r["by_barriers"],
                  r["regs_per_block"], r["shared_per_block"], r["shared_per_sm"], k["regs"], k["max_threads"])
assert seen == set(want), set(want) - seen
PY
sort -o json.txt json.txt
cat >same.lua <<'LUA'
-- same.lua: k:occupancy of occ.cu's kernels, the fields occupancy --json prints, one line each.
local m = assert(cuda.compile("occ.cu"))
local profile = arg[1]
for _, name in ipairs({"tile", "tiny", "capped"}) do
  local k = m[name]
  for _, block in ipairs({32, 256, 1024}) do
    local o = k:occupancy{block = block, shared = 2048}
    local function n(v) return v == nil and "None" or tostring(v) end
    print(profile, name, block, o.blocks_per_sm, o.warps_per_block, o.active_warps, o.max_warps,
          string.format("%.6f", o.occupancy), (o.limiter:gsub(" ", "_")), n(o.by_warps), n(o.by_registers),
          n(o.by_shared), n(o.by_blocks), n(o.by_barriers), o.regs_per_block, o.shared_per_block, o.shared_per_sm,
          k.regs, k.max_threads)
  end
end
LUA
for p in h100 a100 rtx4090; do
  "$BIN" --profile "$p" run same.lua -- "$p" 2>>err || fail "same.lua on $p: $(cat err)"
done | tr '\t' ' ' | sort >lua.txt
[ "$(wc -l <lua.txt)" -eq 27 ] || fail "k:occupancy: $(wc -l <lua.txt) lines, want 27: $(cat lua.txt)"
diff lua.txt json.txt >diff.txt || fail "occupancy --json differs from k:occupancy: $(cat diff.txt)"

# compile --json: max_threads is what k.max_threads says (launch bounds, then registers);
# launch_bounds is the declared cap alone; the table shows the same number.
"$BIN" compile occ.cu --arch sm_90 --json >out 2>err || fail "compile --json: $(cat err)"
python3 - <<'PY' || fail "compile --json: max_threads: $(cat out)"
import json
k = {x["name"]: x for x in json.load(open("out"))["kernels"]}
assert k["tiny"]["max_threads"] == 1024 and k["tiny"]["launch_bounds"] is None, k["tiny"]
assert k["capped"]["max_threads"] == 256 and k["capped"]["launch_bounds"] == 256, k["capped"]
PY
"$BIN" compile occ.cu --arch sm_90 >out 2>err || fail "compile: $(cat err)"
grep -qE '^capped\(int\*\) .* 256$' out || fail "compile: capped's row does not end in 256: $(cat out)"
grep -qE '^ *kernel .* max threads$' out || fail "compile: no max threads column: $(cat out)"
"$BIN" compile occ.cu --arch compute_90 --json >out 2>err || fail "compile compute_90 --json"
python3 -c 'import json; assert all(k["max_threads"] is None for k in json.load(open("out"))["kernels"])' ||
  fail "compile compute_90 --json: max_threads is not null (no registers, no answer)"

exit $((failures > 0))
