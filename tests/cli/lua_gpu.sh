#!/usr/bin/env bash
# lua_gpu.sh: the `cuda` Lua API on a real GPU: runs each tests/gpu_lua/*.lua (in name
# order, so the zz_fault*.lua files, which leave their context unusable, come last) as
#   warplab [global] run FILE [extra]
# with [extra] from a "-- run-with: ..." line and [global] from a "-- global: ..." line
# (options such as --sync that go before `run`). Each file must exit 0 and end with
# "N passed, 0 failed". Exit 77 (skip) when `warplab run` finds no device.
# Usage: bash lua_gpu.sh <warplab-binary> <source-root>; exit 0 pass, 1 fail, 77 skip.
set -u
bin=$1
root=$(cd "$2" && pwd)
cd "$root" || exit 1
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE NO_COLOR

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo 'io.write(tostring(cuda.device().live))' >"$tmp/probe.lua"
live=$("$bin" run "$tmp/probe.lua" 2>"$tmp/probe.err")
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL: the probe script did not run (exit $rc): $(cat "$tmp/probe.err")"
  exit 1
fi
if [ "$live" != "true" ]; then
  echo "skip: no CUDA device ($(head -n 1 "$tmp/probe.err"))"
  exit 77
fi

# A hung kernel must not hang the check: each file gets a time limit where `timeout` exists.
limit=()
command -v timeout >/dev/null 2>&1 && limit=(timeout 300)

shopt -s nullglob
files=(tests/gpu_lua/*.lua)
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no tests/gpu_lua/*.lua under $root"; exit 1; }
failed=0
for f in "${files[@]}"; do
  extra=()
  line=$(grep -m 1 '^-- run-with: ' "$f" | sed 's/^-- run-with: //')
  [ -n "$line" ] && read -r -a extra <<<"$line"
  global=()
  line=$(grep -m 1 '^-- global: ' "$f" | sed 's/^-- global: //')
  [ -n "$line" ] && read -r -a global <<<"$line"
  out=$("${limit[@]}" "$bin" "${global[@]}" run "$f" "${extra[@]}" 2>&1)
  rc=$?
  last=$(printf '%s\n' "$out" | tail -n 1)
  # Lines a file prints for the record (the occupancy sweep's size) go to this log too.
  printf '%s\n' "$out" | grep '^occupancy sweep: ' | sed 's/^/     /'
  if [ $rc -eq 0 ] && [[ $last =~ ^[0-9]+\ passed,\ 0\ failed$ ]]; then
    echo "ok   ${global[*]} $f ${extra[*]} ($last)"
  else
    echo "FAIL ${global[*]} $f ${extra[*]} (exit $rc)"
    printf '%s\n' "$out" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done
echo "lua_gpu: ${#files[@]} files, $failed failed"
[ $failed -eq 0 ]
