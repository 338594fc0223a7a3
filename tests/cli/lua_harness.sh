#!/usr/bin/env bash
# lua_harness.sh: what the Lua test files rely on beyond their own cases: a script error
# exits 1 with file:line and a traceback; a failing warplab.test file exits 1; the CTest
# runner (tests/run_lua.sh) fails a file that exits 0 without its closing line and skips
# live runs without a GPU; and lua/warplab assigns no globals (luac5.4, when installed).
# Usage: bash lua_harness.sh <warplab-binary> <source-root>; exit 0 pass, 1 fail.
set -u
bin=$1
root=$(cd "$2" && pwd)
export WARPLAB_NO_DRIVER=1
unset WARPLAB_PROFILE NO_COLOR
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

# A script error: exit 1, "FILE:LINE: sentence" first, then a short traceback.
# (A call that needs a GPU is not one: that is exit 3, tests/cli/run_endings.sh.)
printf 'local x = 1\nlocal a = cuda.array("f99", 4)\n' >"$tmp/fails.lua"
"$bin" --profile h200 run "$tmp/fails.lua" >"$tmp/out" 2>"$tmp/err"
rc=$?
want="$tmp/fails.lua:2: bad argument #1 to 'array' (unknown element type 'f99' (one of i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64))"
if [ $rc -eq 1 ] && [ "$(head -n 1 "$tmp/err")" = "$want" ] && grep -q '^stack traceback:' "$tmp/err"; then
  ok "a script error exits 1 with file:line and a traceback"
else
  fail "a script error gave exit $rc:"; sed 's/^/    /' "$tmp/err"
fi

# A failing test file: exit status 1 and "0 passed, 1 failed".
cat >"$tmp/failing.lua" <<'LUA'
local t = require "warplab.test"
t.case("fails on purpose", function() assert(1 == 2, "planted failure") end)
t.run{exit = true}
error("t.run{exit = true} returned after a failure")
LUA
out=$("$bin" run "$tmp/failing.lua" 2>&1)
rc=$?
if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q '^FAIL fails on purpose: .*failing.lua:2: planted failure$' &&
   [ "$(printf '%s\n' "$out" | tail -n 1)" = "0 passed, 1 failed" ]; then
  ok "a failing test file exits 1"
else
  fail "a failing test file gave exit $rc:"; printf '%s\n' "$out" | sed 's/^/    /'
fi

# The runner: exit 0 without the closing line fails; the closing line with exit 0 passes.
echo 'print("no cases ran")' >"$tmp/silent.lua"
bash "$root/tests/run_lua.sh" lib "$bin" "$root" "$tmp/silent.lua" >"$tmp/r1" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'its last line was: no cases ran' "$tmp/r1" && ok "run_lua.sh fails a file without its closing line" ||
  { fail "run_lua.sh on a silent file: exit $rc"; sed 's/^/    /' "$tmp/r1"; }
echo 'print("3 passed, 0 failed")' >"$tmp/passes.lua"
bash "$root/tests/run_lua.sh" offline "$bin" "$root" "$tmp/passes.lua" h100 >"$tmp/r2" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "run_lua.sh passes a file that ends '3 passed, 0 failed'" ||
  { fail "run_lua.sh on a passing file: exit $rc"; sed 's/^/    /' "$tmp/r2"; }
# Live runs skip (77) where no GPU answers; with a GPU this case does not apply.
echo 'io.write(tostring(cuda.device().live))' >"$tmp/probe.lua"
if [ "$(env -u WARPLAB_NO_DRIVER "$bin" run "$tmp/probe.lua" 2>/dev/null)" != true ]; then
  WARPLAB_NO_DRIVER=1 bash "$root/tests/run_lua.sh" live "$bin" "$root" "$tmp/passes.lua" >"$tmp/r3" 2>&1
  rc=$?
  [ $rc -eq 77 ] && grep -q '^skipped: no CUDA device' "$tmp/r3" && ok "run_lua.sh live skips without a GPU" ||
    { fail "run_lua.sh live without a GPU: exit $rc"; sed 's/^/    /' "$tmp/r3"; }
fi

# Any SETTABUP on _ENV in the bytecode listing is an assignment to a global.
if command -v luac5.4 >/dev/null 2>&1; then
  for m in "$root"/lua/warplab/*.lua; do
    if luac5.4 -p -l -l "$m" | grep -q 'SETTABUP.*_ENV'; then
      fail "$m assigns a global:"; luac5.4 -p -l -l "$m" | grep 'SETTABUP.*_ENV' | sed 's/^/    /'
    fi
  done
  ok "lua/warplab assigns no globals"
fi
echo "lua_harness: $failed failed"
[ $failed -eq 0 ]
