#!/usr/bin/env bash
# attrs_unknown.sh: `attrs` on architecture profiles: what the profile does not know is
# said to be unknown, never shown as 0 and never "not reported" (which means a capture
# lacked it): the footer names them "unknown for this profile", `--diff` shows an unknown
# memory size or attribute as "unknown" (null with --json) and counts a difference; a
# captured profile's footer still says "not reported by" for what its driver lacked.
# Usage: bash attrs_unknown.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$BIN" attrs --profile sm_86 l2 clock >"$T/out" 2>"$T/err" || fail "attrs l2 clock: exit $?"
[ "$(tail -1 "$T/out")" = "0 attributes; unknown for this profile (architecture limits, not a captured device): l2_cache_size max_persisting_l2_cache_size max_access_policy_window_size clock_rate memory_clock_rate global_memory_bus_width" ] ||
  fail "sm_86 footer: $(tail -1 "$T/out")"
"$BIN" attrs --profile sm_86 >"$T/out" || fail "attrs sm_86: exit $?"
grep -q "^20 attributes; unknown for this profile (architecture limits, not a captured device): .* multiprocessor_count " "$T/out" ||
  fail "sm_86 full footer: $(tail -1 "$T/out" | head -c 200)"
grep -q "not reported" "$T/out" && fail "sm_86: an architecture profile's unknowns called 'not reported'"
"$BIN" attrs --profile a100 multiprocessor_count l2_cache_size >"$T/out" || fail "attrs a100: exit $?"
grep -qE '^  multiprocessor_count +108 ' "$T/out" || fail "a100: the SM count"
[ "$(tail -1 "$T/out")" = "1 attribute; unknown for this profile (architecture limits, not a captured device): l2_cache_size max_persisting_l2_cache_size" ] ||
  fail "a100 footer: $(tail -1 "$T/out")"
# A capture lacking an attribute (the synthetic profile leaves d3d12_cig_supported out).
"$BIN" attrs --profile "$FIX" d3d12_cig_supported >"$T/out" || fail "attrs FIX: exit $?"
tail -1 "$T/out" | grep -q "; not reported by profile $FIX: d3d12_cig_supported$" || fail "capture footer: $(tail -1 "$T/out")"
tail -1 "$T/out" | grep -q "unknown" && fail "capture footer calls a missing attribute unknown"

# --diff: unknown, not "0 (0 bytes)"; exit 1 (they differ).
"$BIN" attrs --diff sm_86 h100 >"$T/out"
[ $? -eq 1 ] || fail "--diff sm_86 h100: want exit 1"
grep -qE '^  total_memory +unknown +85017493504 \(79\.2 GiB\)$' "$T/out" || fail "--diff: total_memory: $(grep total_memory "$T/out")"
grep -qE '^  multiprocessor_count +unknown +132$' "$T/out" || fail "--diff: multiprocessor_count: $(grep multiprocessor_count "$T/out")"
grep -q "0 (0 bytes)" "$T/out" && fail "--diff shows an unknown memory size as 0"
"$BIN" attrs --diff sm_86 h100 --json >"$T/json"
python3 - "$T/json" <<'PY' || fail "--diff --json: unknown values are not null"
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))["rows"]}
assert rows["total_memory"]["a"] is None and rows["total_memory"]["b"] == 85017493504, rows["total_memory"]
assert rows["multiprocessor_count"]["a"] is None, rows["multiprocessor_count"]
PY
# Both unknown is no difference; a product against its architecture differs in what it adds.
"$BIN" attrs --diff sm_86 sm_86 >"$T/out" || fail "--diff sm_86 sm_86: exit $?"
grep -q total_memory "$T/out" && fail "--diff sm_86 sm_86 lists total_memory"
"$BIN" attrs --diff a100 sm_80 multiprocessor_count >"$T/out"
[ $? -eq 1 ] || fail "--diff a100 sm_80: want exit 1"
grep -qE '^  multiprocessor_count +108 +unknown$' "$T/out" || fail "--diff a100 sm_80: $(cat "$T/out")"
exit $((failures > 0))
