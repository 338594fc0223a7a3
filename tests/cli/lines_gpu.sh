#!/usr/bin/env bash
# lines_gpu.sh (GPU): per-line counts through `run --lines`, cuda.lines and k:lines on an
# inline source: the strided shared load (line 8) is 32.0-way at stride 32 and 1.0-way at
# stride 1, every other line at most 1.0-way; a global load at a stride of 4 floats (line 13,
# alone on its line) reads 4x its ideal sectors, the contiguous store under it 1x; a branch
# split inside each warp is a divergent branch at its line; --json writes the rows; --sass
# puts the SASS under each line; --lines=stalls puts most stall samples on the conflicting
# line; --lines=all gives both in one run (the script twice, its output once). Several
# collections in one process, each kind after each (counts x3, counts then
# stalls, stalls x2, stalls then counts), each a script of its own that must print its
# last line and exit 0 (with WARPLAB_STARTUP_TRACE=1: on a failure the last trace lines say
# how far its teardown got; killed by a signal, it runs once more under gdb, when there is
# one, for the threads' stacks). k:lines{...} collects one launch, the REPL's :lines prints the
# listing of a chunk's launch. Under run --lines a script's own counters and lines are not
# available (one sentence each, and banks.lua runs to its end); a kernel that faults while
# counted is one sentence. Each check prints what it measured next to what it wants.
# Exit 77 without a GPU. Usage: bash lines_gpu.sh <warplab binary> <source root>
set -u
W=$(realpath "$1") ROOT=$(realpath "$2")
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
export NO_COLOR=1 XDG_STATE_HOME=$T/state WARPLAB_LUA_DIR=$ROOT/lua
failures=0
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" "$T/err" 2>/dev/null | tail -n 40; failures=$((failures + 1)); }
cd "$T" || exit 1
echo 'io.write(tostring(cuda.device().live))' >probe.lua
[ "$("$W" run probe.lua 2>/dev/null)" = true ] || { echo "skipped: no CUDA device"; exit 77; }
w() { "$W" "$@" >"$T/out" 2>"$T/err"; rc=$?; }

cat >k.lua <<'LUA'
local m = assert(cuda.compile{name = "k.cu", kernels = {"stride<32>", "stride<1>"}, source = [[
template <int S>
__global__ void stride(float* out, int reps) {
  __shared__ float s[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = (float)i;
  __syncthreads();
  float acc = 0.f;
  for (int r = 0; r < reps; ++r)
    acc += s[(threadIdx.x * S + r) & (32 * 32 - 1)];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
extern "C" __global__ void gload(const float* x, float* out, int stride) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = x[i * stride];
  out[i] = v;
}
extern "C" __global__ void branchy(float* out, int iters) {
  float v = threadIdx.x;
  if (threadIdx.x & 1) {
    for (int i = 0; i < iters; ++i) v = v * 1.0001f + 0.5f;
  } else {
    for (int i = 0; i < 2 * iters; ++i) v = v * 0.9999f - 0.25f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}]]})
local s32, s1 = m["stride<32>"], m["stride<1>"]
local gload, branchy = m:kernel("gload", "const float*, float*, int"), m:kernel("branchy", "float*, int")
local out = cuda.array("f32", 132 * 4 * 256)
local x = cuda.array("f32", 8 * 256 * 4):fill(1)
s32:launch(132 * 4, 256, out, 256)
s1:launch(132 * 4, 256, out, 256)
gload:launch(8, 256, x, out, 4)
branchy:launch(2, 64, out, 64)
cuda.synchronize()
print("launched")
LUA

# run --lines --json: the rows, checked by line (the source's own line numbers).
w run --lines --json rows.json k.lua
[ $rc -eq 0 ] && grep -qx launched "$T/out" || fail "run --lines --json: exit $rc"
python3 - "$T/rows.json" >"$T/check" 2>&1 <<'PY' || { cat "$T/check"; fail "run --lines: the rows (above)"; }
import json, sys
j = json.load(open(sys.argv[1]))
rows = j["rows"]
def row(kernel, line):
    for r in rows:
        if r["kernel"] == kernel and r["line"] == line:
            return r
    sys.exit("no row for %s line %d; kernels %s" % (kernel, line, [k["kernel"] for k in j["kernels"]]))
bad = 0
def want(what, ok, got):
    global bad
    print(("ok   " if ok else "FAIL ") + what + ": " + str(got))
    bad += not ok
for k, way in (("stride<32>", 32.0), ("stride<1>", 1.0)):
    r = row(k, 8)
    want(k + " line 8 shared_way", r["shared_way"] == way, r["shared_way"])
    want(k + " line 8 kinds", "shared load" in r["kinds"], r["kinds"])
    for o in rows:
        if o["kernel"] == k and o["line"] != 8 and o["shared_way"] is not None:
            want(k + " line %d shared_way <= 1" % o["line"], o["shared_way"] <= 1.0, o["shared_way"])
    want(k + " line 8 warp inst > 0", (r["inst"] or 0) > 0, r["inst"])
# 64 warps, each 32 lanes 16 bytes apart: 16 sectors a warp where 4 would do; the store
# under it is contiguous. (Load and store on one line summed to 1280 / 512 before.)
g = row("gload", 13)
want("gload line 13 (the load) global sectors / ideal == 4 (want 1024 / 256)",
     g["global_ideal"] and g["global_sectors"] / g["global_ideal"] == 4.0, (g["global_sectors"], g["global_ideal"]))
want("gload line 13 kinds hold a global load", "global load" in g["kinds"], g["kinds"])
g = row("gload", 14)
want("gload line 14 (the store) global sectors / ideal == 1 (want 256 / 256)",
     g["global_ideal"] and g["global_sectors"] == g["global_ideal"], (g["global_sectors"], g["global_ideal"]))
b = row("branchy", 18)  # the if: half of each warp's lanes take it
want("branchy line 18 divergent branches >= 4 (2 blocks x 2 warps)", (b["divergent_branches"] or 0) >= 4,
     b["divergent_branches"])
want("branchy line 18 predicated off > 0 (0.125 measured)", (b["predicated_off"] or 0) > 0, b["predicated_off"])
sys.exit(bad)
PY
cat "$T/check"

# The listing, and --sass.
w run --lines --sass k.lua
[ $rc -eq 0 ] || fail "run --lines --sass: exit $rc"
grep -qE '^> +8 .*32\.0-way.*acc \+= s\[' "$T/out" || fail "the listing: line 8 of stride<32> is not hot and 32.0-way"
grep -qE '^ +/\*[0-9a-f]{4}\*/ .*LDS' "$T/out" || fail "--sass: no LDS under a line"

# Stalls: most samples on the conflicting line, its top reasons the shared-memory pipe's.
w run --lines=stalls --json stalls.json k.lua
[ $rc -eq 0 ] || fail "run --lines=stalls: exit $rc"
python3 - "$T/stalls.json" >"$T/check" 2>&1 <<'PY' || { cat "$T/check"; fail "--lines=stalls (above)"; }
import json, sys
j = json.load(open(sys.argv[1]))
r = [r for r in j["rows"] if r["kernel"] == "stride<32>" and r["line"] == 8][0]
top = sorted(r["reasons"].items(), key=lambda kv: -kv[1])[:2]
print("stride<32> line 8: share %.3f, top %s" % (r["share"], top))
ok = r["share"] > 0.8 and top and top[0][0] in ("short_scoreboard", "mio_throttle")
sys.exit(0 if ok else 1)
PY
cat "$T/check"

# Counts and stalls in one run: the script twice (its output once), one set of rows.
w run --lines=all --json all.json k.lua
[ $rc -eq 0 ] && [ "$(grep -cx launched "$T/out")" = 1 ] || fail "run --lines=all: exit $rc, or the output not once"
python3 - "$T/all.json" >"$T/check" 2>&1 <<'PY' || { cat "$T/check"; fail "--lines=all (above)"; }
import json, sys
r = [r for r in json.load(open(sys.argv[1]))["rows"] if r["kernel"] == "stride<32>" and r["line"] == 8][0]
print("--lines=all stride<32> line 8: %s-way (want 32.0), stall share %.3f (want > 0.8)" % (r["shared_way"], r["share"] or -1))
sys.exit(0 if r["shared_way"] == 32.0 and (r["share"] or 0) > 0.8 else 1)
PY
cat "$T/check"

# Several collections in one process, each kind after each; the module is compiled and
# launched before the first collection. Each variant is its own script: it must print its
# last line and exit 0.
cat >bank.lua <<'LUA'
local m = assert(cuda.compile{name = "b.cu", lineinfo = true, source = [[
extern "C" __global__ void bank(float* out, int stride, int reps) {
  __shared__ float s[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = (float)i;
  __syncthreads();
  float acc = 0.f;
  for (int r = 0; r < reps; ++r)
    acc += s[(threadIdx.x * stride + r) & (32 * 32 - 1)];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}]]})
k = m:kernel("bank", "float*, int, int")  -- globals: the variants' scripts use them
out = cuda.array("f32", 132 * 4 * 256)
k:launch(132, 256, out, 32, 64)
cuda.synchronize()
function at7(rows)
  for _, r in ipairs(rows) do if r.line == 7 then return r end end
  return {}
end
local n = 0
function counts(stride)
  n = n + 1
  local r = at7(cuda.lines(function() k:launch(132, 256, out, stride, 64) end, "shared"))
  print(string.format("collection %d counts stride %d: %s-way (want %d.0)", n, stride, tostring(r.shared_way), stride))
end
function stalls()
  n = n + 1
  local rows = cuda.lines(function() k:launch(132 * 4, 256, out, 32, 256) end, "stalls")
  print(string.format("collection %d stalls: line 7 share %.2f (want >= 0.80)%s", n, at7(rows).share or -1,
                      rows.note and ("; note: " .. rows.note) or ""))
end
LUA
variant() {  # NAME LUA-CALLS...
  local name=$1; shift
  { echo 'dofile("bank.lua")'; printf '%s\n' "$@"; echo 'print("end of script")'; } >"$name.lua"
  WARPLAB_STARTUP_TRACE=1 "$W" run "$name.lua" >"$T/out" 2>"$T/err"
  rc=$?
  grep -E '^collection ' "$T/out" | sed "s/^/  $name: /"
  [ $rc -eq 0 ] && grep -qx "end of script" "$T/out" && return
  fail "several collections, $name: exit $rc (the last trace lines below: how far the teardown got)"
  grep 'trace' "$T/err" | tail -n 12
  # Killed by a signal (139: SIGSEGV): where, when gdb is there (the same run once more).
  if [ $rc -gt 128 ] && command -v gdb >/dev/null; then
    echo "  $name under gdb:"
    timeout 180 gdb -q -batch -ex run -ex 'thread apply all bt 12' --args "$W" run "$name.lua" 2>&1 |
      grep -E '^(Thread|#|Program received)' | head -n 60 | sed 's/^/    /'
  fi
}
variant counts3 'counts(32)' 'counts(1)' 'counts(32)'
for want in "collection 1 counts stride 32: 32.0-way" "collection 2 counts stride 1: 1.0-way" \
  "collection 3 counts stride 32: 32.0-way"; do
  grep -qF "$want" "$T/out" || fail "several collections: want '$want'"
done
variant counts_stalls 'counts(32)' 'stalls()'
grep -qE '^collection 2 stalls: line 7 share (0\.[89]|1\.0)' "$T/out" || fail "stalls after counts: too few on line 7"
variant stalls2 'stalls()' 'stalls()'
[ "$(grep -cE '^collection [12] stalls: line 7 share (0\.[89]|1\.0)' "$T/out")" = 2 ] ||
  fail "two stall collections: too few on line 7 in one"
variant stalls_counts 'stalls()' 'counts(32)'
grep -qF "collection 2 counts stride 32: 32.0-way" "$T/out" || fail "counts after stalls: not 32.0-way"

# k:lines{...}: one launch, its rows; k:lines(): the map.
cat >kl.lua <<'LUA'
dofile("bank.lua")
local rows = k:lines{grid = 132, block = 256, args = {out, 32, 64}, columns = "shared"}
for _, r in ipairs(rows) do if r.line == 7 then print("k:lines line 7: " .. r.shared_way .. "-way (want 32.0)") end end
print("k:lines launches: " .. rows.kernels[1].launches .. " (want 1)")
print("k:lines() rows: " .. #k:lines() .. ", kinds of line 7: " .. table.concat(at7(k:lines()).kinds, ", "))
print("available: " .. tostring(cuda.lines_available()))
LUA
w run kl.lua
cat "$T/out"
[ $rc -eq 0 ] && grep -qx "k:lines line 7: 32.0-way (want 32.0)" "$T/out" && grep -qx "k:lines launches: 1 (want 1)" "$T/out" &&
  grep -q "^k:lines() rows: .*shared load" "$T/out" && grep -qx "available: true" "$T/out" || fail "k:lines: exit $rc"

# The REPL's :lines on a launch: its listing, line 7 32.0-way.
printf 'dofile("bank.lua")\n:lines shared k:launch(132, 256, out, 32, 64)\n' | "$W" repl >"$T/out" 2>"$T/err"
grep -E '^> +7 ' "$T/out"
grep -qE '^> +7 .*32\.0-way' "$T/out" || fail ":lines in the REPL: no hot line 7 at 32.0-way"

# Under run --lines: the script's own counters and lines are not available, one sentence
# each; banks.lua (which asks both) runs to its end with its checks.
cat >under.lua <<'LUA'
print("counters:", cuda.counters_available())
print("lines:", cuda.lines_available())
LUA
w run --lines under.lua
cat "$T/out"
grep -qF "per-line counts are being collected in this run" "$T/out" &&
  grep -qF "this run already collects per-line counts for the whole script" "$T/out" ||
  fail "under --lines: counters_available / lines_available"
# (Its timing checks run on patched kernels: they may fail, exit 1; an error may not.)
w run --lines "$ROOT/examples/memory/banks.lua" -p reps=1
[ $rc -le 1 ] && ! grep -q "in main chunk" "$T/err" || fail "run --lines examples/memory/banks.lua: exit $rc"
grep -qF "not collected here: this run already collects per-line counts" "$T/out" ||
  fail "banks.lua under --lines: the lines witness does not say why it is left out"
grep -qE '^> +[0-9]+ .*off\[k\] = \*reinterpret_cast' "$T/out" || fail "banks.lua under --lines: the chase line is not hot"

# A kernel that faults while counted: one sentence, the script catches it.
cat >fault.lua <<'LUA'
local m = assert(cuda.compile{name = "f.cu", source = [[
extern "C" __global__ void bad(int* p) { p[threadIdx.x + (1 << 28)] = 1; }]]})
local k = m:kernel("bad", "int*")
local ok, err = pcall(cuda.lines, function() k:launch(1, 32, cuda.array("i32", 32)) end)
print("caught: " .. tostring(not ok))
print(err)
LUA
w run fault.lua
grep -qx "caught: true" "$T/out" || fail "a faulting kernel under cuda.lines: not caught (exit $rc)"
grep -qiE "illegal|kernel bad|bad launched" "$T/out" || fail "a faulting kernel: no sentence naming it"

echo "lines_gpu.sh: $failures failure(s)"
exit $((failures > 0))
