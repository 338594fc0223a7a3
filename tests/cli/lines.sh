#!/usr/bin/env bash
# lines.sh: per-line counts on the command line, without a GPU. `compile --lines` lists
# each kernel's source lines with the instructions they made: the strided shared load of
# tests/data/kernels/lines.cu at its line, the barrier at its, the header function's load
# under the header; without a disassembler the kinds are the PTX's (one note), with one
# (nvdisasm from PyPI, installed into the build folder once) the SASS's, and --sass puts
# each line's SASS under it; a source compiled for compute_XX (PTX only) is listed from its
# PTX. cuda.lines(m) and cuda.lines(k) give the same rows in Lua. `run --lines` offline
# runs the script and says, once, that counting needs a GPU; the bad inputs: an unknown
# set (exit 4), counts with stalls (exit 4), --lines with --counters or --sanitize (exit 2),
# --json without --counters or --lines (exit 2), --sass without --lines (exit 2).
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

# Bad inputs: one sentence each.
w --profile h100 run --lines=shard s.lua
[ $rc -eq 4 ] && grep -qF "'shard' is no set of line columns: the sets are instructions, shared" "$T/err" ||
  fail "an unknown set: exit $rc, want 4"
w --profile h100 run --lines=shared,stalls s.lua
[ $rc -eq 4 ] && grep -qF "ask for the counts and for stalls in two runs" "$T/err" ||
  fail "counts with stalls: exit $rc, want 4"
w --profile h100 run --lines --counters shared s.lua
[ $rc -eq 2 ] && grep -qF -- "--lines and --counters cannot run together" "$T/err" ||
  fail "--lines with --counters: exit $rc, want 2"
w --profile h100 run --lines --sanitize memcheck s.lua
[ $rc -eq 2 ] && grep -qF -- "--lines and --sanitize cannot run together" "$T/err" ||
  fail "--lines with --sanitize: exit $rc, want 2"
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
