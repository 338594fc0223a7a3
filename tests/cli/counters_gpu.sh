#!/usr/bin/env bash
# counters_gpu.sh (GPU): hardware counters through every front end, on a one-warp shared
# store at stride 32 and 1 (31 and 0 bank conflicts per request). `run --counters` prints
# the table after the script's output (per launch, then --counters-by kernel, kernels of
# one name kept apart by signature or module), and --json
# writes the same numbers; a script's own cuda.counters inside `run --counters` (nested
# sessions) gets its rows and the outer table keeps every launch; `watch --counters` shows
# 31 -> 0 after an edit, and says when a run launched nothing; branch_efficiency of a
# kernel without branches is "-" (NaN), not 0; the REPL's :counters prints the table; a counted kernel that
# faults is one sentence (the script catching it goes on); one that never ends is the
# watchdog's sentence, exit 7, under --timeout. Exit 77 without a GPU.
# Usage: bash counters_gpu.sh <warplab binary> <source root>
set -u
W=$(realpath "$1") ROOT=$(realpath "$2")
T=$(mktemp -d)
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
export NO_COLOR=1 XDG_STATE_HOME=$T/state WARPLAB_LUA_DIR=$ROOT/lua
failures=0
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" "$T/err" 2>/dev/null | tail -n 30; failures=$((failures + 1)); }
cd "$T" || exit 1
echo 'io.write(tostring(cuda.device().live))' >probe.lua
[ "$("$W" run probe.lua 2>/dev/null)" = true ] || { echo "skipped: no CUDA device"; exit 77; }

cat >k.lua <<'LUA'
local params = require "warplab.params"
local p = params{stride = 32, inner = false}
local m = assert(cuda.compile{source = [[
extern "C" __global__ void store(int* out, int stride) {
  __shared__ int s[32 * 33];
  s[threadIdx.x * stride] = threadIdx.x;
  __syncwarp();
  out[threadIdx.x] = s[threadIdx.x];
}]], name = "store.cu"})
local k = m:kernel("store", "int*, int")
local a = cuda.array("i32", 32)
k:launch(1, 32, a, p.stride)
k:launch(1, 32, a, 1)
if p.inner then
  local rows = cuda.counters(function() k:launch(1, 32, a, 32) end, "shared_st_conflicts")
  print(string.format("inner: %d", rows[1].shared_st_conflicts))
end
print("script done")
LUA
w() { timeout 120 "$W" "$@" >"$T/out" 2>"$T/err"; rc=$?; }

# The table, after the script's output: one block per launch.
w run k.lua --counters shared
[ $rc -eq 0 ] || fail "run --counters: exit $rc"
grep -q "^hardware counters: shared on " "$T/out" || fail "the table's heading"
[ "$(grep -n 'script done' "$T/out" | cut -d: -f1)" -lt "$(grep -n '^hardware counters' "$T/out" | cut -d: -f1)" ] ||
  fail "the table is not after the script's output"
grep -qE "^#1 store  grid 1  block 32  k\.lua:12$" "$T/out" || fail "launch 1's line"
grep -qE "^ +shared_st_conflicts_per_request +31  conflicts/request$" "$T/out" || fail "31 conflicts per request"
grep -qE "^ +shared_st_conflicts_per_request +0  conflicts/request$" "$T/out" || fail "0 conflicts per request"
# Per kernel: the two launches combined (31 conflicts over 2 requests).
w run k.lua --counters shared_st_conflicts,shared_st_requests,shared_st_conflicts_per_request --counters-by kernel
grep -qE "^store  2 launches  grid 1  block 32" "$T/out" && grep -qE "^ +shared_st_conflicts_per_request +15\.50 " "$T/out" ||
  fail "--counters-by kernel"
# Kernels that share a name are kept apart per kernel, never summed: overloads by their
# signature, one extern "C" name in two modules by its module.
cat >same.lua <<'LUA'
local store = [[
extern "C" __global__ void k(int* out, int stride) {
  __shared__ int s[32 * 33];
  s[threadIdx.x * stride] = threadIdx.x;
  __syncwarp();
  out[threadIdx.x] = s[threadIdx.x];
}]]
local a = assert(cuda.compile{source = store, name = "a.cu"}):kernel("k", "int*, int")
local b = assert(cuda.compile{source = store, name = "b.cu"}):kernel("k", "int*, int")
local o = assert(cuda.compile{source = [[
template <class T> __device__ void put(T* out, int stride) {
  __shared__ T s[32 * 33];
  s[threadIdx.x * stride] = T(threadIdx.x);
  __syncwarp();
  out[threadIdx.x] = s[threadIdx.x];
}
__global__ void f(int* out, int stride) { put(out, stride); }
__global__ void f(float* out, int stride) { put(out, stride); }]], name = "o.cu"})
local ints, floats = cuda.array("i32", 32), cuda.array("f32", 32)
a:launch(1, 32, ints, 32)
b:launch(1, 32, ints, 1)
o:kernel("f(int*, int)"):launch(1, 32, ints, 32)
o:kernel("f(float*, int)"):launch(1, 32, floats, 1)
LUA
w run same.lua --counters shared_st_conflicts --counters-by kernel
[ $rc -eq 0 ] || fail "kernels of one name: exit $rc"
grep -qE "^hardware counters: .* 4 launches of 4 kernels$" "$T/out" || fail "kernels of one name: 4 kernels"
for want in "k in a.cu  1 launch:31" "k in b.cu  1 launch:0" "f\(int\*, int\)  1 launch:31" "f\(float\*, int\)  1 launch:0"; do
  grep -A1 -E "^${want%%:*}" "$T/out" | grep -qE "^ +shared_st_conflicts +${want##*:}  conflicts$" ||
    fail "kernels of one name: the row of ${want%%:*} (want ${want##*:})"
done

# JSON, to a file and to stdout.
w run k.lua --counters shared --json c.json
python3 - c.json <<'PY' || fail "--json FILE"
import json, sys
j = json.load(open(sys.argv[1]))
rows = j["rows"]
assert j["by"] == "launch" and len(rows) == 2, j
assert rows[0]["kernel"] == "store" and rows[0]["block"] == [32, 1, 1] and rows[0]["site"] == "k.lua:12", rows[0]
assert rows[0]["values"]["shared_st_conflicts_per_request"] == 31 and rows[1]["values"]["shared_st_conflicts"] == 0, rows
PY
grep -q "^hardware counters" "$T/out" && fail "--json FILE printed the table too"
w run k.lua --counters shared --json -
grep -q '"shared_st_conflicts_per_request": 31' "$T/out" || fail "--json -"

# A script's own cuda.counters inside run --counters: both see the launch.
w run k.lua -p inner=true --counters shared_st_conflicts
[ $rc -eq 0 ] && grep -qxF "inner: 31" "$T/out" || fail "nested: the script's own rows (exit $rc)"
[ "$(grep -cE '^ +shared_st_conflicts +31  conflicts$' "$T/out")" -eq 2 ] || fail "nested: the outer table has both stride-32 launches"
grep -qE "^hardware counters: .* 3 launches$" "$T/out" || fail "nested: 3 launches in the outer table"

# watch --counters: an edit from stride 32 to 1 shows 31 -> 0 (per kernel: 31 -> 0 conflicts).
timeout 60 "$W" watch k.lua --counters shared_st_conflicts >"$T/out" 2>"$T/err" &
WPID=$!
seen() { for _ in $(seq 300); do grep -qE "$1" "$T/err" && return 0; sleep 0.1; done; return 1; }
seen "^  store  shared_st_conflicts  31 conflicts$" || fail "watch: the first run's counters"
sed -i 's/stride = 32, inner/stride = 1, inner/' k.lua
seen "^  store  shared_st_conflicts  31 -> 0 conflicts$" || fail "watch: 31 -> 0 after the edit"
kill -INT $WPID; wait $WPID; WPID=""
# A run that launches nothing says so (it printed an empty "counters:").
echo 'print("no launch")' >none.lua
timeout 60 "$W" watch none.lua --counters shared >"$T/out" 2>"$T/err" &
WPID=$!
seen "^counters: no kernel was launched$" || fail "watch: a run without launches"
kill -INT $WPID; wait $WPID; WPID=""

# branch_efficiency of a kernel that takes no branch is no value ("-", NaN) where CUPTI
# says 0 %: the branch targets it is a share of counted 0; a kernel whose warps split is a
# percentage below 100. The CUPTI counts are printed either way.
cat >branch.lua <<'LUA'
local m = assert(cuda.compile{source = [[
extern "C" __global__ void flat(int* o) { o[threadIdx.x] = threadIdx.x; }
extern "C" __global__ void split(int* o, int n) {
  int v = threadIdx.x;
  if (threadIdx.x & 1) { for (int i = 0; i < n; ++i) v = v * 3 + 1; }
  else { for (int i = 0; i < 2 * n; ++i) v ^= v >> 1; }
  o[threadIdx.x] = v;
}]]})
local flat, split = m:kernel("flat", "int*"), m:kernel("split", "int*, int")
local a = cuda.array("i32", 64)
local targets, pct = "smsp__sass_branch_targets.sum", "smsp__sass_average_branch_targets_threads_uniform.pct"
local rows = cuda.counters(function() flat:launch(1, 32, a); split:launch(1, 64, a, 16) end,
                           {"branch_efficiency", targets, pct})
for _, r in ipairs(rows) do print(r.kernel, r.branch_efficiency, r[targets], r[pct]) end
print(rows)
assert(rows[1][targets] == 0, "flat: " .. rows[1][targets] .. " branch targets")
assert(rows[1].branch_efficiency ~= rows[1].branch_efficiency, "flat: branch_efficiency is not NaN")
assert(rows[2][targets] > 0 and rows[2].branch_efficiency < 100, "split: no divergent branch counted")
LUA
w run branch.lua
[ $rc -eq 0 ] && grep -qE "^ +branch_efficiency +-  %$" "$T/out" || fail "branch_efficiency without branches (exit $rc)"

# The REPL.
printf 'm = cuda.compile{source = "extern \\"C\\" __global__ void s(int* o) { __shared__ int b[1024]; b[threadIdx.x * 32] = 1; __syncwarp(); o[threadIdx.x] = b[threadIdx.x]; }"}\nk = m:kernel("s", "int*")\na = cuda.array("i32", 32)\n:counters shared_st_conflicts k:launch(1, 32, a)\n' |
  timeout 60 "$W" repl >"$T/out" 2>"$T/err"
[ $? -eq 0 ] && grep -qE "^ +shared_st_conflicts +31  conflicts$" "$T/out" || fail "repl :counters"

# A counted kernel that faults: one sentence naming it; a script that catches it goes on.
cat >fault.lua <<'LUA'
local m = assert(cuda.compile{source = [[extern "C" __global__ void poke(int* p) { p[threadIdx.x + (1 << 30)] = 1; }]]})
local k = m:kernel("poke", "int*")
local a = cuda.array("i32", 32)
local ok, err = pcall(cuda.counters, function() k:launch(1, 32, a) end, "shared")
print("caught:", ok, err)
LUA
w run fault.lua
[ $rc -eq 0 ] && grep -qE "^caught:	false	.*poke.*(faulted|CUDA_ERROR)" "$T/out" || fail "a faulting counted kernel (exit $rc)"

# A counted kernel that never ends: the watchdog, exit 7, one sentence.
cat >hang.lua <<'LUA'
local m = assert(cuda.compile{source = [[extern "C" __global__ void spin(int* f) { while (*(volatile int*)f == 0) {} }]]})
local k = m:kernel("spin", "int*")
local a = cuda.array("i32", 1):zero()
cuda.counters(function() k:launch(1, 32, a) end, "shared")
LUA
w --timeout 2 run hang.lua
[ $rc -eq 7 ] && grep -qE "spin.*(did not finish within|probable deadlock)" "$T/err" || fail "a counted kernel that hangs: exit $rc"

[ $failures -eq 0 ] || exit 1
echo "counters_gpu.sh: all passed"
