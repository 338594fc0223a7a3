#!/usr/bin/env bash
# counters_graph_gpu.sh (GPU): an instrument must not change what it measures. A graph of two
# kernels that each add 1 to a[1] gives 2 when replayed; replayed inside cuda.counters it is
# refused with one sentence before it runs (CUPTI would count the replay as one launch
# without names, and its replay passes changed the result: a[1] == 1 on an H200), so a[1]
# keeps its value; the same two kernels launched one by one are counted, a row each with
# its name, and their result is kept (a[1] goes up by 2). `run --counters` of a script
# that replays a graph ends there with the sentence (a script error, exit 1). Exit 77
# without a GPU or CUPTI.
# Usage: bash counters_graph_gpu.sh <warplab binary> <source root>
set -u
W=$(realpath "$1") ROOT=$(realpath "$2")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
export NO_COLOR=1 XDG_STATE_HOME=$T/state WARPLAB_LUA_DIR=$ROOT/lua
failures=0
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" "$T/err" 2>/dev/null | tail -n 30; failures=$((failures + 1)); }
cd "$T" || exit 1
echo 'local ok, why = cuda.counters_available(); io.write(tostring(cuda.device().live), " ", tostring(why or ok))' >probe.lua
probe=$("$W" run probe.lua 2>/dev/null)
[ "${probe%% *}" = true ] || { echo "skipped: no CUDA device"; exit 77; }
[ "${probe#* }" = true ] || { echo "skipped: ${probe#* }"; exit 77; }

cat >graph.lua <<'LUA'
local m = assert(cuda.compile{source = [[
extern "C" __global__ void add_one(int* a) { if (threadIdx.x == 0) a[0] += 1; }
extern "C" __global__ void add_one_again(int* a) { if (threadIdx.x == 0) a[0] += 1; }
]], name = "add.cu"})
local k1, k2 = m:kernel("add_one", "int*"), m:kernel("add_one_again", "int*")
local a = cuda.array("i32", 1)
a:zero()
local g = cuda.graph(function() k1:launch(1, 32, a); k2:launch(1, 32, a) end)
g:launch()
cuda.synchronize()
assert(a[1] == 2, "the graph's replay gave a[1] = " .. a[1] .. ", not 2")
local ok, err = pcall(cuda.counters, function() g:launch(); cuda.synchronize() end, {"warps"})
assert(not ok, "g:launch was counted (a[1] = " .. a[1] .. ")")
assert(err:find("g:launch cannot run while hardware counters count", 1, true), err)
cuda.synchronize()
assert(a[1] == 2, "the refused replay changed a[1] to " .. a[1])
local rows = cuda.counters(function() k1:launch(1, 32, a); k2:launch(1, 32, a); cuda.synchronize() end, {"warps"})
assert(#rows == 2, #rows .. " rows for two launches")
assert(rows[1].kernel == "add_one" and rows[2].kernel == "add_one_again",
       "rows named " .. rows[1].kernel .. ", " .. rows[2].kernel)
assert(a[1] == 4, "counting two launches left a[1] = " .. a[1] .. ", not 4")
g:launch()
cuda.synchronize()
assert(a[1] == 6, "the graph after the counters gave a[1] = " .. a[1] .. ", not 6")
print("graph kept: " .. a[1])
LUA
timeout 120 "$W" run graph.lua >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && grep -q "^graph kept: 6$" "$T/out" || fail "graph.lua: exit $rc"

cat >run.lua <<'LUA'
local m = assert(cuda.compile{source = [[
extern "C" __global__ void add_one(int* a) { if (threadIdx.x == 0) a[0] += 1; }]], name = "add.cu"})
local k = m:kernel("add_one", "int*")
local a = cuda.array("i32", 1)
local g = cuda.graph(function() k:launch(1, 32, a); k:launch(1, 32, a) end)
g:launch()
print("not reached")
LUA
timeout 120 "$W" run run.lua --counters warps >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] || fail "run --counters of a graph's replay: exit $rc, not 1"
grep -q "g:launch cannot run while hardware counters count" "$T/err" || fail "run --counters: the sentence"
grep -q "not reached" "$T/out" && fail "run --counters: the script went on after the refusal"

[ $failures -eq 0 ] && echo "counters_graph_gpu: all passed"
[ $failures -eq 0 ]
