#!/usr/bin/env bash
# reductions_offline.sh: every examples/reductions/*.lua with no GPU, on both shipped
# profiles: exit 0, the compiler's and calculator's predictions, the offline notice, and
# the compiler-side checks passing; bad parameters are one sentence and exit 1.
# Usage: bash reductions_offline.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1
cd "$ROOT" || exit 1
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/err" "$T/out" | tail -n 20; failures=$((failures + 1)); }

n=0
for f in examples/reductions/*.lua; do
  n=$((n + 1))
  for prof in h100 h200; do
    "$BIN" --profile "$prof" run "$f" >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 0 ] || { fail "$f on $prof: exit $rc"; continue; }
    grep -q "^no GPU here (profile $prof): " "$T/out" || fail "$f on $prof: no offline notice"
    grep -q '^  FAIL ' "$T/out" && fail "$f on $prof: a compiler-side check failed"
    head -n 1 "$f" | grep -qE "^-- $(basename "$f"): " || fail "$f: no '-- name.lua: summary' line"
    grep -qE '^-- Run: +warplab run examples/reductions/' "$f" || fail "$f: no Run line"
  done
done
[ "$n" -ge 4 ] || fail "expected at least 4 scripts in examples/reductions, found $n"

# What the offline runs predict, by script.
"$BIN" --profile h100 run examples/reductions/ladder.lua >"$T/out" 2>"$T/err"
grep -qE '^single pass \(last block\) +atomic ticket' "$T/out" || fail "ladder: no row for the last-block version"
grep -qE '^atomics only .* 268435455 +none$' "$T/out" || fail "ladder: atomics at 2^28 should have no bound"
"$BIN" --profile h100 run examples/reductions/last_warp.lua >"$T/out" 2>"$T/err"
grep -q '^  ok   plain: the compiler dropped' "$T/out" || fail "last_warp: the PTX check did not pass"
"$BIN" --profile h200 run examples/reductions/single_pass.lua >"$T/out" 2>"$T/err"
grep -q '^  ok   a cooperative grid one block above the co-resident capacity is refused' "$T/out" ||
  fail "single_pass: the cooperative refusal was not checked"

# Bad parameters: one sentence naming the limit, exit 1 (a script error).
"$BIN" --profile h100 run examples/reductions/pi.lua -p grid=3 >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "pi -p grid=3: exit $rc, want 1"
grep -qF "grid 3 and block 256 must be powers of two <= 1024" "$T/err" || fail "pi -p grid=3: message"
"$BIN" --profile h100 run examples/reductions/pi.lua -p num=8388608 >"$T/out" 2>"$T/err"
grep -qF "num 8388608 must be from 1 to 2^23 - 1" "$T/err" || fail "pi -p num=2^23: message"
"$BIN" --profile h100 run examples/reductions/ladder.lua -p block=100 >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "ladder -p block=100: exit $rc, want 1"
grep -qF "block 100: the ladder needs a power of two from 64 to 1024" "$T/err" || fail "ladder -p block=100: message"

# bench/reduce.lua: tunes among its candidates (each compiled and described offline) unless a
# configuration option is given; the H100 sweep's best (1056 blocks of 512) is among them.
"$BIN" --profile h100 -q run bench/reduce.lua >"$T/out" 2>"$T/err" || fail "bench/reduce.lua offline: exit $?"
[ "$(grep -c '^reduce.lua: candidate [0-9]: ' "$T/err")" -eq 7 ] || fail "bench/reduce.lua: want 7 candidates"
grep -q '^reduce.lua: candidate 2: 1056 blocks of 512, layout 1, unroll 4, acc 1, load 3' "$T/err" ||
  fail "bench/reduce.lua: the sweep's best is not a candidate"
grep -qx 'skipped: no GPU' "$T/out" || fail "bench/reduce.lua offline: no 'skipped: no GPU'"
"$BIN" --profile h100 -q run bench/reduce.lua -p unroll=8 >"$T/out" 2>"$T/err" || fail "reduce.lua -p unroll=8: exit $?"
grep -q 'candidate' "$T/err" && fail "bench/reduce.lua -p unroll=8: tuned although a configuration was given"
grep -q 'blocks of 256, layout 1, unroll 8, acc 8' "$T/err" || fail "bench/reduce.lua -p unroll=8: not the given configuration"
"$BIN" --profile h100 -q run bench/reduce.lua -p unroll=8 -p tune=true >"$T/out" 2>"$T/err"
grep -q '^reduce.lua: candidate 1: .* unroll 8, acc 8' "$T/err" || fail "reduce.lua -p tune=true: the given configuration is not first"

[ $failures -eq 0 ] || exit 1
echo "reductions_offline.sh: all passed ($n scripts, 2 profiles)"
