#!/usr/bin/env bash
# counters.sh: hardware counters on the command line, without a GPU. `run --counters`
# parsed in every option position (before and after the script, =, repeated, comma lists,
# between script arguments, around -p and global options), the script never sees it;
# offline the names are checked against the profile's chip ("did you mean": exit 4) and
# the script runs, with one note; no CUPTI library, or one that is no CUPTI of CUDA 13
# (exit 3, the file named); --counters with --sanitize
# (exit 2, in either order); --counters-by and --json only with --counters; through the
# stand-in driver, CUPTI's refusal is one line (exit 6), a misspelling is still exit 4,
# and a script's own cuda.counters error leaves it running; `watch --counters` passes it to
# its runs; the REPL's :counters; `warplab counters --profile P` checks the sets for P's chip.
# Usage: bash counters.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 XDG_STATE_HOME=$T/state
BIN=$(realpath "$BIN") ROOT=$(realpath "$ROOT")
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" "$T/err" | tail -n 25; failures=$((failures + 1)); }
cd "$T" || exit 1
cat >s.lua <<'LUA'
print("script ran: args=" .. table.concat({...}, ",") .. " n=" .. tostring(WARPLAB_PARAMS.n))
LUA
w() { "$BIN" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
NOTE="warplab: --counters: hardware counters need a GPU, and this run has none"

# Every position: the script runs with its own arguments only, and the names were checked.
check_ran() {  # check_ran WHAT WANT_ARGS WANT_PASSES
  [ $rc -eq 0 ] || fail "$1: exit $rc, want 0"
  grep -qxF "script ran: args=$2 n=${4:-nil}" "$T/out" || fail "$1: the script's arguments (want '$2')"
  grep -qF "$NOTE" "$T/err" || fail "$1: no offline note"
  grep -qF "the names were checked for chip GH100 ($3 per launch)" "$T/err" || fail "$1: passes (want '$3')"
}
w --profile h100 run --counters shared s.lua
check_ran "before the script" "" "1 replay pass"
w --profile h100 run s.lua --counters shared
check_ran "after the script" "" "1 replay pass"
w --profile h100 run s.lua a --counters=memory b
check_ran "--counters=, between script arguments" "a,b" "3 replay passes"
w run -q --counters memory -p n=3 s.lua a --profile h100 -- --counters x
check_ran "around -p, global options and --" "a,--counters,x" "3 replay passes" 3
w --profile h100 run --counters shared,memory s.lua
check_ran "a comma list" "" "4 replay passes"
w --profile h100 run --counters shared --counters memory s.lua
check_ran "repeated" "" "4 replay passes"
w --profile h100 run --counters " shared, memory" s.lua
check_ran "spaces in the list" "" "4 replay passes"
w --profile h100 run --counters l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum s.lua
check_ran "a CUPTI metric name" "" "1 replay pass"
w --profile h100 run --counters shared --counters-by kernel --json c.json s.lua
check_ran "--counters-by and --json" "" "1 replay pass"
[ -e c.json ] && fail "offline, --json wrote a file"

# Misspelled names: exit 4 before the script, "did you mean", wherever the word is.
for args in "--counters sahred s.lua" "s.lua --counters shared,sahred" "--counters shared --counters sahred s.lua"; do
  # shellcheck disable=SC2086
  w --profile h100 run $args
  [ $rc -eq 4 ] || fail "$args: exit $rc, want 4"
  grep -qxF "warplab: --counters: unknown counter set or metric 'sahred': did you mean 'shared'? (sets: shared, memory, warps, stalls, sync, local, time; or a CUPTI metric name; warplab counters lists them all)" "$T/err" ||
    fail "$args: the did-you-mean sentence"
  grep -q "script ran" "$T/out" && fail "$args: the script ran"
done
w --profile h100 run --counters l1tex__data_bank_conflict_pipe_lsu_mem_shared_op_st.sum s.lua
[ $rc -eq 4 ] && grep -qF "did you mean 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum'" "$T/err" ||
  fail "a misspelled CUPTI name: exit $rc"

# `warplab counters` for a profile: each set checked for its chip with CUPTI's host library
# (its replay passes, the CUPTI name that chip has); the listing alone loads no CUPTI
# (counters_list.sh).
w --profile h100 counters shared
[ $rc -eq 0 ] || fail "counters --profile h100: exit $rc"
head -1 "$T/out" | grep -qE "^counters matching 'shared': [0-9]+ metrics in [0-9]+ sets, checked for chip GH100 \(profile h100\)$" ||
  fail "counters --profile h100: the heading"
grep -qE '^shared: .* \[1 replay pass\]$' "$T/out" || fail "counters --profile h100: shared's passes"
w counters --profile rtx5090 dram_read --json
[ $rc -eq 0 ] || fail "counters --profile rtx5090 --json: exit $rc"
python3 - "$T/out" <<'PY' || fail "counters --profile rtx5090 --json: the chip's names"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["chip"] == "GB202" and j["target"] == "profile rtx5090" and j["note"] is None, j
(s,) = j["sets"]
assert s["name"] == "memory" and s["passes"] >= 1, s
(m,) = s["metrics"]
assert m["name"] == "dram_read_bytes" and m["raw"] == "dram__bytes_op_read.sum" and m["available"] is True, m
PY
"$BIN" --profile h100 counters --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert all(x["available"] for s in j["sets"] for x in s["metrics"]), "GH100 lacks a metric of a set"
assert {s["name"]: s["passes"] for s in j["sets"]}["shared"] == 1
' || fail "counters --profile h100 --json: every metric available"

# Usage errors: exit 2, nothing run.
w --profile h100 run s.lua --counters
[ $rc -eq 2 ] || fail "--counters without a value: exit $rc"
w --profile h100 run --counters-by kernel s.lua
[ $rc -eq 2 ] && grep -qF -- "--counters-by requires --counters" "$T/err" || fail "--counters-by alone: exit $rc"
w --profile h100 run --json c.json s.lua
[ $rc -eq 2 ] && grep -qF -- "--json requires --counters" "$T/err" || fail "--json alone: exit $rc"
w --profile h100 run --counters shared --counters-by module s.lua
[ $rc -eq 2 ] && grep -qF "module" "$T/err" || fail "--counters-by module: exit $rc"
for args in "--counters shared --sanitize memcheck s.lua" "--sanitize memcheck s.lua --counters shared"; do
  # shellcheck disable=SC2086
  w --profile h100 run $args
  [ $rc -eq 2 ] || fail "$args: exit $rc, want 2"
  grep -qxF "warplab: --counters and --sanitize cannot run together: compute-sanitizer and CUPTI's counters both instrument every launch; run the script once with each" "$T/err" ||
    fail "$args: the sentence"
  grep -q "script ran" "$T/out" && fail "$args: the script ran"
done

# No CUPTI: WARPLAB_CUPTI_DIR names the only folder searched. Exit 3, one sentence.
mkdir -p "$T/empty"
WARPLAB_CUPTI_DIR=$T/empty w --profile h100 run --counters shared s.lua
[ $rc -eq 3 ] || fail "no CUPTI: exit $rc, want 3"
grep -qxF "warplab: no CUPTI library: WARPLAB_CUPTI_DIR is '$T/empty' and holds no libcupti.so.13" "$T/err" ||
  fail "no CUPTI: the sentence"
grep -q "script ran" "$T/out" && fail "no CUPTI: the script ran"
# A libcupti.so.13 that is no CUPTI of CUDA 13: the sentence names the file (it once said
# "CUPTI at  is too old" for a library without cuptiGetVersion), exit 3.
for stub in "int warplab_not_cupti(void) { return 0; }" "int cuptiGetVersion(unsigned* v) { *v = 1; return 0; }"; do
  rm -rf "$T/old" && mkdir -p "$T/old"
  printf '%s\n' "$stub" | g++ -shared -fPIC -x c - -o "$T/old/libcupti.so.13" || fail "the stub CUPTI: no compiler"
  WARPLAB_CUPTI_DIR=$T/old w --profile h100 run --counters shared s.lua
  [ $rc -eq 3 ] || fail "a stub CUPTI ($stub): exit $rc, want 3"
  grep -qxF "warplab: the CUPTI library $T/old/libcupti.so.13 cannot count: it has no cuptiGetResultString (it is older than CUDA 13's, or no CUPTI at all; set WARPLAB_CUPTI_DIR to the folder of CUDA 13's libcupti.so.13)" "$T/err" ||
    fail "a stub CUPTI ($stub): the sentence names the file"
done
cat >avail.lua <<'LUA'
print(cuda.counters_available())
print(pcall(cuda.counters, function() end, "shared"))
LUA
WARPLAB_CUPTI_DIR=$T/empty w --profile h100 run avail.lua
[ $rc -eq 0 ] || fail "no CUPTI, cuda.counters in a script: exit $rc"
grep -qF "false	hardware counters need a GPU" "$T/out" || fail "counters_available offline"
grep -qxF "false	no CUPTI library: WARPLAB_CUPTI_DIR is '$T/empty' and holds no libcupti.so.13" "$T/out" ||
  fail "no CUPTI: cuda.counters's sentence"

# Through the stand-in driver (a "GPU" CUPTI cannot profile): CUPTI's refusal is one line
# (exit 6), and a script that asks for counters itself gets the sentence and goes on.
FAKE=$(dirname "$BIN")/fake_driver
if [ -f "$FAKE/libcuda.so.1" ]; then
  cat >fake.lua <<'LUA'
local m = assert(cuda.compile{source = "__global__ void k(int* p) { p[threadIdx.x] = 1; }"})
local a = cuda.array("i32", 32)
local ok, err = pcall(cuda.counters, function() m.k:launch(1, 32, a) end, "shared")
print("counters:", ok, err)
m.k:launch(1, 32, a)
cuda.synchronize()
print("still running")
LUA
  fake() { env -u WARPLAB_NO_DRIVER LD_LIBRARY_PATH="$FAKE" "$BIN" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
  fake run fake.lua
  [ $rc -eq 0 ] && grep -qxF "still running" "$T/out" || fail "stand-in driver: the script did not go on (exit $rc)"
  grep -qE "^counters:	false	cupti[A-Za-z]+ .*failed: CUPTI_ERROR_[A-Z_]+" "$T/out" || fail "stand-in driver: cuda.counters's sentence"
  fake run --counters shared fake.lua
  [ $rc -eq 6 ] || fail "stand-in driver, run --counters: exit $rc, want 6"
  grep -qE "^warplab: cupti[A-Za-z]+ .*failed: CUPTI_ERROR_[A-Z_]+" "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ] ||
    fail "stand-in driver, run --counters: one line"
  # A misspelling is said before CUPTI starts (it was exit 6, CUPTI's failure hiding it):
  # exit 4 with "did you mean", from run --counters and from cuda.counters alike.
  fake run --counters shared,sahred fake.lua
  [ $rc -eq 4 ] || fail "stand-in driver, a misspelled name: exit $rc, want 4"
  grep -qxF "warplab: --counters: unknown counter set or metric 'sahred': did you mean 'shared'? (sets: shared, memory, warps, stalls, sync, local, time; or a CUPTI metric name; warplab counters lists them all)" "$T/err" &&
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "stand-in driver, a misspelled name: the one sentence"
  grep -q "still running" "$T/out" && fail "stand-in driver, a misspelled name: the script ran"
  sed -i 's/"shared")/"shared,sahred")/' fake.lua
  fake run fake.lua
  [ $rc -eq 0 ] && grep -qxF "still running" "$T/out" || fail "stand-in driver, cuda.counters misspelled: exit $rc"
  grep -qF "counters:	false	unknown counter set or metric 'sahred': did you mean 'shared'?" "$T/out" ||
    fail "stand-in driver, cuda.counters misspelled: did you mean"
else
  echo "note: no stand-in driver beside $BIN: its cases are not checked"
fi

# watch passes --counters to each run (offline: each run's note).
timeout -s INT 6 "$BIN" --profile h100 watch s.lua --counters shared >"$T/out" 2>"$T/err" &
for _ in $(seq 100); do grep -q "run 1 ok" "$T/err" && break; sleep 0.05; done
wait
grep -qF "$NOTE" "$T/err" && grep -q "run 1 ok" "$T/err" || fail "watch --counters: the run's note"
grep -qxF "script ran: args= n=nil" "$T/out" || fail "watch --counters: the script"

# The REPL: :counters [SETS] CHUNK; every failure one sentence, the session goes on.
printf ':counters shared x = 1\n:counters sahred x = 1\n:counters\nprint("alive", x)\n' |
  timeout 20 "$BIN" --profile h100 repl >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "repl: exit $rc, want 1 (chunks failed)"
grep -qF "hardware counters need a GPU" "$T/err" || fail "repl :counters offline: the sentence"
grep -qF "unknown counter set or metric 'sahred'" "$T/err" && grep -qF "did you mean 'shared'" "$T/err" ||
  fail "repl :counters: did you mean"
grep -qxF ":counters needs a chunk: :counters shared k:launch(1, 32, a)" "$T/err" || fail "repl :counters alone"
grep -qxF "alive	nil" "$T/out" || fail "repl: the session did not go on (or the chunk ran offline)"

[ $failures -eq 0 ] || exit 1
echo "counters.sh: all passed"
