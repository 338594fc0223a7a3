#!/usr/bin/env bash
# counters_fake_driver.sh: hardware counters with no GPU, through the stand-in driver
# (build/fake_driver) and the stand-in CUPTI (build/fake_cupti: bench/fake_cupti.cpp, each
# launch one range, values 1000 * (range + 1) + metric index). Every launch path reports to
# the counter session: k:launch and k{...} (one row each, with the kernel's name and the
# script line), k:bench (each of its launches), k:counters (its one row) and nesting
# (cuda.counters inside run --counters); a launch captured by cuda.graph is not counted
# (nothing runs), and g:launch while counters count is refused with one sentence before the
# graph runs (the stand-in driver runs nothing, so the GPU test counters_graph_gpu.sh shows
# that the graph's result is kept); branch_efficiency of a kernel that branched nowhere is
# "-" (null, NaN), not CUPTI's 0 %. Exit 77 without the stand-ins.
# Usage: bash counters_fake_driver.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; SRC="$2"
LIB="$(dirname "$W")/fake_driver" CUPTI="$(dirname "$W")/fake_cupti"
[ -f "$LIB/libcuda.so.1" ] || { echo "skipped: no $LIB/libcuda.so.1 (target warplab_fake_driver)"; exit 77; }
[ -f "$CUPTI/libcupti.so.13" ] || { echo "skipped: no $CUPTI/libcupti.so.13 (target warplab_fake_cupti)"; exit 77; }
WARPLAB_CACHE_DIR="$(mktemp -d)"
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" WARPLAB_CACHE_DIR NO_COLOR=1
export WARPLAB_CUPTI_DIR="$CUPTI" WARPLAB_LUA_DIR="$SRC/lua"
T="$(mktemp -d)"; trap 'rm -rf "$T" "$WARPLAB_CACHE_DIR"' EXIT
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
cd "$T" || exit 1
failures=0
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" "$T/err" 2>/dev/null | tail -n 30; failures=$((failures + 1)); }

cat >paths.lua <<'LUA'
local t = require "warplab.test"
assert(cuda.device().live and tostring(cuda.device()):find("fake driver", 1, true), "not the fake driver")
assert(cuda.counters_available(), "the stand-in CUPTI is not loaded")
local m = assert(cuda.compile{source = [[
__global__ void add_one(int* a) { a[0] += 1; }
__global__ void twice(int* a, int n) {}
]], name = "paths.cu"})
local a = cuda.array("i32", 32)
t.case("k:launch and k{...}: a row each, named, with the script line", function()
  local rows = cuda.counters(function()
    m.add_one:launch(1, 1, a)
    m.twice{grid = 2, block = 64, args = {a, 3}}
  end, {"duration"})
  t.eq(#rows, 2)
  t.eq(rows[1].kernel, "add_one")
  t.eq(rows[1].site, "paths.lua:11")
  t.eq(rows[2].kernel, "twice")
  t.eq(rows[2].site, "paths.lua:12")
  t.eq(rows[2].grid, {2, 1, 1})
  t.eq(rows[2].block, {64, 1, 1})
  t.eq(rows[1].duration, 1000)
  t.eq(rows[2].duration, 2000)
  t.eq(rows.note, nil)
end)
t.case("k:bench: its untimed launch, warmups and timed launches are each counted", function()
  local rows = cuda.counters(function() m.add_one:bench{grid = 1, block = 1, args = {a}, warmup = 2, reps = 3} end,
    "duration")
  t.eq(#rows, 5)  -- the untimed launch (which is also the first warmup), 1 more warmup, 3 timed
  for i = 1, 5 do t.eq(rows[i].kernel, "add_one") end
end)
t.case("k:counters: one row", function()
  local row = m.twice:counters{grid = 1, block = 32, args = {a, 1}, metrics = {"duration"}}
  t.eq(row.kernel, "twice")
  t.eq(row.duration, 1000)
end)
t.case("a capture inside cuda.counters records, runs nothing: no row", function()
  local g
  local rows = cuda.counters(function()
    g = cuda.graph(function() m.add_one:launch(1, 1, a); m.add_one:launch(1, 1, a) end)
  end, "duration")
  t.eq(#rows, 0)
  t.eq(g.nodes, 2)
  g:free()
end)
t.case("g:launch while counters count: refused before the graph runs", function()
  local g = cuda.graph(function() m.add_one:launch(1, 1, a); m.add_one:launch(1, 1, a) end)
  local ok, err = pcall(cuda.counters, function() g:launch(); cuda.synchronize() end, "duration")
  assert(not ok, "g:launch was counted")
  assert(err:find("g:launch cannot run while hardware counters count", 1, true), err)
  assert(err:find("count the kernels of cuda.graph at paths.lua:", 1, true), err)
  g:launch()  -- counting over: the graph replays as before
  cuda.synchronize()
  local rows = cuda.counters(function() m.add_one:launch(1, 1, a) end, "duration")
  t.eq(#rows, 1)  -- the session after the refusal counts as before
  g:free()
end)
t.case("cuda.counters inside a capture: refused, one sentence", function()
  local ok, err = pcall(cuda.graph, function() cuda.counters(function() end, "duration") end)
  assert(not ok)
  assert(err:find("cuda.counters cannot run during the capture of cuda.graph: hardware counters", 1, true), err)
end)
t.run{exit = true}
LUA
timeout 60 "$W" run paths.lua >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && grep -q "^6 passed, 0 failed$" "$T/out" || fail "paths.lua: exit $rc"

# run --counters around a script with a graph: the script ends at g:launch with the
# sentence (a script error: exit 1), and the table has the launch made before it.
cat >graph.lua <<'LUA'
local m = assert(cuda.compile{source = "__global__ void add_one(int* a) { a[0] += 1; }", name = "g.cu"})
local a = cuda.array("i32", 1)
m.add_one:launch(1, 1, a)
local g = cuda.graph(function() m.add_one:launch(1, 1, a) end)
g:launch()
print("not reached")
LUA
timeout 60 "$W" run graph.lua --counters duration >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] || fail "run --counters of a graph's replay: exit $rc, not 1"
grep -q "g:launch cannot run while hardware counters count (cuda.counters, k:counters, run --counters)" "$T/err" ||
  fail "run --counters of a graph's replay: the sentence"
grep -q "not reached" "$T/out" && fail "the script went on after the refused replay"
grep -qE '^#1 add_one  grid 1  block 1  graph\.lua:3$' "$T/out" || fail "run --counters: the launch before the replay"

# run --counters: every launch of the script, a table row each; the script's own
# cuda.counters nested inside gets its rows and the outer table keeps them too.
cat >nested.lua <<'LUA'
local m = assert(cuda.compile{source = "__global__ void k(int* a) {}", name = "n.cu"})
local a = cuda.array("i32", 1)
m.k:launch(1, 1, a)
local rows = cuda.counters(function() m.k:launch(2, 1, a) end, "smsp__warps_launched.sum")
print("inner rows " .. #rows .. " " .. rows[1].kernel)
m.k:launch(3, 1, a)
LUA
timeout 60 "$W" run nested.lua --counters duration >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] || fail "run --counters nested: exit $rc"
grep -q "^inner rows 1 k$" "$T/out" || fail "the inner session's row"
[ "$(grep -cE '^#[0-9]+ k  grid [123]  block 1  nested\.lua:[346]$' "$T/out")" -eq 3 ] || fail "the outer table's three launches"

# branch_efficiency of a kernel that branched nowhere (the stand-in's kernels run no code:
# smsp__sass_branch_targets counts 0) is no value, where CUPTI says 0 %: "-" in the table,
# per launch and per kernel, null in the JSON, NaN in Lua.
cat >branches.lua <<'LUA'
local m = assert(cuda.compile{source = "__global__ void flat(int* a) { a[0] = 1; }", name = "b.cu"})
local a = cuda.array("i32", 1)
m.flat:launch(1, 1, a)
local row = m.flat:counters{grid = 1, block = 1, args = {a}, metrics = {"branch_efficiency", "duration"}}
print("lua nan " .. tostring(row.branch_efficiency ~= row.branch_efficiency) .. " duration " .. tostring(row.duration > 0))
LUA
timeout 60 "$W" run branches.lua --counters branch_efficiency >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] || fail "branch_efficiency without branches: exit $rc"
grep -qxF "lua nan true duration true" "$T/out" || fail "k:counters: branch_efficiency is not NaN"
[ "$(grep -cxF "    branch_efficiency  -  %" "$T/out")" -eq 2 ] || fail "run --counters: branch_efficiency is not -"
timeout 60 "$W" run branches.lua --counters branch_efficiency --counters-by kernel >"$T/out" 2>"$T/err"
grep -qE '^flat  2 launches  grid 1  block 1$' "$T/out" && grep -qxF "    branch_efficiency  -  %" "$T/out" ||
  fail "run --counters-by kernel: branch_efficiency is not -"
timeout 60 "$W" run branches.lua --counters warps --json "$T/c.json" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] || fail "run --counters warps --json: exit $rc"
python3 - "$T/c.json" <<'PY' || fail "run --counters warps --json: branch_efficiency is not null"
import json, sys
j = json.load(open(sys.argv[1]))
assert len(j["rows"]) == 2, j["rows"]
for r in j["rows"]:
    assert r["values"]["branch_efficiency"] is None, r
assert [c["of"] for c in j["counters"]] == ["smsp__sass_branch_targets.sum"], j["counters"]
assert j["unavailable"] == ["achieved_occupancy", "threads_per_instruction", "divergent_branches", "branches"], j
PY

[ $failures -eq 0 ] && echo "counters_fake_driver: all passed"
[ $failures -eq 0 ]
