#!/usr/bin/env bash
# lualib.sh: runs the pure-Lua library's tests (tests/lua/lib_*.lua) with `warplab run`
# when it works here, else with lua5.4; each must exit 0 and end "N passed, 0 failed".
# Also checks statically (luac5.4, when installed) that lua/warplab assigns no globals.
# Usage: bash lualib.sh <warplab-binary> <source-root>; exit 0 pass, 1 fail, 77 skip.
set -u
bin=$1
root=$(cd "$2" && pwd)

# The library under test, for both runners: WARPLAB_LUA_DIR goes first on warplab's
# package.path, LUA_PATH on lua5.4's.
export WARPLAB_LUA_DIR="$root/lua"
export LUA_PATH="$root/lua/?.lua;;"

# Prefer `warplab run` when the command exists and can run a script on this machine (an
# empty probe script must exit 0: a build whose `run` still needs a GPU or a profile
# cannot, and then lua5.4 runs the files instead, since the library needs neither).
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
echo 'local probe = true' >"$probe_dir/probe.lua"
runner=()
if "$bin" run --help 2>/dev/null | grep -q 'run'; then
  if "$bin" run "$probe_dir/probe.lua" >"$probe_dir/out" 2>&1; then
    runner=("$bin" run)
  else
    echo "note: '$bin run' cannot run a script here: $(head -n 1 "$probe_dir/out")"
  fi
fi
if [ ${#runner[@]} -eq 0 ]; then
  if command -v lua5.4 >/dev/null 2>&1; then
    runner=(lua5.4)
  else
    echo "skip: neither '$bin run' nor lua5.4 can run the tests"
    exit 77
  fi
fi

cd "$root" || exit 1
shopt -s nullglob
files=(tests/lua/lib_*.lua)
if [ ${#files[@]} -eq 0 ]; then
  echo "FAIL: no tests/lua/lib_*.lua under $root"
  exit 1
fi

failed=0
for f in "${files[@]}"; do
  out=$("${runner[@]}" "$f" 2>&1)
  rc=$?
  last=$(printf '%s\n' "$out" | tail -n 1)
  # A file that exits 0 without its closing line did not run its cases: also a failure.
  if [ $rc -eq 0 ] && [[ $last =~ ^[0-9]+\ passed,\ 0\ failed$ ]]; then
    echo "ok   $f ($last)"
  else
    echo "FAIL $f (exit $rc)"
    printf '%s\n' "$out" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done

# The runner itself must fail a failing file: exit status 1 and "0 passed, 1 failed".
cat >"$probe_dir/failing.lua" <<'LUA'
local t = require "warplab.test"
t.case("fails on purpose", function() assert(1 == 2, "planted failure") end)
t.run{exit = true}
error("t.run{exit = true} returned after a failure")
LUA
out=$("${runner[@]}" "$probe_dir/failing.lua" 2>&1)
rc=$?
if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q '^FAIL fails on purpose: .*failing.lua:2: planted failure$' &&
   [ "$(printf '%s\n' "$out" | tail -n 1)" = "0 passed, 1 failed" ]; then
  echo "ok   a failing test file exits 1"
else
  echo "FAIL a failing test file gave exit $rc:"
  printf '%s\n' "$out" | sed 's/^/    /'
  failed=$((failed + 1))
fi

# Any SETTABUP on _ENV in the bytecode listing is an assignment to a global.
if command -v luac5.4 >/dev/null 2>&1; then
  for m in lua/warplab/*.lua; do
    if luac5.4 -p -l -l "$m" | grep -q 'SETTABUP.*_ENV'; then
      echo "FAIL $m assigns a global:"
      luac5.4 -p -l -l "$m" | grep 'SETTABUP.*_ENV' | sed 's/^/    /'
      failed=$((failed + 1))
    fi
  done
fi

echo "lualib: ${#files[@]} files, $failed failed (runner: ${runner[*]})"
[ $failed -eq 0 ]
