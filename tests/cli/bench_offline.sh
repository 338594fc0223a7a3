#!/usr/bin/env bash
# bench_offline.sh: scripts/bench with no GPU: every section it is asked for prints its
# table or a "skipped: no GPU" row and the run exits 0; the host section measures the
# launch path through the stand-in driver (both call forms, 0/2/4 arguments); without
# python3 the peers are skipped rows, not failures; an unknown section is exit 2; the
# python helpers compile. Small counts (R=1, few batches) keep it to seconds.
# Usage: bash bench_offline.sh <warplab binary> <source root>
set -u
W="$1"; SRC="$2"
BUILD="$(cd "$(dirname "$W")" && pwd)"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" | tail -n 40; exit 1; }
export WARPLAB_NO_DRIVER=1 R=1 BATCHES=5 BATCH=8 SUSTAINED=100 NO_COLOR=1

for f in peers proc_stats report reduce_peers; do  # compiled in memory: no __pycache__ in the tree
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
grep -q "^| warplab attrs (GPU) | skipped: no GPU |" "$T/out" || fail "startup: attrs on the GPU not skipped"
grep -q "^target warplab attrs offline: " "$T/out" || fail "no target line for attrs"
if [ -f "$BUILD/fake_driver/libcuda.so.1" ]; then
  for row in "raw C++ cuLaunchKernel" "warplab k:launch(...)" "warplab k{...}"; do
    grep -qF "| $row | " "$T/out" || fail "host: no row '$row'"
  done
  grep -A4 "^| host | 0 args | 2 args | 4 args |" "$T/out" | grep -qE '^\| warplab k\{\.\.\.\} \| [0-9.]+ .*\| [0-9.]+ .*\| [0-9.]+ ' ||
    fail "host: the table form has no figures"
fi

# No python: the peers and the tables degrade to skip rows and raw records, exit 0.
PYTHON=/nonexistent/python3 "$SRC/scripts/bench" "$BUILD" startup compile >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "without python: exit $rc"
grep -q "no /nonexistent/python3" "$T/out" || fail "without python: no skip naming it"

"$SRC/scripts/bench" "$BUILD" nonsense >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unknown section: exit $rc, want 2"
grep -q "unknown section 'nonsense'" "$T/out" || fail "unknown section: no message"
echo "bench_offline: all passed"
