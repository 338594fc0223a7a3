#!/usr/bin/env bash
# attrs_diff.sh: `warplab attrs --diff A B` on the fixture and a modified copy: the rows
# that differ (identity fields first), values formatted, and the closing counts.
# Usage: bash attrs_diff.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
fail() { echo "FAIL: $*"; echo "--- stdout:"; cat "$T/out"; failures=$((failures + 1)); }
run() { "$BIN" "$@" >"$T/out" 2>"$T/err"; rc=$?; [ "$rc" -eq 0 ] || fail "warplab $*: exit $rc: $(cat "$T/err")"; }

n=$(($("$BIN" attrs --profile "$FIX" --csv | wc -l) - 1))
run attrs --diff "$FIX" "$FIX"
[ "$(tail -1 "$T/out")" = "0 attributes differ, $n equal" ] || fail "self diff"
[ "$(sed -n 1p "$T/out")" = "A: synthetic test device (sm_90, 100 SMs, 64 GiB) [profile $FIX, captured 2000-01-01T00:00:00Z, driver 13.0]" ] ||
  fail "A line"

# B: another name, a faster clock, one attribute fewer.
sed -e 's/"synthetic test device"/"synthetic test device B"/' \
    -e 's/"clock_rate": 1500000/"clock_rate": 1800000/' \
    -e '/"cluster_launch": /d' "$FIX" >"$T/b.json"
run attrs --diff "$FIX" "$T/b.json"
grep -qE '^  name +synthetic test device +synthetic test device B$' "$T/out" || fail "name row"
grep -qE '^  clock_rate +1500000 kHz \(1\.5 GHz\) +1800000 kHz \(1\.8 GHz\)$' "$T/out" || fail "clock_rate row"
grep -qE '^  cluster_launch +yes +-$' "$T/out" || fail "cluster_launch row"
[ "$(tail -1 "$T/out")" = "1 attribute differs, $((n - 2)) equal, 1 only in A" ] || fail "counts"
grep -q $'\033' "$T/out" && fail "ANSI escapes with stdout not a terminal"

# Reversed, and restricted by a pattern.
run attrs --diff "$T/b.json" "$FIX"
[ "$(tail -1 "$T/out")" = "1 attribute differs, $((n - 2)) equal, 1 only in B" ] || fail "reversed counts"
run attrs --diff "$FIX" "$T/b.json" clock
[ "$(tail -1 "$T/out")" = "1 attribute differs, 2 equal" ] || fail "diff with a pattern"
exit $((failures > 0))
