#!/usr/bin/env bash
# run_hints.sh: what `warplab run` says to a newcomer's slips. A bare `n=4096` naming a
# parameter the script declares is a forgotten -p: exit 2 and "pass it as -p n=4096", the
# script not run past its params{}; after `--` (or naming no parameter) it stays a script
# argument. A script that is not there gets "did you mean" the example of that file name
# ("ids.lua": warps/ids.lua) or a close .lua name in its folder. The forgotten -p is said
# under `run --html` and `watch` too.
# Usage: bash run_hints.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() {
  local want=$1
  shift
  "$BIN" -q "$@" >"$T/out" 2>"$T/err" </dev/null
  rc=$?
  [ "$rc" -eq "$want" ] || fail "warplab $*: exit $rc, want $want ($(head -c 300 "$T/err"))"
}
cd "$T" || exit 1

# A forgotten -p.
cat >first.lua <<'LUA'
local p = require("warplab.params"){n = 1024, name = "x"}
print("n=" .. p.n, "args:", ...)
LUA
run 2 run first.lua n=4096
[ "$(cat "$T/err")" = "warplab: first.lua:1: params: the argument n=4096 names the parameter n: pass it as -p n=4096 (after --, it stays a script argument)" ] ||
  fail "run first.lua n=4096: $(cat "$T/err")"
[ -s "$T/out" ] && fail "run first.lua n=4096 ran on: $(cat "$T/out")"
run 2 run first.lua -p name=y name=z
grep -qF "pass it as -p name=z" "$T/err" || fail "name=z: $(cat "$T/err")"
# After --, or naming no parameter, or with -p: the script's arguments, as before.
run 0 run first.lua -- n=4096
[ "$(cat "$T/out")" = $'n=1024\targs:\tn=4096' ] || fail "run first.lua -- n=4096: $(cat "$T/out")"
run 0 run first.lua m=3 -p n=4096
[ "$(cat "$T/out")" = $'n=4096\targs:\tm=3' ] || fail "run first.lua m=3 -p n=4096: $(cat "$T/out")"
run 0 run first.lua input=a.bin -- n=5
[ "$(cat "$T/out")" = $'n=1024\targs:\tinput=a.bin\tn=5' ] || fail "input=a.bin -- n=5: $(cat "$T/out")"
# The same under `run --html` (the run is a child of the page's process) and `watch` (each
# run is one): said, not ignored.
run 2 run first.lua n=4096 --html page.html
grep -qF "pass it as -p n=4096" "$T/err" || fail "run --html first.lua n=4096: $(cat "$T/err")"
grep -qF "pass it as -p n=4096" page.html || fail "run --html: the page does not show the sentence"
timeout -s INT 6 "$BIN" -q watch first.lua n=4096 >"$T/out" 2>"$T/err" </dev/null
grep -qF "pass it as -p n=4096" "$T/out" "$T/err" || fail "watch first.lua n=4096: $(cat "$T/out" "$T/err")"
grep -q "^n=" "$T/out" && fail "watch first.lua n=4096 ran on: $(cat "$T/out")"
timeout -s INT 6 "$BIN" -q watch first.lua -- n=4096 >"$T/out" 2>"$T/err" </dev/null
grep -q $'^n=1024\targs:\tn=4096' "$T/out" || fail "watch first.lua -- n=4096: $(cat "$T/out" "$T/err")"
# A script without params{} keeps key=value arguments.
printf 'print(...)\n' >plain.lua
run 0 run plain.lua n=4096
[ "$(cat "$T/out")" = "n=4096" ] || fail "plain.lua n=4096: $(cat "$T/out")"

# A script that is not there: the example of that file name, or a close name here.
run 4 run ids.lua
grep -qF "script 'ids.lua': not found" "$T/err" || fail "ids.lua: $(cat "$T/err")"
grep -qF "did you mean 'warps/ids.lua'?" "$T/err" || fail "ids.lua: no suggestion: $(cat "$T/err")"
run 4 run warps/idz.lua
grep -qF "did you mean 'warps/ids.lua'?" "$T/err" || fail "warps/idz.lua: $(cat "$T/err")"
run 4 run firts.lua
grep -qF "did you mean 'first.lua'?" "$T/err" || fail "firts.lua: $(cat "$T/err")"
mkdir sub && cp first.lua sub/reduce.lua
run 4 run sub/redcue.lua
grep -qF "did you mean 'sub/reduce.lua'?" "$T/err" || fail "sub/redcue.lua: $(cat "$T/err")"
# Nothing close: no guess.
run 4 run zzqqxx.lua
grep -q "did you mean" "$T/err" && fail "zzqqxx.lua: $(cat "$T/err")"
# The suggestion runs.
run 0 --profile h100 run warps/ids.lua -p block=32x1 -p grid=1x1
grep -q "32x1" "$T/out" || fail "warps/ids.lua: $(head -c 300 "$T/out")"

[ "$failures" -eq 0 ] && echo "run_hints: ok"
[ "$failures" -eq 0 ]
