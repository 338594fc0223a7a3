#!/usr/bin/env bash
# params.sh: `warplab run SCRIPT --params` lists what the script's params{...} declares,
# one line each: name, default (strings quoted), type; before or after the script, with
# global options anywhere; nothing the script prints before params{} and nothing after it
# runs; a script without parameters says so (and is not run when it never requires
# warplab.params); an error before params{} is the script's error (exit 1). The examples
# are named by their `warplab list` name from any folder.
# Usage: bash params.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN") ROOT=$(cd "$ROOT" && pwd)
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() {
  local want=$1
  shift
  "$BIN" "$@" >"$T/out" 2>"$T/err" </dev/null
  rc=$?
  [ "$rc" -eq "$want" ] || fail "warplab $*: exit $rc, want $want ($(head -c 300 "$T/err"))"
}
cd "$T" || exit 1

cat >"$T/x.lua" <<'LUA'
print("banner before params")
io.write("more\n")
local params = require "warplab.params"
local p = params{block = 256, scale = 2.5, name = "reduce v2", check = false, n = 1 << 20}
print("after params: must not run")
os.exit(9)
LUA
cat >"$T/want" <<'TXT'
block  256          integer
check  false        boolean
n      1048576      integer
name   "reduce v2"  string
scale  2.5          number
TXT
for args in "run x.lua --params" "run --params x.lua" "--profile sm_86 run x.lua --params" \
            "run -q x.lua --params --no-color" "-q run --params x.lua -p block=3"; do
  # shellcheck disable=SC2086
  run 0 $args
  diff "$T/want" "$T/out" >"$T/diff" || fail "warplab $args:
$(cat "$T/diff")"
  [ -s "$T/err" ] && fail "warplab $args: stderr: $(cat "$T/err")"
done

# Every example lists its parameters by its list name, from here; each -p it declares is
# one it reads (the header's Run line uses only those).
run 0 run warps/ids.lua --params
grep -qxE 'block +"14x2" +string' "$T/out" || fail "warps/ids.lua --params: $(cat "$T/out")"
grep -qxE 'rows +32 +integer' "$T/out" || fail "warps/ids.lua --params: rows"
grep -qxE 'save +false +boolean' "$T/out" || fail "warps/ids.lua --params: save"
run 0 run tour.lua --params
grep -qxE 'a +2.5 +number' "$T/out" || fail "tour.lua --params: $(cat "$T/out")"
n=0
while IFS= read -r f; do
  n=$((n + 1))
  name=${f#"$ROOT/examples/"}
  run 0 run "$name" --params
  [ -s "$T/out" ] || fail "$name --params printed nothing"
  awk 'NF < 3 || $NF !~ /^(integer|number|boolean|string)$/ {bad = 1} END {exit bad}' "$T/out" ||
    fail "$name --params: not 'name default type' lines: $(head -3 "$T/out")"
done < <(find "$ROOT/examples" -name '*.lua' | sort)
[ "$n" -ge 20 ] || fail "only $n examples found"

# No parameters: said, exit 0; a script that never requires warplab.params is not run.
printf 'print("ran")\nos.exit(9)\n' >"$T/plain.lua"
run 0 run plain.lua --params
[ "$(cat "$T/out")" = "plain.lua declares no parameters (it does not use warplab.params)" ] || fail "plain: $(cat "$T/out")"
printf 'local params = require "warplab.params"\n' >"$T/none.lua"
run 0 run none.lua --params
[ "$(cat "$T/out")" = "none.lua declares no parameters" ] || fail "none: $(cat "$T/out")"
# An error before params{} is the script's own: exit 1 with its message.
printf 'error("broken before params")\nlocal p = require("warplab.params"){n = 1}\n' >"$T/bad.lua"
run 1 run bad.lua --params
grep -q "bad.lua:1: broken before params" "$T/err" || fail "bad.lua: $(cat "$T/err")"

# Run by list name from any folder; a file here of that name wins; a name that is neither is
# exit 4 naming where the examples are.
run 0 --profile h100 run warps/ids.lua -q -p block=32x1 -p grid=1x1
grep -q "32x1" "$T/out" || fail "run warps/ids.lua from $T: $(head -c 300 "$T/out")"
mkdir -p "$T/warps" && printf 'print("the local one")\n' >"$T/warps/ids.lua"
run 0 run warps/ids.lua
[ "$(cat "$T/out")" = "the local one" ] || fail "a local warps/ids.lua does not win: $(head -c 200 "$T/out")"
run 4 run warps/nope.lua
grep -q "script 'warps/nope.lua': not found (nor an example in .*examples: \`warplab list\` names them)" "$T/err" ||
  fail "warps/nope.lua: $(cat "$T/err")"
exit $((failures > 0))
