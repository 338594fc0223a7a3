#!/usr/bin/env bash
# memory_offline.sh: every examples/memory/*.lua with no GPU, on both shipped profiles:
# exit 0, the offline notice, the compiler-side checks passing, the header lines; what
# each predicts (the sector model, the bank ways, the spills under a cap, the copy plan);
# bad parameters are one sentence and exit 1; `warplab list` shows the memory topic.
# Usage: bash memory_offline.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1
cd "$ROOT" || exit 1
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/err" "$T/out" | tail -n 20; failures=$((failures + 1)); }

n=0
for f in examples/memory/*.lua; do
  n=$((n + 1))
  for prof in h100 h200; do
    "$BIN" --profile "$prof" run "$f" >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 0 ] || { fail "$f on $prof: exit $rc"; continue; }
    grep -q "^no GPU here (profile $prof): " "$T/out" || fail "$f on $prof: no offline notice"
    grep -q '^  FAIL ' "$T/out" && fail "$f on $prof: a compiler-side check failed"
    head -n 1 "$f" | grep -qE "^-- $(basename "$f"): " || fail "$f: no '-- name.lua: summary' line"
    grep -qE '^-- Shows: ' "$f" || fail "$f: no Shows line"
    grep -qE '^-- Expect: ' "$f" || fail "$f: no Expect line"
    grep -qE '^-- Run: +warplab run examples/memory/' "$f" || fail "$f: no Run line"
  done
done
[ "$n" -ge 4 ] || fail "expected at least 4 scripts in examples/memory, found $n"

# What the offline runs predict, by script.
"$BIN" --profile h100 run examples/memory/coalescing.lua >"$T/out" 2>"$T/err"
grep -qE '^stride 32 +128 +32 +12\.5 % +0\.125$' "$T/out" || fail "coalescing: stride 32 should use 1/8 of 32 sectors"
grep -qE '^stride 1 \(coalesced\) +4 +4 +100\.0 % +1$' "$T/out" || fail "coalescing: stride 1 should fill 4 sectors"
grep -q '^  ok   every read is one 4-byte load' "$T/out" || fail "coalescing: the PTX load check did not pass"
"$BIN" --profile h100 run examples/memory/banks.lua >"$T/out" 2>"$T/err"
grep -qE '^stride 32 +32 +32$' "$T/out" || fail "banks: stride 32 should be 32-way"
grep -qE '^stride 33 \(padded\) +33 +1$' "$T/out" || fail "banks: stride 33 should be conflict-free"
grep -qE '^broadcast \(one word\) +0 +1$' "$T/out" || fail "banks: a broadcast should be 1-way"
grep -q '^  ok   the timed loop is 4 chains x 8 unrolled ld.shared.u32' "$T/out" || fail "banks: the PTX check did not pass"
"$BIN" --profile h200 run examples/memory/spills.lua >"$T/out" 2>"$T/err"
grep -q '^  ok   uncapped: no spills, no local memory' "$T/out" || fail "spills: uncapped should not spill"
grep -q '^  ok   max_registers = 32: the compiler spills' "$T/out" || fail "spills: the cap at 32 should spill"
grep -qE '^32 +32 +[1-9][0-9]* +[1-9][0-9]* +8 +100 %$' "$T/out" || fail "spills: no row for the cap at 32"
"$BIN" --profile h100 run examples/memory/pinned.lua >"$T/out" 2>"$T/err"
grep -qE '^256 MiB +268435456 +3$' "$T/out" || fail "pinned: the plan should end at 256 MiB"
grep -qE '^4 KiB +4096 +50$' "$T/out" || fail "pinned: the plan should start at 4 KiB"
grep -q '^  ok   a pageable host array works without a GPU' "$T/out" || fail "pinned: the pageable probe failed"

# Bad parameters: one sentence naming the limit, exit 1 (a script error).
bad() {  # bad SCRIPT SENTENCE ARGS...
  local script=$1 want=$2
  shift 2
  "$BIN" --profile h100 run "examples/memory/$script" "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  [ $rc -eq 1 ] || fail "$script $*: exit $rc, want 1"
  grep -qF "$want" "$T/err" || fail "$script $*: no '$want'"
}
bad coalescing.lua "reads 3: needs a power of two <= 2^27" -p reads=3
bad banks.lua "block 100: needs a multiple of 32 up to 1024" -p block=100
bad pinned.lua "need 4 B <= min_kib * 1 KiB <= max_mib * 1 MiB <= a quarter of the device's" -p max_mib=100000

# The topic is listed.
"$BIN" list >"$T/out" 2>"$T/err" || fail "list: exit $?"
grep -qx 'memory/' "$T/out" || fail "list: no memory/ heading"
for s in banks coalescing pinned spills; do
  grep -qE "^  $s\.lua +" "$T/out" || fail "list: no $s.lua line"
done

[ $failures -eq 0 ] || exit 1
echo "memory_offline.sh: all passed ($n scripts, 2 profiles)"
