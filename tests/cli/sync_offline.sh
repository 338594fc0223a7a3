#!/usr/bin/env bash
# sync_offline.sh: every examples/sync/*.lua with no GPU, on both shipped profiles: exit 0,
# a Shows/Expect/Run header, the offline notice, the compiler- and calculator-side checks
# passing; the predictions each prints; `warplab list` shows the sync topic; bad
# parameters are one sentence and exit 1.
# Usage: bash sync_offline.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1
cd "$ROOT" || exit 1
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/err" "$T/out" | tail -n 20; failures=$((failures + 1)); }

n=0
for f in examples/sync/*.lua; do
  n=$((n + 1))
  for prof in h100 h200; do
    "$BIN" --profile "$prof" run "$f" >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 0 ] || { fail "$f on $prof: exit $rc"; continue; }
    grep -q "^no GPU here (profile $prof): " "$T/out" || fail "$f on $prof: no offline notice"
    grep -q '^  FAIL ' "$T/out" && fail "$f on $prof: a compiler-side check failed"
    grep -q '^  ok   ' "$T/out" || fail "$f on $prof: no check ran offline"
  done
  head -n 1 "$f" | grep -qE "^-- $(basename "$f"): " || fail "$f: no '-- name.lua: summary' line"
  for field in Shows Expect Run; do
    grep -qE "^-- $field: " "$f" || fail "$f: no '-- $field:' header line"
  done
  grep -qE '^-- Run: +warplab run examples/sync/' "$f" || fail "$f: the Run line does not run examples/sync/"
done
[ "$n" -ge 6 ] || fail "expected at least 6 scripts in examples/sync, found $n"

# What the offline runs predict, by script (h100: 132 SMs).
"$BIN" --profile h100 run examples/sync/missing_barrier.lua >"$T/out" 2>"$T/err"
grep -qE '^tree_unsynced +[0-9]+ +0 +2 +264$' "$T/out" || fail "missing_barrier: the unsynced tree's row (no barrier, 2 x 132 resident)"
"$BIN" --profile h100 run examples/sync/syncblocks.lua >"$T/out" 2>"$T/err"
grep -qE '^1057 +1056 +capacity \+ 1 +deadlocks: 1 block\(s\) cannot start$' "$T/out" || fail "syncblocks: capacity against grid"
grep -q '^  ok   k:check refuses a cooperative grid one block above capacity' "$T/out" ||
  fail "syncblocks: the cooperative refusal was not checked"
"$BIN" --profile h200 run examples/sync/dsmem.lua >"$T/out" 2>"$T/err"
grep -q '^32 blocks .*cluster 32x1x1 = 32 blocks exceeds 16, the most blocks a cluster can hold' "$T/out" ||
  fail "dsmem: the cluster of 32 is not refused in the rules table"
grep -qE '^16 blocks \(non-portable\) +16 +16 +accepted' "$T/out" || fail "dsmem: 16 blocks (non-portable) is not accepted offline"
"$BIN" --profile h100 run examples/sync/cost.lua >"$T/out" 2>"$T/err"
grep -qE '^cluster\.sync\(\) x8 +cost_cluster_sync +grid 8, block 256, cluster 8 +20000 +ok$' "$T/out" ||
  fail "cost: the cluster row of the plan"
grep -qE '^grid\.sync\(\) 1/SM +cost_grid_sync +grid 132, block 256, cooperative +2000 +ok$' "$T/out" ||
  fail "cost: the grid.sync row of the plan"

# warplab list shows the topic with every script.
"$BIN" list >"$T/out" 2>"$T/err" || fail "list: exit $?"
grep -qx 'sync/' "$T/out" || fail "list: no sync/ heading"
for f in examples/sync/*.lua; do
  grep -qE "^  $(basename "$f") " "$T/out" || fail "list: no line for $f"
done

# Bad parameters: one sentence naming the limit, exit 1 (a script error).
"$BIN" --profile h100 run examples/sync/missing_barrier.lua -p block=100 >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "missing_barrier -p block=100: exit $rc, want 1"
grep -qF "block 100: the tree needs a power of two from 64 to 1024" "$T/err" || fail "missing_barrier -p block=100: message"
"$BIN" --profile h100 run examples/sync/divergent_barrier.lua -p block=96 >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "divergent_barrier -p block=96: exit $rc, want 1"
grep -qF "block 96: needs a multiple of 64 from 64 to 1024" "$T/err" || fail "divergent_barrier -p block=96: message"

[ $failures -eq 0 ] || exit 1
echo "sync_offline.sh: all passed ($n scripts, 2 profiles)"
