#!/usr/bin/env bash
# lines.sh: per-line counts on the command line, without a GPU. `compile --lines` lists
# each kernel's source lines with the instructions they made: the strided shared load of
# tests/data/kernels/lines.cu at its line, the barrier at its, the header function's load
# under the header; without a disassembler the kinds are the PTX's (one note), with one
# (nvdisasm from PyPI, installed into the build folder once) the SASS's, and --sass puts
# each line's SASS under it; a source compiled for compute_XX (PTX only) is listed from its
# PTX. cuda.lines(m), cuda.lines(k) and k:lines() give the same rows in Lua, of type
# warplab.lines; k:lines{...} and cuda.lines_available() say a GPU is needed. `run --lines`
# offline runs the script, says once that counting needs a GPU, and lists the map of each
# kernel it compiled (--json: the rows); `watch --lines` offline lists what the lines
# compiled to, then what an edit changed at a line. The bad inputs: an unknown set (exit
# 4), --lines with --counters (run and watch) or --sanitize
# (exit 2), --json without --counters or --lines (exit 2), --sass without --lines (exit 2).
# Usage: bash lines.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 XDG_STATE_HOME=$T/state
BIN=$(realpath "$BIN") ROOT=$(realpath "$ROOT")
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" "$T/err" | tail -n 30; failures=$((failures + 1)); }
cd "$T" || exit 1
K=$ROOT/tests/data/kernels/lines.cu
w() { "$BIN" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
# A listing row: "[> ] LINE ... TEXT [KINDS]".
has_row() {  # has_row LINE TEXT_PATTERN KIND
  grep -E "^[> ] +$1 .*$2.*\[([a-z ]+, )*$3(, [a-z ]+)*\]\$" "$T/out" >/dev/null
}

# Without a disassembler on PATH (none in this machine's toolkit): lines from the CUBIN's
# line table, kinds from the PTX by line, and one note saying so.
NO_TOOL=1
for d in ${PATH//:/ } /usr/local/cuda/bin; do
  [ -x "$d/cuobjdump" ] || [ -x "$d/nvdisasm" ] && NO_TOOL=0
done
w compile --arch sm_90 --kernel 'scaled<4>' --lines "$K"
[ $rc -eq 0 ] || fail "compile --lines: exit $rc"
grep -q "^banks: .* SASS instructions on [0-9]* lines" "$T/out" || fail "compile --lines: no heading for banks"
has_row 11 'acc \+= s\[' "shared load" || fail "line 11 is not listed as a shared load"
has_row 8 '__syncthreads\(\);' "barrier" || fail "line 8 is not listed as a barrier"
has_row 12 'out\[blockIdx.x' "global store" || fail "line 12 is not listed as a global store"
grep -q "^  .*lines_helper.cuh\$" "$T/out" || fail "the header is not listed under its name"
has_row 4 'return 2.f \* p\[i\];' "global load" || fail "the header's line 4 is not listed as a global load"
if [ $NO_TOOL = 1 ]; then
  grep -qF "neither cuobjdump nor nvdisasm found" "$T/out" || fail "without a disassembler: no note"
  grep -qF "instruction kinds are the PTX's, by line" "$T/out" || fail "without a disassembler: the note"
fi

# PTX only: the .loc lines.
w compile --arch compute_90 --lines "$K"
[ $rc -eq 0 ] || fail "compile --lines for compute_90: exit $rc"
grep -q "^banks: .* PTX instructions on" "$T/out" || fail "compute_90: not listed from the PTX"
has_row 11 'acc \+= s\[' "shared load" || fail "compute_90: line 11 is not a shared load"

# With nvdisasm (PyPI's nvidia-cuda-nvdisasm, kept in the build folder): the SASS's kinds,
# and --sass shows the instructions under their line.
NVD=$(dirname "$BIN")/pip-nvdisasm
if [ ! -x "$NVD/nvidia/cu13/bin/nvdisasm" ]; then
  python3 -m pip install --quiet --disable-pip-version-check --target "$NVD" nvidia-cuda-nvdisasm \
    >/dev/null 2>&1 || echo "note: nvidia-cuda-nvdisasm could not be installed: the SASS case is left out"
fi
if [ -x "$NVD/nvidia/cu13/bin/nvdisasm" ]; then
  PATH=$NVD/nvidia/cu13/bin:$PATH w compile --arch sm_90 --lines --sass "$K"
  [ $rc -eq 0 ] || fail "compile --lines --sass with nvdisasm: exit $rc"
  grep -qF "instruction kinds are the PTX's" "$T/out" && fail "with nvdisasm: still the no-disassembler note"
  has_row 11 'acc \+= s\[' "shared load" || fail "with nvdisasm: line 11 is not a shared load"
  grep -qE '^ +/\*[0-9a-f]{4}\*/ .*LDS ' "$T/out" || fail "--sass: no LDS instruction under its line"
  # The SASS instructions under line 11 (up to the next listed line) hold the LDS.
  awk '/^[> ] +11 /{on=1; next} /^[> ] +[0-9]+ /{on=0} on' "$T/out" | grep -q 'LDS' ||
    fail "--sass: the LDS is not under line 11"
fi

# Without line information (a kernel compiled by hand, loaded as it is): by offset, said so.
cat >nolines.lua <<LUA
local m = assert(cuda.compile{file = "$K", kernels = {"scaled<4>"}})
local rows = cuda.lines(m:kernel("banks", "float*, int, int"))
assert(#rows == 1 and rows[1].line == 0, "one row without lines, got " .. #rows)
assert(rows.kernels[1].note:find("without line information", 1, true), rows.kernels[1].note)
local lm = assert(cuda.compile{file = "$K", kernels = {"scaled<4>"}, lineinfo = true})
local all = cuda.lines(lm)
local found = {}
for _, r in ipairs(all) do
  for _, k in ipairs(r.kinds) do found[r.file:match("[^/]*$") .. ":" .. r.line .. ":" .. k] = r.instructions end
end
assert(found["lines.cu:11:shared load"], "cuda.lines(m): line 11 is no shared load")
assert(found["lines_helper.cuh:4:global load"], "cuda.lines(m): the header's load")
assert(tostring(all):find("banks: ", 1, true), "tostring: the listing")
local hot = all:hot(2)
assert(#hot == 2 and hot[1].instructions >= hot[2].instructions, "rows:hot(2)")
print("lua ok")
LUA
w --profile h100 run nolines.lua
[ $rc -eq 0 ] && grep -qx "lua ok" "$T/out" || fail "cuda.lines(m), cuda.lines(k): exit $rc"

# run --lines offline: the script runs, one note.
echo 'print("script ran")' >s.lua
w --profile h100 run --lines s.lua
[ $rc -eq 0 ] && grep -qx "script ran" "$T/out" || fail "run --lines offline: exit $rc"
grep -qF "warplab: --lines: per-line counts need a GPU, and this run has none" "$T/err" ||
  fail "run --lines offline: no note"
w --profile h100 run s.lua --lines=shared,global
[ $rc -eq 0 ] || fail "run --lines=shared,global after the script: exit $rc"
echo 'cuda.lines(function() end)' >live.lua
w --profile h100 run live.lua
[ $rc -eq 3 ] && grep -qF "per-line counts need a GPU" "$T/err" || fail "cuda.lines(fn) offline: exit $rc, want 3"

# run --lines offline: after the note, the map of each kernel the script compiled (and
# with --json the same rows as JSON).
printf 'local m = assert(cuda.compile{file = "%s", kernels = {"scaled<4>"}})\nprint("compiled")\n' "$K" >maps.lua
w --profile h100 run --lines maps.lua
[ $rc -eq 0 ] && grep -qx compiled "$T/out" || fail "run --lines offline, a compile: exit $rc"
grep -q "^banks: .* instructions on [0-9]* lines" "$T/out" || fail "run --lines offline: no map of banks"
has_row 11 'acc \+= s\[' "shared load" || fail "run --lines offline: line 11 is not a shared load"
if [ "$NO_TOOL" = 1 ]; then  # the kernels share the note: said once, under the first
  n=$(grep -c "neither cuobjdump nor nvdisasm found" "$T/out")
  k=$(grep -cE "^[a-z_<>0-9]+: [0-9]+ (SASS|PTX) instructions on" "$T/out")
  [ "$n" -eq 1 ] && [ "$k" -gt 1 ] || fail "run --lines offline: the no-disassembler note $n times for $k kernels"
fi
w --profile h100 run --lines --json maps.json maps.lua
[ $rc -eq 0 ] || fail "run --lines --json offline: exit $rc"
python3 - maps.json <<'PY' || fail "run --lines --json offline: the rows (above)"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
r = [r for r in rows if r["kernel"] == "banks" and r["line"] == 11]
ok = r and "shared load" in r[0]["kinds"] and r[0]["inst"] is None and r[0]["instructions"] > 0
print("banks line 11:", r[0] if r else "no row")
sys.exit(0 if ok else 1)
PY

# k:lines() is the kernel's map (no GPU); k:lines{...} a launch, which needs one;
# cuda.lines_available() says why not; the rows are of type warplab.lines.
cat >klines.lua <<LUA
local m = assert(cuda.compile{file = "$K", kernels = {"scaled<4>"}, lineinfo = true})
local k = m:kernel("banks", "float*, int, int")
local rows = k:lines()
assert(#rows == #cuda.lines(k) and #rows > 3, "k:lines() and cuda.lines(k) differ: " .. #rows)
assert(getmetatable(rows) == "warplab.lines", "rows type: " .. tostring(getmetatable(rows)))
assert(tostring(rows):find("^banks: "), "tostring(k:lines())")
local ok, err = pcall(k.lines, k, {grid = 1, block = 32, args = {}, columns = "shared"})
assert(not ok and err:find("per%-line counts need a GPU"), tostring(err))
ok, err = pcall(k.lines, k, {grid = 1, block = 32, args = {}, columns = "shard"})
assert(not ok and err:find("k:lines: 'shard' is no set of line columns", 1, true), tostring(err))
local avail, why = cuda.lines_available()
assert(avail == false and why:find("per%-line counts need a GPU"), tostring(why))
ok, err = pcall(rows.hot, rows, -1)
assert(not ok and err:find("rows:hot(n): n must be 0 or more", 1, true), tostring(err))
print("k:lines ok")
LUA
w --profile h100 run klines.lua
[ $rc -eq 0 ] && grep -qx "k:lines ok" "$T/out" || fail "k:lines offline: exit $rc"

# watch --lines offline: the first run lists what the lines compiled to; a save that turns
# line 8's shared load into a global one says so, old -> new.
kernel() {  # what line 8 reads: s (shared) or out (global)
  cat >k.cu <<CU
// line 1
__global__ void bank(float* out, int reps) {
  __shared__ float s[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = (float)i;
  __syncthreads();
  float acc = 0.f;
  for (int r = 0; r < reps; ++r)
    acc += $1[(threadIdx.x * 32 + r) & (32 * 32 - 1)];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
CU
}
kernel s
echo 'assert(cuda.compile("k.cu")) print("compiled")' >ws.lua
"$BIN" --profile h100 watch --lines ws.lua >"$T/wout" 2>"$T/werr" &
WPID=$!
wait_in() { for _ in $(seq 300); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
if wait_in "$T/werr" 'run 1 ok' && wait_in "$T/werr" '^lines \(no GPU: what they compiled to\):'; then
  wait_in "$T/werr" '^  bank  line 8: [0-9]+ instructions \[.*shared load' || { cat "$T/werr"; fail "watch --lines: line 8"; }
  sleep 0.5
  kernel out
  wait_in "$T/werr" 'run 2 ok' && wait_in "$T/werr" '^  bank  line 8: .*\[.*shared load.*\] -> \[.*global load' ||
    { cat "$T/werr"; fail "watch --lines: the change at line 8"; }
else
  cat "$T/werr"; fail "watch --lines offline: no first listing"
fi
kill -INT $WPID 2>/dev/null
for _ in $(seq 100); do kill -0 $WPID 2>/dev/null || break; sleep 0.05; done
kill -KILL $WPID 2>/dev/null

# Bad inputs: one sentence each.
w --profile h100 run --lines=shard s.lua
[ $rc -eq 4 ] && grep -qF "'shard' is no set of line columns: the sets are instructions, shared" "$T/err" ||
  fail "an unknown set: exit $rc, want 4"
w --profile h100 run --lines=shared,stalls s.lua
[ $rc -eq 0 ] && grep -qF "per-line counts need a GPU" "$T/err" || fail "counts with stalls offline: exit $rc, want 0"
w --profile h100 run --lines --counters shared s.lua
[ $rc -eq 2 ] && grep -qF -- "--lines and --counters cannot run together" "$T/err" ||
  fail "--lines with --counters: exit $rc, want 2"
w --profile h100 run --lines --sanitize memcheck s.lua
[ $rc -eq 2 ] && grep -qF -- "--lines and --sanitize cannot run together" "$T/err" ||
  fail "--lines with --sanitize: exit $rc, want 2"
w --profile h100 watch --lines --counters shared s.lua
[ $rc -eq 2 ] && grep -qF -- "--lines and --counters cannot run together" "$T/err" ||
  fail "watch --lines with --counters: exit $rc, want 2"
w --profile h100 run --json x.json s.lua
[ $rc -eq 2 ] && grep -qF -- "--json requires --counters or --lines" "$T/err" || fail "--json alone: exit $rc"
w --profile h100 run --sass s.lua
[ $rc -eq 2 ] && grep -qF -- "--sass requires --lines" "$T/err" || fail "--sass alone: exit $rc"
echo 'cuda.lines(function() end, "shard")' >bad.lua
w --profile h100 run bad.lua
[ $rc -eq 1 ] && grep -qF "cuda.lines: 'shard' is no set of line columns" "$T/err" ||
  fail "cuda.lines with an unknown set: exit $rc"
echo 'cuda.lines(42)' >bad2.lua
w --profile h100 run bad2.lua
[ $rc -eq 1 ] && grep -qF "cuda.lines: expected a function that launches the kernels" "$T/err" ||
  fail "cuda.lines(42): exit $rc"

[ $failures -eq 0 ] && echo "lines.sh: ok"
exit $((failures > 0))
