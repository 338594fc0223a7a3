#!/usr/bin/env bash
# attrs_diff.sh: `warplab attrs --diff A B` on the fixture and a modified copy: the rows
# that differ (identity fields first), values formatted, the closing counts, the exit
# status (0 equal, 1 different, as diff) and --json, in every option position.
# Usage: bash attrs_diff.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
fail() { echo "FAIL: $*"; echo "--- stdout:"; cat "$T/out"; failures=$((failures + 1)); }
# run WANT ARGS...: warplab ARGS, which must exit WANT.
run() {
  local want=$1
  shift
  "$BIN" "$@" >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq "$want" ] || fail "warplab $*: exit $rc, want $want: $(cat "$T/err")"
}

n=$(($("$BIN" attrs --profile "$FIX" --csv | wc -l) - 1))
run 0 attrs --diff "$FIX" "$FIX"
[ "$(tail -1 "$T/out")" = "0 attributes differ, $n equal" ] || fail "self diff"
[ "$(sed -n 1p "$T/out")" = "A: synthetic test device (sm_90, 100 SMs, 64 GiB) [profile $FIX, captured 2000-01-01T00:00:00Z, driver 13.0]" ] ||
  fail "A line"

# B: another name, a faster clock, one attribute fewer.
sed -e 's/"synthetic test device"/"synthetic test device B"/' \
    -e 's/"clock_rate": 1500000/"clock_rate": 1800000/' \
    -e '/"cluster_launch": /d' "$FIX" >"$T/b.json"
run 1 attrs --diff "$FIX" "$T/b.json"
grep -qE '^  name +synthetic test device +synthetic test device B$' "$T/out" || fail "name row"
grep -qE '^  clock_rate +1500000 kHz \(1\.5 GHz\) +1800000 kHz \(1\.8 GHz\)$' "$T/out" || fail "clock_rate row"
grep -qE '^  cluster_launch +yes +-$' "$T/out" || fail "cluster_launch row"
[ "$(tail -1 "$T/out")" = "1 attribute differs, $((n - 2)) equal, 1 only in A" ] || fail "counts"
grep -q $'\033' "$T/out" && fail "ANSI escapes with stdout not a terminal"

# Reversed, and restricted by a pattern.
run 1 attrs --diff "$T/b.json" "$FIX"
[ "$(tail -1 "$T/out")" = "1 attribute differs, $((n - 2)) equal, 1 only in B" ] || fail "reversed counts"
run 1 attrs --diff "$FIX" "$T/b.json" clock
[ "$(tail -1 "$T/out")" = "1 attribute differs, 2 equal" ] || fail "diff with a pattern"
# C differs from A in the clock only: a pattern that leaves the clock out finds them equal
# (exit 0); the name is compared always, so B differs whatever the pattern.
sed -e 's/"clock_rate": 1500000/"clock_rate": 1800000/' "$FIX" >"$T/c.json"
run 0 attrs --diff "$FIX" "$T/c.json" warp_size
[ "$(tail -1 "$T/out")" = "0 attributes differ, 1 equal" ] || fail "equal under a pattern"
run 1 attrs --diff "$FIX" "$T/c.json" clock_rate
run 1 attrs --diff "$FIX" "$T/b.json" warp_size

# --json: the same rows with raw values (null where a side lacks one), in any position.
for args in "attrs --json --diff $FIX $T/b.json" \
            "attrs --diff $FIX $T/b.json --json" "-q attrs --diff $FIX $T/b.json --json --no-color"; do
  # shellcheck disable=SC2086
  run 1 $args
  python3 - "$T/out" <<'PY' || fail "diff --json ($args): $(head -c 400 "$T/out")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["same"] is False, j["same"]
rows = {r["name"]: r for r in j["rows"]}
assert rows["name"]["a"] == "synthetic test device" and rows["name"]["b"] == "synthetic test device B"
assert rows["clock_rate"] == {"name": "clock_rate", "a": 1500000, "b": 1800000, "unit": "kHz"}, rows["clock_rate"]
assert rows["cluster_launch"]["a"] == 1 and rows["cluster_launch"]["b"] is None
assert j["counts"]["differ"] == 1 and j["counts"]["only_a"] == 1 and j["counts"]["only_b"] == 0
assert j["a"]["source"].startswith("profile ") and "synthetic test device" in j["a"]["summary"]
PY
done
run 0 attrs --diff "$FIX" "$FIX" --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["same"] and j["rows"] == [], j' "$T/out" ||
  fail "self diff --json"
exit $((failures > 0))
