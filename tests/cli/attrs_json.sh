#!/usr/bin/env bash
# attrs_json.sh: `warplab attrs --json` writes a profile that `--profile FILE` reads back
# unchanged (also filtered by a pattern); `--csv` has the documented columns and quoting.
# Usage: bash attrs_json.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
wl() { "$BIN" "$@" 2>"$T/err" || fail "warplab $*: exit $? ($(cat "$T/err"))"; }

wl attrs --profile "$FIX" --json >"$T/a.json"
head -2 "$T/a.json" | tr -d ' \n' | grep -qF '{"format":"warplab-profile",' || fail "JSON does not open with format"
grep -qF '"future_attribute_from_newer_cuda": 7' "$T/a.json" || fail "unknown attribute dropped"
grep -qF '"name": "synthetic test device"' "$T/a.json" || fail "name"
wl attrs --profile "$T/a.json" --json >"$T/b.json"
cmp -s "$T/a.json" "$T/b.json" || fail "--json round trip through --profile changed the profile"

wl attrs --profile "$FIX" --csv >"$T/a.csv"
wl attrs --profile "$T/a.json" --csv >"$T/b.csv"
cmp -s "$T/a.csv" "$T/b.csv" || fail "CSV of the round-tripped profile differs"
[ "$(head -1 "$T/a.csv")" = "name,value,unit,group,meaning" ] || fail "CSV header"
wl attrs --profile "$FIX" >"$T/a.txt"
[ "$(($(wc -l <"$T/a.csv") - 1))" -eq "$(grep -c '^  [a-z]' "$T/a.txt")" ] || fail "CSV rows != text rows"
grep -qE '^max_shared_memory_per_block,49152,bytes,shared-memory,[^,]' "$T/a.csv" || fail "CSV row"
# A meaning with commas is quoted.
grep -qE '^virtual_memory_management_supported,1,bool,memory,"[^"]*,[^"]*"$' "$T/a.csv" || fail "CSV quoting"
grep -qE '^future_attribute_from_newer_cuda,7,,other,$' "$T/a.csv" || fail "CSV unknown attribute"
awk -F, 'NR > 1 && $2 !~ /^-?[0-9]+$/ { bad = 1 } END { exit bad }' "$T/a.csv" || fail "CSV value not an integer"

# A pattern filters --json, and the result is still a loadable profile.
wl attrs --profile "$FIX" --json clock >"$T/c.json"
wl attrs --profile "$T/c.json" --csv >"$T/c.csv"
wl attrs --profile "$FIX" --csv clock >"$T/d.csv"
cmp -s "$T/c.csv" "$T/d.csv" || fail "filtered --json does not round trip"
[ "$(wc -l <"$T/c.csv")" -ge 3 ] || fail "filtered --json lost the clocks"
exit $((failures > 0))
