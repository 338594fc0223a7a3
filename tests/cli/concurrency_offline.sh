#!/usr/bin/env bash
# concurrency_offline.sh: every examples/concurrency/*.lua with no GPU, on both shipped
# profiles: exit 0, the offline notice, what it would check, the checks that need no GPU
# passing (launch checks, a managed array in host memory), the header lines; bad
# parameters are one sentence and exit 1; `warplab list` shows the concurrency topic.
# Usage: bash concurrency_offline.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1
cd "$ROOT" || exit 1
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/err" "$T/out" | tail -n 20; failures=$((failures + 1)); }

n=0
for f in examples/concurrency/*.lua; do
  n=$((n + 1))
  for prof in h100 h200; do
    "$BIN" --profile "$prof" run "$f" >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 0 ] || { fail "$f on $prof: exit $rc"; continue; }
    grep -q "^no GPU here (profile $prof): " "$T/out" || fail "$f on $prof: no offline notice"
    grep -q "^it would check: " "$T/out" || fail "$f on $prof: does not say what it would check"
    grep -q '^  FAIL ' "$T/out" && fail "$f on $prof: a check that needs no GPU failed"
    head -n 1 "$f" | grep -qE "^-- $(basename "$f"): " || fail "$f: no '-- name.lua: summary' line"
    grep -qE '^-- Shows: ' "$f" || fail "$f: no Shows line"
    grep -qE '^-- Expect: ' "$f" || fail "$f: no Expect line"
    grep -qE '^-- Run: +warplab run examples/concurrency/' "$f" || fail "$f: no Run line"
  done
done
[ "$n" -ge 4 ] || fail "expected at least 4 scripts in examples/concurrency, found $n"

"$BIN" --profile h100 run examples/concurrency/managed.lua >"$T/out" 2>"$T/err"
grep -q '^  ok   a managed array is read and written on the host in place' "$T/out" ||
  fail "managed: the host-memory probe did not pass"
"$BIN" --profile h100 run examples/concurrency/graphs.lua >"$T/out" 2>"$T/err"
grep -qE '^1000 +5 +1000 nodes$' "$T/out" || fail "graphs: the plan should end at 1000 launches, 5 rounds"

bad() {  # bad SCRIPT SENTENCE ARGS...
  local script=$1 want=$2
  shift 2
  "$BIN" --profile h100 run "examples/concurrency/$script" "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  [ $rc -eq 1 ] || fail "$script $*: exit $rc, want 1"
  grep -qF "$want" "$T/err" || fail "$script $*: no '$want'"
}
bad overlap.lua "mib 64, chunks 3: needs chunks >= 4 dividing the 16777216 floats" -p chunks=3
bad stream_order.lua "n 2000, runs 50, spin_us 200: needs 1 <= n <= 1024" -p n=2000
bad managed.lua "mib 0: needs 1 <= mib" -p mib=0

"$BIN" list >"$T/out" 2>"$T/err" || fail "list: exit $?"
grep -qx 'concurrency/' "$T/out" || fail "list: no concurrency/ heading"
for s in graphs managed overlap stream_order; do
  grep -qE "^  $s\.lua +" "$T/out" || fail "list: no $s.lua line"
done

[ $failures -eq 0 ] || exit 1
echo "concurrency_offline.sh: all passed ($n scripts, 2 profiles)"
