#!/usr/bin/env bash
# occupancy_gpu.sh: `warplab occupancy` on a real GPU (skips with 77 where there is none):
# the live device is the target (no offline note), each row carries the driver's blocks
# per SM beside warplab's, and they agree over a sweep of every kernel of a file with
# dynamic shared memory; the text shows the driver's line.
# Usage: bash occupancy_gpu.sh <warplab binary> <source root>
set -u
BIN=$1 ROOT=$2
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT
export WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1
echo 'io.write(tostring(cuda.device().live))' >"$T/probe.lua"
[ "$("$BIN" -q run "$T/probe.lua" 2>/dev/null)" = "true" ] || { echo "skip: no GPU"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for shared in 0 20000; do
  "$BIN" occupancy "$ROOT/kernels_src/reductions/ladder.cu" --block 32..1024 --shared "$shared" --json \
    >"$T/out" 2>"$T/err" || fail "occupancy --json (shared $shared): exit $?: $(cat "$T/err")"
  [ ! -s "$T/err" ] || fail "occupancy on a GPU printed on stderr: $(cat "$T/err")"
  python3 - "$T/out" <<'PY' || fail "occupancy --json (shared $shared): warplab and the driver differ"
import json, sys
j = json.load(open(sys.argv[1]))
t = j["targets"][0]
assert t["live"] and t["source"].startswith("device "), t["source"]
rows = bad = 0
for k in t["kernels"]:
    for r in k["rows"]:
        rows += 1
        if r["driver_blocks_per_sm"] is not None and r["driver_blocks_per_sm"] != r["blocks_per_sm"]:
            bad += 1
            print("differ:", k["name"], r)
        if r["driver_blocks_per_sm"] is None and r["blocks_per_sm"] != 0:
            bad += 1
            print("no driver answer:", k["name"], r)
print(rows, "rows compared")
assert rows >= 32 and bad == 0
PY
done
"$BIN" occupancy "$ROOT/kernels_src/reductions/ladder.cu" --kernel reduce_shuffle --block 256 >"$T/out" 2>&1 ||
  fail "occupancy --block 256: $(cat "$T/out")"
grep -qE '^  driver: [0-9]+ blocks? per SM$' "$T/out" || fail "no driver line: $(cat "$T/out")"

exit $((failures > 0))
