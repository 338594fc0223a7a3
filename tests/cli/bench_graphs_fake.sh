#!/usr/bin/env bash
# bench_graphs_fake.sh: the graphs bench's raw C++ program (bench/graphs_raw.cpp,
# warplab_bench_graphs) with no GPU: through the stand-in driver (bench/fake_driver.cpp,
# which runs nothing) every path it takes on the GPU runs (stream launches, capture,
# instantiate, replay, update in place, and capture + instantiate and capture + update each
# timed in one window, the destroy of a captured graph) and it prints, for each size asked
# for, the ten records bench/report.py reads, each a number; without a driver it says
# "skipped: no GPU" and exits 77; a missing source file is exit 1 and bad arguments exit 2,
# each with a line.
# Usage: bash bench_graphs_fake.sh <warplab binary> <source root>
set -u
W="$1"; SRC="$2"
BUILD="$(cd "$(dirname "$W")" && pwd)"
B="$BUILD/warplab_bench_graphs"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" | tail -n 40; exit 1; }
[ -x "$B" ] || { echo "skipped: no $B (target warplab_bench_graphs)"; exit 77; }
[ -f "$BUILD/fake_driver/libcuda.so.1" ] || { echo "skipped: no stand-in driver (target warplab_fake_driver)"; exit 77; }
export WARPLAB_CACHE_DIR="$T/cache"

env -u WARPLAB_NO_DRIVER LD_LIBRARY_PATH="$BUILD/fake_driver" "$B" "$SRC/bench/launch_kernels.cu" 1 1,10 \
  >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "stand-in driver: exit $rc"
for n in 1 10; do
  for rec in "graphs	raw C++ stream launches" "graphs	raw C++ graph replay" \
             "graphs-host	raw C++ stream launches" "graphs-host	raw C++ graph replay" \
             "graphs-build	raw C++ capture" "graphs-build	raw C++ instantiate" "graphs-build	raw C++ update" \
             "graphs-build	raw C++ destroy" \
             "graphs-build	raw C++ capture + instantiate, one window" \
             "graphs-build	raw C++ capture + update, one window"; do
    hits=$(awk -F'\t' -v want="@	$rec	$n kernels" '$1 "\t" $2 "\t" $3 "\t" $4 == want && $5 ~ /^[0-9]+\.[0-9][0-9][0-9][0-9]$/' "$T/out" | wc -l)
    [ "$hits" -eq 1 ] || fail "not one record '$rec' for $n kernels with a number"
  done
done
[ "$(grep -c . "$T/out")" -eq 20 ] || fail "other lines than the 20 records"

WARPLAB_NO_DRIVER=1 "$B" "$SRC/bench/launch_kernels.cu" >"$T/out" 2>&1; rc=$?
[ $rc -eq 77 ] || fail "no driver: exit $rc, not 77"
grep -qx "skipped: no GPU" "$T/out" || fail "no driver: no 'skipped: no GPU' line"

env -u WARPLAB_NO_DRIVER LD_LIBRARY_PATH="$BUILD/fake_driver" "$B" "$T/missing.cu" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "missing source: exit $rc, not 1"
grep -q "^graphs_raw: cannot read .*missing.cu$" "$T/out" || fail "missing source: no sentence"

"$B" >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "no arguments: exit $rc, not 2"
grep -q "^usage: warplab_bench_graphs " "$T/out" || fail "no arguments: no usage line"
"$B" "$SRC/bench/launch_kernels.cu" 5 "x,0" >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "bad sizes: exit $rc, not 2"
grep -q "sizes must be positive integers" "$T/out" || fail "bad sizes: no sentence"
echo "bench_graphs_fake: ok"
