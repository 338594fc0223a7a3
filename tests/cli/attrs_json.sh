#!/usr/bin/env bash
# attrs_json.sh: `warplab attrs --json` writes a profile that `--profile FILE` reads back
# unchanged; filtered by a pattern it is a partial listing, refused as a profile; shipped
# architecture profiles and products written back as shipped; `--csv` has the documented
# columns and quoting.
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

# A pattern filters --json: a listing of those attributes under the profile's header,
# which --profile refuses when it loads (a partial listing is not a profile), exit 4.
wl attrs --profile "$FIX" --json clock >"$T/c.json"
[ "$(grep -c '"[a-z_]*clock[a-z_]*": ' "$T/c.json")" -ge 2 ] || fail "filtered --json lost the clocks"
grep -q '"warp_size"' "$T/c.json" && fail "filtered --json kept warp_size"
"$BIN" attrs --profile "$T/c.json" >"$T/out" 2>&1
rc=$?
[ $rc -eq 4 ] || fail "a filtered listing as --profile: exit $rc, want 4"
grep -qF "is not a profile; attrs --json with no names writes a whole one" "$T/out" || fail "no partial-listing sentence: $(cat "$T/out")"

# An architecture profile and a product are written back as they are shipped (nulls kept).
wl attrs --profile sm_86 --json >"$T/sm86.json"
cmp -s "$T/sm86.json" "$ROOT/profiles/sm_86.json" || fail "attrs --profile sm_86 --json differs from profiles/sm_86.json"
grep -qF '"multiprocessor_count": null' "$T/sm86.json" || fail "the unknown SM count is not null"
wl attrs --profile l4 --json >"$T/l4.json"
grep -qF '"multiprocessor_count": 58' "$T/l4.json" || fail "l4: SM count"
wl attrs --profile "$T/l4.json" --json >"$T/l4b.json"
cmp -s "$T/l4.json" "$T/l4b.json" || fail "a product's JSON does not round trip"
exit $((failures > 0))
