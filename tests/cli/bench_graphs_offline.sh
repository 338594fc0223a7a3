#!/usr/bin/env bash
# bench_graphs_offline.sh: the graphs section of scripts/bench with no GPU: offline every
# row is "skipped: no GPU" and the section still ends with its time, exit 0; through the
# stand-in driver (build/fake_driver/libcuda.so.1, which runs nothing) raw C++ and warplab
# give figures for each size (two runs: medians with their spread, ×raw ratios), the Python
# peers a row each (skipped where CuPy or cuda.core is missing), and the targets at 100
# kernels are checked and printed (the build targets against both raw baselines);
# bench/graphs_peers.py compiles. Small sizes keep it short.
# Usage: bash bench_graphs_offline.sh <warplab binary> <source root>
set -u
W="$1"; SRC="$2"
BUILD="$(cd "$(dirname "$W")" && pwd)"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" | tail -n 40; exit 1; }
export WARPLAB_NO_DRIVER=1 R=1 NO_COLOR=1 GSIZES=10,100

python3 -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' "$SRC/bench/graphs_peers.py" \
  2>"$T/out" || fail "bench/graphs_peers.py does not compile"

"$SRC/scripts/bench" "$BUILD" graphs >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "offline: exit $rc"
for row in "raw C++ graph replay" "warplab graph replay" "CuPy graph replay" "cuda.core graph replay"; do
  grep -qF "| $row | skipped: no GPU |" "$T/out" || fail "offline: no skipped row '$row'"
done
grep -qE "^\(graphs took [0-9]+ s\)$" "$T/out" || fail "offline: no '(graphs took N s)' line"

[ -f "$BUILD/fake_driver/libcuda.so.1" ] || { echo "bench_graphs_offline: offline part passed (no stand-in driver)"; exit 0; }
env -u WARPLAB_NO_DRIVER LD_LIBRARY_PATH="$BUILD/fake_driver" R=2 "$SRC/scripts/bench" "$BUILD" graphs >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "stand-in driver: exit $rc"
grep -q "^| graphs | 10 kernels | 100 kernels |" "$T/out" || fail "stand-in driver: no graphs table for 10 and 100 kernels"
num='[0-9.e+-]+ \([0-9.e+-]+–[0-9.e+-]+\)'
for row in "raw C\+\+ stream launches" "raw C\+\+ graph replay"; do
  grep -qE "^\| $row \| $num \| $num \|$" "$T/out" || fail "stand-in driver: no figures for '$row'"
done
for row in "warplab stream launches" "warplab graph replay"; do
  grep -qE "^\| $row \| $num ×[0-9.]+ \| $num ×[0-9.]+ \|$" "$T/out" || fail "stand-in driver: no figures and ratios for '$row'"
done
grep -qE "^\| warplab cuda.graph \(capture \+ instantiate\) \| $num ×[0-9.]+ \|" "$T/out" ||
  fail "stand-in driver: no build row for cuda.graph with its ratio"
grep -qE "^\| warplab g:update \(capture \+ update\) \| $num ×[0-9.]+ \|" "$T/out" ||
  fail "stand-in driver: no build row for g:update with its ratio"
for row in "CuPy graph replay" "cuda.core graph replay"; do
  grep -qE "^\| $row \| (skipped: |[0-9.])" "$T/out" || fail "stand-in driver: no row '$row'"
done
grep -qE "^target warplab replay at 100 kernels: [0-9.e+-]+ µs per kernel = ×[0-9.]+ raw C\+\+ replay \(≤ 1.05: (met|NOT met)\)" \
  "$T/out" || fail "stand-in driver: no replay target line"
# Each build target against the raw parts' sum (g:update's also with the destroy of the graph
# it replaces) and against raw C++ timed in one window.
grep -qE "^target capture \+ instantiate of 100 kernels from Lua: [0-9.e+-]+ µs = ×[0-9.]+ raw C\+\+ \(the parts' sum; ≤ 1.2: (met|NOT met)\), ×[0-9.]+ raw C\+\+ timed in one window as warplab is \(≤ 1.2: (met|NOT met)\)$" \
  "$T/out" || fail "stand-in driver: no capture target line"
grep -qE "^target capture \+ update of 100 kernels from Lua: [0-9.e+-]+ µs = ×[0-9.]+ raw C\+\+ \(the parts' sum; ≤ 1.3: (met|NOT met)\), ×[0-9.]+ the parts with the destroy of the graph it replaces \(\+[0-9.e+-]+ µs; ≤ 1.3: (met|NOT met)\), ×[0-9.]+ raw C\+\+ timed in one window as warplab is \(≤ 1.3: (met|NOT met)\)$" \
  "$T/out" || fail "stand-in driver: no update target line"
echo "bench_graphs_offline: all passed"
