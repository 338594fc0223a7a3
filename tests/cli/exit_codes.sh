#!/usr/bin/env bash
# exit_codes.sh: docs/exit-codes.md against the binary, offline: each case a command line
# from a row of the table (0 to 8) and the code it must end with; 6 and 7 through the
# stand-in driver (bench/fake_driver.cpp), when it is built. The code follows the error's
# kind, never its words: a script raising a kind in its own words (warplab.raise) gets the
# kind's code, and a script's own error that repeats warplab's words is a script error.
# Usage: bash exit_codes.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache" XDG_STATE_HOME="$T/state"
DOC=$ROOT/docs/exit-codes.md
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# code WANT ARGS...: warplab ARGS exits WANT, and the table has a row for WANT.
code() {
  local want=$1
  shift
  grep -qE "^\| $want \| " "$DOC" || fail "docs/exit-codes.md has no row for $want"
  "$BIN" "$@" </dev/null >"$T/out" 2>"$T/err"
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "warplab $*: exit $rc, want $want ($(head -c 300 "$T/err"))"
}
cd "$T" || exit 1
GOOD=$ROOT/kernels_src/warps/thread_ids.cu
printf 'print("ok")\n' >ok.lua
printf 'error("boom")\n' >err.lua
printf 'local p = require("warplab.params"){block = 256}\n' >params.lua
printf '__global__ void k(int* p) { *p = undefined; }\n' >bad.cu
sed -e 's/"clock_rate": 1500000/"clock_rate": 1800000/' "$FIX" >b.json

# 0: success, offline on the default profile too.
code 0 run ok.lua
code 0 attrs warp_size
code 0 compile "$GOOD"
code 0 attrs --diff "$FIX" "$FIX"
# 1: a script error, a -p value params refuses, a diff that finds differences.
code 1 run err.lua
code 4 run params.lua -p block=abc
code 4 run params.lua -p nope=1
code 1 attrs --diff "$FIX" b.json
code 1 attrs --diff "$FIX" b.json --json
# 2: the command line.
code 2 run ok.lua --bogus
code 2 attrs -- warp
code 2 compile "$GOOD" --json --ptx
code 2 compile "$GOOD" --diff
code 2 attrs --json --csv
code 2 --device x run ok.lua
code 2 cache frobnicate
code 2 completion fish
code 2 run
# 3: a live device asked for by index, and none there.
code 3 attrs --device 0
code 3 attrs --device all
code 3 attrs --diff 0 h100
# 4: bad input.
code 4 run missing.lua
code 4 run ok.lua -p novalue
code 4 attrs --profile nope.json
code 4 attrs no_such_attribute_anywhere
code 4 compile missing.cu
code 4 compile "$GOOD" --arch sm_35
code 4 compile "$GOOD" --arch compute_90 --cubin k.cubin
# 5: NVRTC rejected it.
code 5 compile bad.cu
code 5 compile "$GOOD" --kernel 'nope<1>'
# 8: --sanitize without compute-sanitizer; compile --sass without cuobjdump or nvdisasm.
WARPLAB_COMPUTE_SANITIZER=$T/none code 8 --profile h100 run --sanitize memcheck ok.lua
[ -x /usr/local/cuda/bin/cuobjdump ] || [ -x /usr/local/cuda/bin/nvdisasm ] ||
  PATH=/usr/bin:/bin CUDA_HOME=$T/none CUDA_PATH=$T/none code 8 compile "$GOOD" --arch sm_90 --sass
# ... and a cuobjdump that cannot print SASS without nvdisasm (as the real one fails).
mkdir -p only
printf '#!/bin/sh\necho "cuobjdump fatal   : Could not find executable file '"'"'nvdisasm'"'"'" >&2\nexit 1\n' >only/cuobjdump
chmod +x only/cuobjdump
[ -x /usr/local/cuda/bin/nvdisasm ] ||
  PATH=$T/only:/usr/bin:/bin CUDA_HOME=$T/none CUDA_PATH=$T/none code 8 compile "$GOOD" --arch sm_90 --sass

# The kind, not the words: each kind raised by a script in words warplab never uses.
printf 'warplab.raise("no_gpu", "my own words for a missing GPU")\n' >raise3.lua
printf 'warplab.raise("not_in_profile", "my own words for an unknown value")\n' >raise3p.lua
printf 'warplab.raise("parameter", "my own words for a bad -p")\n' >raise4.lua
printf 'warplab.raise("bad_input", "my own words for a misuse")\n' >raise1.lua
printf 'error("no CUDA device: params: -p block=x: is unknown for profile sm_86")\n' >words.lua
code 3 run raise3.lua
grep -qxF "raise3.lua:1: my own words for a missing GPU" "$T/err" || fail "raise3: $(cat "$T/err")"
code 3 run raise3p.lua
grep -qxF "warplab: raise3p.lua:1: my own words for an unknown value" "$T/err" || fail "raise3p: $(cat "$T/err")"
code 4 run raise4.lua
grep -qxF "warplab: raise4.lua:1: my own words for a bad -p" "$T/err" || fail "raise4: $(cat "$T/err")"
code 1 run raise1.lua
grep -q "stack traceback" "$T/err" || fail "raise1: a misuse keeps its traceback"
code 1 run words.lua
grep -q "stack traceback" "$T/err" || fail "words.lua: a script's own words are its error"
# 5: a compile error raised, whatever its diagnostics say.
printf 'assert(cuda.compile{source = "__global__ void k() { never_said_before; }"})\n' >raise5.lua
code 5 run raise5.lua

# 6 and 7 through the stand-in driver: a module the driver refuses to load (compile --timings
# loads it on the live device), and a kernel that never finishes under --timeout.
FAKE=$(cd "$(dirname "$BIN")" && pwd)/fake_driver
if [ -f "$FAKE/libcuda.so.1" ]; then
  fake() { env -u WARPLAB_NO_DRIVER LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }
  BIN_REAL=$BIN
  code() {
    local want=$1
    shift
    grep -qE "^\| $want \| " "$DOC" || fail "docs/exit-codes.md has no row for $want"
    fake "$BIN_REAL" "$@" </dev/null >"$T/out" 2>"$T/err"
    local rc=$?
    [ "$rc" -eq "$want" ] || fail "warplab $* (stand-in driver): exit $rc, want $want ($(head -c 300 "$T/err"))"
  }
  code 0 compile "$GOOD" --timings
  WARPLAB_FAKE_LOAD_FAILS=1 code 6 compile "$GOOD" --timings
  grep -q "CUDA_ERROR_INVALID_IMAGE" "$T/err" || fail "exit 6 without the driver's sentence: $(cat "$T/err")"
  printf 'local k = assert(cuda.compile{source = "__global__ void fake_hang() {}"}).fake_hang\nk:launch(1, 1)\ncuda.synchronize()\nprint("after")\n' >hang.lua
  # (The stuck context is left to the process exit, unfreed on purpose: no leak report.)
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 code 7 --timeout 0.3 run hang.lua
  grep -q "did not finish" "$T/err" || fail "exit 7 without the watchdog's sentence: $(cat "$T/err")"
  ! grep -q after "$T/out" || fail "the script went on after the watchdog fired"
else
  echo "note: no $FAKE/libcuda.so.1 (target warplab_fake_driver): exit codes 6 and 7 not checked"
fi
exit $((failures > 0))
