#!/usr/bin/env bash
# reduce_sweep_offline.sh: bench/reduce_sweep.lua and scripts/reduce-sweep with no GPU.
# The sweep's kernels (reductions/tuning.cu) are the PTX of reduce_last_block and
# reduce_vec4 for the default knobs and for named configurations (the new layout, load,
# finish and launch-bounds knobs among them), a tuning.cu that drifts from them stops the
# sweep, names it cannot read are one sentence, and offline it says it needs a GPU and
# exits 0. Through the stand-in driver the wrapper runs every step and writes its files.
# Usage: bash reduce_sweep_offline.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
cd "$ROOT" || exit 1
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/err" "$T/out" 2>/dev/null | tail -n 20; failures=$((failures + 1)); }
S=bench/reduce_sweep.lua

for prof in h100 h200; do
  "$BIN" --profile "$prof" run "$S" >"$T/out" 2>"$T/err"; rc=$?
  [ $rc -eq 0 ] || fail "offline on $prof: exit $rc"
  grep -qE '^skipped: no GPU \(cuda.bench needs a GPU\); stage 1 would time [0-9]+ configurations x 4 grids$' "$T/out" ||
    fail "offline on $prof: no skip line"
  grep -q 'tuning.cu has the code of reduce_last_block and reduce_vec4' "$T/err" || fail "$prof: no same-code line"
done

# Named configurations: registers and occupancy, and the same code as the originals.
only=last-L2-U4-A2-ld4-b256-m8-f8-w5,two-L0-U8-A2-ld0-b512-m0-f1-w1,last-L1-U4-A4-ld1-b128-m16-f4-w2,bench-default
"$BIN" --profile h100 run "$S" -p only="$only" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] || fail "only=...: exit $rc"
grep -qE '^reduce_sweep: last-L2-U4-A2-ld4-b256-m8-f8-w5: ([0-9]|[12][0-9]|3[0-2]) regs, 8 blocks of 256 per SM, 0 B spilled; the same code as the originals$' "$T/err" ||
  fail "runs of tiles, evict-first loads, __launch_bounds__(256, 8): not 8 blocks per SM in <= 32 registers with the originals' code"
grep -qE '^reduce_sweep: two-L0-U8-A2-ld0-b512-m0-f1-w1: [0-9]+ regs, [0-9]+ blocks of 512 per SM, 0 B spilled; the same code as the originals$' "$T/err" ||
  fail "the two-launch configuration: no registers line with the originals' code"
grep -qE '^reduce_sweep: last-L1-U4-A4-ld1-b128-m16-f4-w2: [0-9]+ regs, 16 blocks of 128 per SM, .* the same code as the originals$' "$T/err" ||
  fail "blocks of 128 with __launch_bounds__(128, 16): not 16 per SM"
[ "$(grep -c 'the same code as the originals' "$T/err")" -eq 3 ] || fail "bench-default needs no code check; the others 3"

# A tuning.cu that is no longer the originals' code stops the sweep (cuda.compile looks in the
# current folder first).
mkdir -p "$T/cwd/reductions"
sed 's/out\[blockIdx.x\] = v;/out[blockIdx.x] = v + 1.0f;/' kernels_src/reductions/tuning.cu >"$T/cwd/reductions/tuning.cu"
cmp -s kernels_src/reductions/tuning.cu "$T/cwd/reductions/tuning.cu" && fail "the drifted copy is not different"
(cd "$T/cwd" && "$BIN" --profile h100 run "$ROOT/$S" >"$T/out" 2>"$T/err"); rc=$?
[ $rc -eq 1 ] || fail "a drifted tuning.cu: exit $rc, want 1"
grep -q 'reductions/tuning.cu no longer has the PTX of reduce_last_block and reduce_vec4' "$T/err" ||
  fail "a drifted tuning.cu: no sentence"

# Names it cannot read.
for bad in last-L2-U4-A2-ld3-b256-m0-f8 nope-L2-U4-A2-ld3-b256-m0-f8-w5 last-U4-L2-A2-ld3-b256-m0-f8-w5; do
  "$BIN" --profile h100 run "$S" -p only="$bad" >"$T/out" 2>"$T/err"; rc=$?
  [ $rc -eq 1 ] || fail "only=$bad: exit $rc, want 1"
  grep -qF "reduce_sweep: '$bad' is not a configuration name (e.g. last-L2-U4-A2-ld3-b256-m0-f8-w5)" "$T/err" ||
    fail "only=$bad: no sentence"
done
for bad in last-L2-U4-A3-ld3-b256-m0-f8-w5 last-L3-U4-A2-ld3-b256-m0-f8-w5 last-L2-U4-A2-ld3-b256-m0-f8-w11; do
  "$BIN" --profile h100 run "$S" -p only="$bad" >"$T/out" 2>"$T/err"; rc=$?
  [ $rc -eq 1 ] || fail "only=$bad: exit $rc, want 1"
  grep -qF "reduce_sweep: '$bad': layout 0..2, load 0..4, acc dividing unroll" "$T/err" || fail "only=$bad: no sentence"
done

# The wrapper: a missing build is exit 2 with a sentence; through the stand-in driver every
# step runs (figures meaningless) and the files are written. budget=0: no stage-1 builds.
scripts/reduce-sweep "$T/nothing" "$T/o0" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || fail "reduce-sweep without a build: exit $rc, want 2"
grep -q "reduce-sweep: no $T/nothing/warplab" "$T/err" || fail "reduce-sweep without a build: no sentence"
BUILD="$(dirname "$BIN")"
if [ -f "$BUILD/fake_driver/libcuda.so.1" ]; then
  env -u WARPLAB_NO_DRIVER LD_LIBRARY_PATH="$BUILD/fake_driver" RN=4096 SWEEP_ARGS="-p budget=0" PATH="/usr/bin:/bin" \
    scripts/reduce-sweep "$BUILD" "$T/o" >"$T/out" 2>"$T/err"; rc=$?
  [ $rc -eq 0 ] || fail "reduce-sweep through the stand-in driver: exit $rc"
  for f in summary.txt sweep.txt sweep.csv bench.txt; do [ -s "$T/o/$f" ] || fail "reduce-sweep: no $f"; done
  grep -q '^final: median of 5 rounds of 100 calls' "$T/o/summary.txt" || fail "reduce-sweep: no final table in the summary"
  grep -q '^bench-default ' "$T/o/summary.txt" || fail "reduce-sweep: no bench-default row"
  grep -q '^last-L2-U4-A1-ld0-b256-m0-f8-w5 ' "$T/o/summary.txt" || fail "reduce-sweep: no row for CUB's scheme"
  grep -q '^bench default (RP=""): ' "$T/o/summary.txt" || fail "reduce-sweep: no bench line for the default"
  grep -q '^ncu skipped: not on PATH' "$T/o/summary.txt" || fail "reduce-sweep: ncu not reported as missing"
  grep -qE '^\(reduce-sweep took [0-9]+ s; BUDGET=280 s\)$' "$T/o/summary.txt" || fail "reduce-sweep: no total line"
  head -n 1 "$T/o/sweep.csv" | grep -q '^stage,name,kind,layout,unroll,acc,load,block,min_blocks,finish,waves,grid,' ||
    fail "reduce-sweep: sweep.csv has no header"
fi

[ $failures -eq 0 ] && echo "reduce_sweep_offline: all passed"
[ $failures -eq 0 ]
