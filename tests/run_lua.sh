#!/usr/bin/env bash
# run_lua.sh: runs one Lua test file or example the way CTest registers it
# (cmake/tests.cmake). Test files pass when they exit 0 and their last line is
# "N passed, 0 failed" (a file that exits 0 without it did not run its cases); examples
# pass when they exit 0. Exit 77 (CTest's skip) when a live run finds no GPU.
# Usage: run_lua.sh offline BIN ROOT FILE PROFILE [ARGS...]  (no driver, --profile PROFILE)
#        run_lua.sh live BIN ROOT FILE [GLOBAL...] [-- ARGS...]
#        run_lua.sh lib BIN ROOT FILE                          (the library from ROOT/lua)
#        run_lua.sh example-offline|example-live BIN ROOT FILE
set -u
mode=$1 bin=$2 root=$3 file=$4
shift 4
cd "$root" || exit 1
unset WARPLAB_PROFILE NO_COLOR
export WARPLAB_LUA_DIR="$root/lua"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# live_or_skip: exit 77 unless `warplab run` finds a live device here.
live_or_skip() {
  echo 'io.write(tostring(cuda.device().live))' >"$tmp/probe.lua"
  local live
  live=$("$bin" run "$tmp/probe.lua" 2>"$tmp/probe.err") ||
    { echo "FAIL: the probe script did not run: $(cat "$tmp/probe.err")"; exit 1; }
  [ "$live" = true ] || { echo "skipped: no CUDA device ($(head -n 1 "$tmp/probe.err"))"; exit 77; }
}

global=() args=()
case "$mode" in
  offline)
    export WARPLAB_NO_DRIVER=1
    global=(--profile "$1"); shift
    args=("$@") ;;
  live|example-live)
    unset WARPLAB_NO_DRIVER
    live_or_skip
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do global+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    args=("$@") ;;
  lib) ;;
  example-offline)
    export WARPLAB_NO_DRIVER=1
    global=(--profile h100) ;;
  *) echo "run_lua.sh: unknown mode '$mode'"; exit 2 ;;
esac

# A hung kernel must not hang the suite where `timeout` exists (CTest also has a limit).
limit=()
command -v timeout >/dev/null 2>&1 && limit=(timeout 580)
"${limit[@]}" "$bin" "${global[@]}" run "$file" "${args[@]}" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ $rc -eq 77 ] && exit 77
case "$mode" in
  example-*) [ $rc -eq 0 ] || { echo "FAIL: $file exited $rc"; exit 1; }; exit 0 ;;
esac
last=$(tail -n 1 "$tmp/out")
if [ $rc -eq 0 ] && [[ $last =~ ^[0-9]+\ passed,\ 0\ failed$ ]]; then exit 0; fi
echo "FAIL: $file exited $rc; its last line was: $last"
exit 1
