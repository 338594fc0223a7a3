#!/usr/bin/env bash
# lualib.sh: runs the pure-Lua library's tests (tests/lua/lib_*.lua) with `warplab run`
# when that command exists, else with lua5.4; each must exit 0 and end "N passed, 0 failed".
# Also checks statically (luac5.4, when installed) that lua/warplab assigns no globals.
# Usage: bash lualib.sh <warplab-binary> <source-root>; exit 0 pass, 1 fail, 77 skip.
set -u
bin=$1
root=$(cd "$2" && pwd)

# LUA_PATH serves lua5.4 (and warplab too, if its package library reads the variable).
export LUA_PATH="$root/lua/?.lua;;"
if "$bin" run --help >/dev/null 2>&1; then
  runner=("$bin" run)
elif command -v lua5.4 >/dev/null 2>&1; then
  runner=(lua5.4)
else
  echo "skip: neither '$bin run' nor lua5.4 is available"
  exit 77
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
