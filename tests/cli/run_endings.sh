#!/usr/bin/env bash
# run_endings.sh: how `run` ends a script, offline, however the script got there: a call
# that needs a GPU is exit 3 with the sentence, no traceback and a hint naming the guard
# (a pcall still catches it as a string); a failed compile the script raises (assert,
# error, a library's wrapper raising the diagnostics themselves) is exit 5 with the
# diagnostics once and where the script stopped, no traceback; the same failure caught and
# handled is not, nor one wrapped in a message of the script's own. Also what a script
# learns from one sentence: a finite float beyond a float parameter's range, a C standard
# header in a kernel, too much static shared memory, e1:elapsed(e2) on events never
# recorded (through the stand-in driver, when it is built).
# Usage: bash run_endings.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache" XDG_STATE_HOME="$T/state"
fail() { echo "FAIL: $*"; echo "--- stdout:"; cat "$T/out"; echo "--- stderr:"; cat "$T/err"; failures=$((failures + 1)); }
# run WANT FILE [ARGS...]: warplab -q run FILE exits WANT.
run() {
  local want=$1
  shift
  "$BIN" -q run "$@" </dev/null >"$T/out" 2>"$T/err"
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "run $*: exit $rc, want $want"
}
says() { grep -qF -- "$2" "$T/$1" || fail "$1 lacks: $2"; }
lacks() { ! grep -qF -- "$2" "$T/$1" || fail "$1 has: $2"; }
cd "$T" || exit 1

cat >k.cu <<'EOF'
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
EOF
printf '__global__ void scale(float* x, float a, int n) {\n  x[i] = a;\n}\n' >bad.cu
HINT='with `if not cuda.device().live then return end`: what comes before it still runs offline'

# ---- needs a GPU: exit 3, the sentence, the hint, no traceback ---------------------------
cat >launch.lua <<'EOF'
local k = assert(cuda.compile("k.cu")).scale
local x = cuda.array("f32", 64)
print("before")
k:launch(1, 64, x, 2.0, 64)
print("after")
EOF
run 3 launch.lua
says out before
lacks out after
says err 'launch.lua:4: no CUDA device: a kernel launch needs a GPU (WARPLAB_NO_DRIVER is set)'
says err "$HINT"
says err 'hint: without a GPU, end the script before its GPU part (line 4 of launch.lua) with'
lacks err 'stack traceback'
[ "$(wc -l <"$T/err")" -eq 2 ] || fail "needs a GPU: want 2 lines on stderr"
# The line the hint names is the script's own top level, where the guard can go: the call of
# a function that needs the GPU, not the line inside it (nor one in a module it required).
printf 'local function gpu_part()\n  cuda.stream()\nend\nprint("predictions")\n\ngpu_part()\n' >nested.lua
run 3 nested.lua
says out predictions
says err 'nested.lua:2: no CUDA device: cuda.stream needs a GPU'
says err 'end the script before its GPU part (line 6 of nested.lua) with'
mkdir -p mods && printf 'return {go = function() return cuda.event() end}\n' >mods/gpu_mod.lua
printf 'package.path = "mods/?.lua;" .. package.path\nlocal m = require("gpu_mod")\n\n\nm.go()\n' >req.lua
run 3 req.lua
says err 'end the script before its GPU part (line 5 of req.lua) with'
for call in 'cuda.stream()' 'cuda.event()' 'cuda.synchronize()' 'cuda.host_array("f32", 4, {pinned = true})' \
  'cuda.device(1)'; do
  echo "local _ = $call" >call.lua
  run 3 call.lua
  says err 'no CUDA device: '
  says err "$HINT"
  lacks err 'stack traceback'
done
# A pcall catches it as a string, and the script goes on (exit 0).
cat >caught.lua <<'EOF'
local k = assert(cuda.compile("k.cu")).scale
local ok, err = pcall(k.launch, k, 1, 64, cuda.array("f32", 64), 2.0, 64)
assert(not ok and type(err) == "string" and err:find("no CUDA device: a kernel launch needs a GPU", 1, true), err)
print("caught: " .. err)
EOF
run 0 caught.lua
says out 'caught: no CUDA device'
# Raised again from the handler, it still ends the run as "needs a GPU".
printf 'local ok, e = pcall(cuda.stream)\nerror(e, 0)\n' >again.lua
run 3 again.lua
says err "$HINT"
# The guard ends an offline run cleanly.
printf 'print("offline part")\nif not cuda.device().live then return end\ncuda.stream()\n' >guard.lua
run 0 guard.lua
says out 'offline part'

# ---- a compile error the script raises: exit 5, the diagnostics once ---------------------
for form in 'assert(cuda.compile("bad.cu"))' \
  'local m, diag = cuda.compile("bad.cu"); if not m then error(diag) end' \
  'local m, diag = cuda.compile{file = "bad.cu"}; if not m then error(diag, 0) end' \
  'local function lib() local m, diag = cuda.compile("bad.cu"); if not m then error(diag, 2) end end; lib()' \
  'local m = cuda.compile("k.cu"); local fresh, diag = cuda.compile("bad.cu"); assert(fresh, diag)'; do
  printf 'print("start")\n%s\nprint("after")\n' "$form" >compile.lua
  run 5 compile.lua
  says out start
  lacks out after
  [ "$(grep -c 'identifier "i" is undefined' "$T/err")" -eq 1 ] || fail "$form: the diagnostic once"
  says err '  x[i] = a;'
  says err 'bad.cu did not compile for sm_90 (1 error)'
  lacks err 'stack traceback'
  lacks err "in function 'assert'"
done
# Wrapped in a message of the script's own, it is the script's error: exit 1, traceback.
printf 'local m, diag = cuda.compile("bad.cu")\nif not m then error("lib.runner: bad.cu did not compile:\\n" .. diag, 0) end\n' >wrapped.lua
run 1 wrapped.lua
says err 'lib.runner: bad.cu did not compile:'
says err 'stack traceback'
# The library's own wrappers raise the diagnostics themselves: a compile error (exit 5).
mkdir -p kernels_src/reductions
printf '__global__ void broken() { nope; }\n' >kernels_src/reductions/reference.cu
printf 'local bandwidth = require "warplab.bandwidth"\nbandwidth.kernel()\n' >lib.lua
WARPLAB_KERNELS_DIR=$T/kernels_src run 5 lib.lua
says err 'did not compile for sm_90'
lacks err 'stack traceback'
# With assert, where the script stopped, as compile says it: "warplab: FILE:LINE: ...".
printf 'local m = assert(cuda.compile("bad.cu"))\n' >compile.lua
run 5 compile.lua
[ "$(tail -n 1 "$T/err")" = "warplab: compile.lua:1: bad.cu did not compile for sm_90 (1 error)" ] ||
  fail "the closing line: $(tail -n 1 "$T/err")"
# An inline source is a compile error too.
printf 'local m = assert(cuda.compile{source = "__global__ void k(int* p) { p[i] = 0; }"})\n' >inline.lua
run 5 inline.lua
says err 'inline.lua did not compile for sm_90 (1 error)'
# Caught and handled, it ends nothing; a later unrelated error is a plain script error.
cat >handled.lua <<'EOF'
local m, diag = cuda.compile("bad.cu")
print(m == nil and "handled" or "compiled?")
error("something else")
EOF
run 1 handled.lua
says out handled
says err 'handled.lua:3: something else'
says err 'stack traceback'
lacks err 'did not compile'
# m:reload() failing and raised is a compile error as well.
cp k.cu live.cu
printf 'local m = assert(cuda.compile("live.cu"))\nio.open("live.cu", "w"):write("__global__ void k() { x; }\\n"):close()\nassert(m:reload())\n' >reload.lua
run 5 reload.lua
says err 'live.cu did not compile'

# ---- one sentence each -------------------------------------------------------------------
cat >range.lua <<'EOF'
local k = assert(cuda.compile("k.cu")).scale
local x = cuda.array("f32", 64)
print(select(2, k:check{grid = 1, block = 64, args = {x, 1e300, 64}}))
print(select(2, pcall(function() x[1] = 1e300 end)))
local h = cuda.array("f16", 4)
print(select(2, pcall(function() h:fill(70000) end)))
EOF
run 0 range.lua
says out 'argument 2 (float) of scale: 1e+300 is out of range (float: finite values up to ±3.4028234663853e+38)'
says out 'range.lua:4: value 1e+300 does not fit f32 (finite values up to ±3.4028234663853e+38)'
says out 'range.lua:6: fill value 70000 does not fit f16 (finite values up to ±65504)'

printf '#include <cassert>\n__global__ void k(int* p) { assert(p); }\n' >assert.cu
"$BIN" -q compile assert.cu >"$T/out" 2>"$T/err"
[ $? -eq 5 ] || fail "compile assert.cu: want exit 5"
says err 'note: <cassert> is a C++ standard header, which NVRTC does not have: assert() is built in, so no include is needed (or include <cuda/std/cassert>)'
printf '#include <cuda/std/cassert>\n__global__ void k(int* p) { assert(p); }\n' >assert.cu
"$BIN" -q compile assert.cu >"$T/out" 2>"$T/err" || fail "compile with <cuda/std/cassert>: exit $?"

printf '__global__ void big(float* o) {\n  __shared__ float s[65536];\n  s[threadIdx.x] = 1;\n  __syncthreads();\n  o[threadIdx.x] = s[threadIdx.x ^ 1];\n}\n' >big.cu
"$BIN" -q compile big.cu >"$T/out" 2>"$T/err"
[ $? -eq 5 ] || fail "compile big.cu: want exit 5"
says err "uses too much shared data (262144 bytes, 49152 max)"
says err 'and give the bytes at launch with `shared =` (dynamic shared memory'

# e1:elapsed(e2) on events never recorded, through the stand-in driver (it runs nothing).
FAKE="$(dirname "$BIN")/fake_driver"
if [ -f "$FAKE/libcuda.so.1" ]; then
  cat >events.lua <<'EOF'
local e1, e2 = cuda.event(), cuda.event()
print(select(2, pcall(e1.elapsed, e1, e2)))
e1:record()
print(select(2, pcall(e1.elapsed, e1, e2)))
e2:record()
print(type(e1:elapsed(e2)))
EOF
  (unset WARPLAB_NO_DRIVER; LD_LIBRARY_PATH="$FAKE" "$BIN" -q run events.lua >"$T/out" 2>"$T/err") ||
    fail "events.lua: exit $?"
  [ "$(grep -c 'the time between two events needs both recorded first: call e:record() on each' "$T/out")" -eq 2 ] ||
    fail "elapsed on unrecorded events: the sentence, twice"
  lacks out CUDA_ERROR_INVALID_HANDLE
  says out number
else
  echo "note: no stand-in driver ($FAKE), elapsed not checked"
fi
exit $((failures > 0))
