#!/usr/bin/env bash
# counters_list.sh: `warplab counters [WORD...]`, with no GPU and no CUPTI: every set with
# each metric's short name, unit, meaning and CUPTI name, loading neither libcuda nor
# CUPTI (the dynamic loader's own log says what was looked for); a word found in set
# names, short names, CUPTI names and meanings, any case; a word that finds nothing is exit
# 4 with "did you mean"; --json parsed; `run --counters list` and `watch --counters list`
# print the same listing, script or not, and exit 0; a misspelled counter (run --counters,
# cuda.counters) gets its guesses across names, meanings and CUPTI names before CUPTI is
# even looked for; a named profile without CUPTI is listed with a note.
# Usage: bash counters_list.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 XDG_STATE_HOME=$T/state
BIN=$(realpath "$BIN") ROOT=$(realpath "$ROOT")
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" "$T/err" 2>/dev/null | tail -n 20; failures=$((failures + 1)); }
cd "$T" || exit 1
mkdir -p empty
w() { "$BIN" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
echo 'print("script ran")' >s.lua

# Every set, each metric with its unit, meaning and CUPTI name.
w counters
[ $rc -eq 0 ] || fail "counters: exit $rc"
[ -s "$T/err" ] && fail "counters: said something on stderr"
head -1 "$T/out" | grep -qxE "counter sets: 7 sets, [0-9]+ metrics" || fail "counters: the heading"
for set in shared memory warps stalls sync local time; do
  grep -qE "^$set: [a-z]" "$T/out" || fail "counters: no set $set"
done
grep -A2 -xF "  shared_st_conflicts  conflicts" "$T/out" >"$T/one"
grep -qxF "      bank conflicts of shared-memory stores" "$T/one" &&
  grep -qxF "      CUPTI: l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum" "$T/one" ||
  fail "counters: shared_st_conflicts with its meaning and CUPTI name"
grep -qxF "      CUPTI: l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum" "$T/out" ||
  fail "counters: a ratio's CUPTI names"
grep -qxF "      CUPTI: smsp__sass_average_branch_targets_threads_uniform.pct (- when smsp__sass_branch_targets.sum counted 0)" "$T/out" ||
  fail "counters: branch_efficiency is - without branches"
grep -qxF "      CUPTI: dram__bytes_read.sum or dram__bytes_op_read.sum (the first the chip has)" "$T/out" ||
  fail "counters: a metric's CUPTI names on two chips"

# Nothing loads the driver or CUPTI: the dynamic loader logs every library it looks for.
# The control: --version does look for libcuda, and the log shows it.
unset WARPLAB_NO_DRIVER
LD_DEBUG=libs LD_DEBUG_OUTPUT=$T/ld.version "$BIN" --version >/dev/null 2>&1
cat "$T"/ld.version.* 2>/dev/null | grep -q "libcuda\.so\.1" || fail "the control: --version's loader log lacks libcuda"
for args in "counters" "counters bank --json" "run --counters list s.lua"; do
  rm -f "$T"/ld.list.*
  # shellcheck disable=SC2086
  LD_DEBUG=libs LD_DEBUG_OUTPUT=$T/ld.list "$BIN" $args >"$T/out" 2>"$T/err" || fail "$args with LD_DEBUG: exit $?"
  hits=$(cat "$T"/ld.list.* | grep -E "libcuda|libcupti|libnvperf" | head -3)
  [ -z "$hits" ] || fail "'warplab $args' looked for the driver or CUPTI: $hits"
done
export WARPLAB_NO_DRIVER=1

# A word: in set names, short names, CUPTI names and meanings, any case, '_' for a space.
w counters bank_conflicts
[ $rc -eq 0 ] || fail "counters bank_conflicts: exit $rc"
head -1 "$T/out" | grep -qxF "counters matching 'bank_conflicts': 4 metrics in 1 set" ||
  fail "counters bank_conflicts: the heading"
[ "$(grep -cE '^  shared_(ld|st)_conflicts(_per_request)?  ' "$T/out")" -eq 4 ] || fail "counters bank_conflicts: the four"
grep -q "shared_ld_requests" "$T/out" && fail "counters bank_conflicts: a metric without the word"
w counters 'BANK conflicts'
head -1 "$T/out" | grep -qxF "counters matching 'BANK conflicts': 4 metrics in 1 set" || fail "counters 'BANK conflicts'"
w counters bank  # and the wavefronts per request, whose meanings speak of banks
head -1 "$T/out" | grep -qxF "counters matching 'bank': 6 metrics in 1 set" || fail "counters bank: the heading"
w counters lts__t_sector_hit_rate
[ $rc -eq 0 ] && grep -qxF "  l2_hit_rate  %" "$T/out" || fail "counters by a CUPTI name: exit $rc"
w counters stall_barrier
[ $rc -eq 0 ] && grep -q "^stalls: " "$T/out" && grep -q "^sync: " "$T/out" || fail "stall_barrier: in stalls and sync"
w counters sync  # the set, whole; and stall_barrier of stalls, whose meaning has __syncthreads
sed -n '/^sync: /,/^$/p' "$T/out" | grep -cE '^  stall_(barrier|membar)  %$' | grep -qx 2 || fail "counters sync: the whole set"
w counters l2 occupancy
[ $rc -eq 0 ] && grep -qxF "  l2_hit_rate  %" "$T/out" && grep -qxF "  achieved_occupancy  %" "$T/out" ||
  fail "counters with two words: both found"

# A word that finds nothing: exit 4, did you mean; a word too far from any: how words match.
w counters sahred
[ $rc -eq 4 ] || fail "counters sahred: exit $rc, want 4"
grep -qxF "warplab: no counter set or metric matches 'sahred': did you mean 'shared'?" "$T/err" ||
  fail "counters sahred: did you mean"
w counters bank xyzzy
[ $rc -eq 4 ] || fail "counters bank xyzzy: exit $rc, want 4"
grep -qxF "warplab: no counter set or metric matches 'xyzzy' (a word is looked for in set names, short names, CUPTI names and meanings; warplab counters lists them all; any other CUPTI metric counts by its name too: run --counters smsp__inst_executed.sum)" "$T/err" ||
  fail "counters xyzzy: the sentence"
[ -s "$T/out" ] && fail "counters bank xyzzy: printed a listing"

# --json, parsed.
w counters --json
[ $rc -eq 0 ] || fail "counters --json: exit $rc"
python3 - "$T/out" <<'PY' || fail "counters --json: the document"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["words"] == [] and j["chip"] is None and j["target"] is None and j["note"] is None, j
assert [s["name"] for s in j["sets"]] == ["shared", "memory", "warps", "stalls", "sync", "local", "time"]
m = {x["name"]: x for s in j["sets"] for x in s["metrics"]}
assert m["branch_efficiency"]["of"] == "smsp__sass_branch_targets.sum", m["branch_efficiency"]
assert m["shared_ld_conflicts_per_request"]["per"] == "smsp__inst_executed_op_shared_ld.sum"
assert m["shared_ld_requests"]["per"] is None and m["shared_ld_requests"]["of"] is None
assert m["dram_read_bytes"]["raw"] == "dram__bytes_read.sum|dram__bytes_op_read.sum"
assert all(x["available"] is None for x in m.values())
assert all(s["passes"] is None for s in j["sets"])
assert set(m["duration"]) == {"name", "unit", "meaning", "raw", "per", "of", "available"}
PY
w counters bank --json
python3 - "$T/out" <<'PY' || fail "counters bank --json: the document"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["words"] == ["bank"], j
assert [s["name"] for s in j["sets"]] == ["shared"]
assert len(j["sets"][0]["metrics"]) == 6
PY

# A named GPU or profile is checked with CUPTI: without it, the listing and one note.
WARPLAB_CUPTI_DIR=$T/empty w --profile h100 counters
[ $rc -eq 0 ] || fail "counters --profile h100 without CUPTI: exit $rc"
grep -qxF "warplab: no CUPTI library: WARPLAB_CUPTI_DIR is '$T/empty' and holds no libcupti.so.13: the sets are not checked against GH100" "$T/err" ||
  fail "counters --profile h100 without CUPTI: the note"
head -1 "$T/out" | grep -qxE "counter sets: 7 sets, [0-9]+ metrics" || fail "counters --profile h100 without CUPTI: the listing"
w counters --device 0
[ $rc -eq 3 ] || fail "counters --device 0 without a GPU: exit $rc, want 3"

# run --counters list, watch --counters list: the listing, exit 0, nothing run; with or
# without a script.
"$BIN" counters >"$T/want"
for args in "run --counters list s.lua" "run s.lua --counters shared,list" "run --counters list" "watch --counters list s.lua"; do
  # shellcheck disable=SC2086
  w $args
  [ $rc -eq 0 ] || fail "$args: exit $rc, want 0"
  cmp -s "$T/out" "$T/want" || fail "$args: not the listing of warplab counters"
  grep -q "script ran" "$T/out" && fail "$args: the script ran"
done

# A misspelled counter: the guesses across names, meanings and CUPTI names, said before
# CUPTI is looked for (there is none here), exit 4.
WARPLAB_CUPTI_DIR=$T/empty w --profile h100 run --counters bank_conflicts s.lua
[ $rc -eq 4 ] || fail "run --counters bank_conflicts: exit $rc, want 4"
grep -qxF "warplab: --counters: unknown counter set or metric 'bank_conflicts': did you mean 'shared_ld_conflicts' or 'shared_st_conflicts' (set shared)? (sets: shared, memory, warps, stalls, sync, local, time; or a CUPTI metric name; warplab counters bank_conflicts lists the 4 metrics that match)" "$T/err" ||
  fail "run --counters bank_conflicts: the sentence"
grep -q "script ran" "$T/out" && fail "run --counters bank_conflicts: the script ran"
WARPLAB_CUPTI_DIR=$T/empty w --profile h100 run --counters global s.lua  # not 'local', one letter away
grep -qF "unknown counter set or metric 'global': did you mean the set 'memory'? " "$T/err" ||
  fail "run --counters global: the set"
cat >c.lua <<'LUA'
local m = assert(cuda.compile{source = "__global__ void k(int* p) { p[0] = 1; }"})
print(pcall(cuda.counters, function() end, {"shared", "bank"}))
print(pcall(m.k.counters, m.k, {grid = 1, block = 1, args = {cuda.array("i32", 1)}, metrics = {"sector_hit_rate"}}))
LUA
WARPLAB_CUPTI_DIR=$T/empty w --profile h100 run c.lua
[ $rc -eq 0 ] || fail "cuda.counters misspelled: exit $rc"
grep -qF "false	unknown counter set or metric 'bank': did you mean 'shared_ld_conflicts' or 'shared_st_conflicts' (set shared)?" "$T/out" ||
  fail "cuda.counters: did you mean"
grep -qF "unknown counter set or metric 'sector_hit_rate': did you mean 'l1_hit_rate' or 'l2_hit_rate' (set memory)?" "$T/out" ||
  fail "k:counters: did you mean by a CUPTI name"

[ $failures -eq 0 ] || exit 1
echo "counters_list.sh: all passed"
