#!/usr/bin/env bash
# bench_offline.sh: scripts/bench with no GPU: every section it is asked for prints its
# table or a "skipped: no GPU" row, its time ("(launch took N s)") and the run its total,
# and exits 0; the host section measures the launch path through the stand-in driver (both
# call forms, 0/2/4 arguments); through the stand-in driver the GPU side of every section
# runs too (launch, compile, watch, reduction: the bench's own logic, the figures
# meaningless); with BENCH_BUDGET spent every section is a "skipped: time budget" row;
# without python3 the peers are skipped rows, not failures; an unknown section is exit 2;
# the python helpers compile. Small counts (R=1 or 2, few batches) keep it to seconds.
# Usage: bash bench_offline.sh <warplab binary> <source root>
set -u
W="$1"; SRC="$2"
BUILD="$(cd "$(dirname "$W")" && pwd)"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" | tail -n 40; exit 1; }
export WARPLAB_NO_DRIVER=1 R=1 BATCHES=5 BATCH=8 SUSTAINED=100 NO_COLOR=1

for f in peers proc_stats report reduce_peers watch_latency; do  # compiled in memory: no __pycache__ in the tree
  python3 -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' "$SRC/bench/$f.py" 2>"$T/out" ||
    fail "bench/$f.py does not compile"
done

"$SRC/scripts/bench" "$BUILD" launch compile startup host >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "exit $rc"
grep -q "^# warplab bench: .*\[profile " "$T/out" || fail "no device stamp"
grep -qE "^# [0-9]{4}-[0-9]{2}-[0-9]{2} .*, commit [^ ]+, warplab " "$T/out" || fail "no date/commit stamp"
grep -q "^| raw C++ cuLaunchKernel | skipped: no GPU |" "$T/out" || fail "launch: no skipped row for raw C++"
grep -q "^| CuPy RawKernel | skipped: no GPU |" "$T/out" || fail "launch: no skipped row for CuPy"
grep -qE "^\| warplab \| [0-9.]+ \([0-9.]+–[0-9.]+\)|^\| warplab \| [0-9.]+ \|" "$T/out" || fail "compile: no warplab row"
grep -q "^| warplab attrs (offline) | " "$T/out" || fail "startup: no attrs row"
grep -qE "^\| warplab run, a script without the GPU \| [0-9.]+" "$T/out" || fail "startup: no row for a GPU-less run"
grep -q "^| warplab run, context + array | skipped: no GPU |" "$T/out" || fail "startup: context + array not skipped"
grep -qE "^target warplab --version: [0-9.]+ ms wall \(≤ 20: (met|NOT met)\)$" "$T/out" || fail "no target line for --version"
grep -q "^| warplab attrs (GPU) | skipped: no GPU |" "$T/out" || fail "startup: attrs on the GPU not skipped"
grep -q "^target warplab attrs offline: " "$T/out" || fail "no target line for attrs"
for sec in launch compile startup host; do
  grep -qE "^\($sec took [0-9]+ s\)$" "$T/out" || fail "no '($sec took N s)' line"
done
grep -qE "^\(bench took [0-9]+ s; BENCH_BUDGET=540 s\)$" "$T/out" || fail "no total line"
if [ -f "$BUILD/fake_driver/libcuda.so.1" ]; then
  for row in "raw C++ cuLaunchKernel" "warplab k:launch(...)" "warplab k{...}"; do
    grep -qF "| $row | " "$T/out" || fail "host: no row '$row'"
  done
  grep -A4 "^| host | 0 args | 2 args | 4 args |" "$T/out" | grep -qE '^\| warplab k\{\.\.\.\} \| [0-9.]+ .*\| [0-9.]+ .*\| [0-9.]+ ' ||
    fail "host: the table form has no figures"
fi

# The time budget spent before the first section: every section a skip row, still exit 0.
BENCH_BUDGET=0 "$SRC/scripts/bench" "$BUILD" launch compile startup watch reduction >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "BENCH_BUDGET=0: exit $rc"
[ "$(grep -cE "^skipped: time budget \([0-9]+ s spent of BENCH_BUDGET=0 s\)$" "$T/out")" -eq 5 ] ||
  fail "BENCH_BUDGET=0: not five 'skipped: time budget' rows"
grep -q "^# warplab bench: .*\[profile " "$T/out" || fail "BENCH_BUDGET=0: no device stamp"

# The GPU side of the sections through the stand-in driver: two runs a figure, the Python
# peers skipped (or run, where CuPy is installed), a watch with 2 edits of each kind (the
# stand-in runs no kernel: their feedback is the resource line, as offline), the reduction.
if [ -f "$BUILD/fake_driver/libcuda.so.1" ]; then
  env -u WARPLAB_NO_DRIVER LD_LIBRARY_PATH="$BUILD/fake_driver" R=2 RN=4096 WATCH_EDITS=2 \
    "$SRC/scripts/bench" "$BUILD" launch compile watch reduction >"$T/out" 2>&1; rc=$?
  [ $rc -eq 0 ] || fail "stand-in driver: exit $rc"
  grep -q "^# warplab bench: warplab fake driver" "$T/out" || fail "stand-in driver: not live"
  grep -qE '^\| warplab k\{\.\.\.\} \| [0-9.]+ \([0-9.]+–[0-9.]+\) ×' "$T/out" ||
    fail "stand-in driver: no launch figures for k{...} over 2 runs"
  grep -qE '^\| CuPy RawKernel \| (skipped: |[0-9.]+ )' "$T/out" || fail "stand-in driver: no CuPy row"
  grep -qE '^\| warplab \| [0-9.]+ .*\| [0-9.]+ .*\| [0-9.]+ .*\| [0-9.]+ .*\| [0-9.]+ ' "$T/out" ||
    fail "stand-in driver: compile row lacks the first-launch and context figures"
  grep -qE "^\| script edit \| [0-9.]+ \([0-9.]+–[0-9.]+\) \| [0-9.]+ " "$T/out" ||
    fail "stand-in driver: no two script edits timed to their output line and re-run"
  for row in "plain kernel edit" "cooperative-groups kernel edit"; do
    grep -qE "^\| $row \|  \| [0-9.]+ .*\| [0-9.]+ \([0-9.]+–[0-9.]+\) \|$" "$T/out" ||
      fail "stand-in driver: no '$row' row timed to its resource line"
  done
  grep -q "^watch targets: need a GPU" "$T/out" || fail "stand-in driver: watch targets judged without a GPU"
  grep -qE "^warplab +[0-9.]+ +[0-9.]+ " "$T/out" || fail "stand-in driver: no reduction row"
  for sec in launch compile watch reduction; do
    grep -qE "^\($sec took [0-9]+ s\)$" "$T/out" || fail "stand-in driver: no '($sec took N s)' line"
  done
fi

# No python: the peers and the tables degrade to skip rows and raw records, exit 0.
PYTHON=/nonexistent/python3 "$SRC/scripts/bench" "$BUILD" startup compile >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "without python: exit $rc"
grep -q "no /nonexistent/python3" "$T/out" || fail "without python: no skip naming it"

"$SRC/scripts/bench" "$BUILD" nonsense >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unknown section: exit $rc, want 2"
grep -q "unknown section 'nonsense'" "$T/out" || fail "unknown section: no message"
echo "bench_offline: all passed"
