#!/usr/bin/env bash
# exit_codes.sh: docs/exit-codes.md against the binary, offline: each case a command line
# from a row of the table (0, 1, 2, 3, 4, 5, 8) and the code it must end with.
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
# 8: --sanitize without compute-sanitizer.
WARPLAB_COMPUTE_SANITIZER=$T/none code 8 --profile h100 run --sanitize memcheck ok.lua
exit $((failures > 0))
