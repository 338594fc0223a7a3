#!/usr/bin/env bash
# watch_temp.sh: a TMPDIR that cannot hold files (a missing folder, /dev/null), with HOME
# set and unset, never ends watch, run, compile, compile --pch or cache info with exit 70
# (an internal error): they use /tmp, and say so in one line; watch still follows the
# kernel files a run compiles. Where no folder can hold temporary files at all (TMPDIR bad
# and /tmp read-only, in a mount namespace: run as root, else that part is skipped), watch
# runs and follows the script alone, saying so in one line, and the others work as well.
# Usage: bash watch_temp.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
WPID=""
trap '[ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# wait_for FILE REGEX: poll for a matching line, 15 s at most; false when none came.
wait_for() {
  for _ in $(seq 300); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  return 1
}
# stop_watch WHAT: Ctrl-C, and watch leaves with status 0.
stop_watch() {
  kill -INT "$WPID"
  wait "$WPID"
  local rc=$?
  WPID=""
  [ $rc -eq 0 ] || fail "$1: watch ended with exit $rc after SIGINT, want 0"
}
mkdir -p "$T/w" "$T/home"
cd "$T/w" || exit 1
printf '__global__ void a(int* p) { p[0] = 1; }\n' >k.cu
echo 'local m = assert(cuda.compile("k.cu")) print("kernels", #m.kernels)' >s.lua
echo 'print("hi")' >one.lua

for bad in "$T/missing" /dev/null; do
  for home in set unset; do
    what="TMPDIR=$bad, HOME $home"
    h=(env -u XDG_CACHE_HOME -u WARPLAB_CACHE_DIR)
    if [ $home = set ]; then h+=(HOME="$T/home"); else h+=(-u HOME); fi
    h+=(TMPDIR="$bad")
    printf '__global__ void a(int* p) { p[0] = 1; }\n' >k.cu
    "${h[@]}" "$BIN" --profile h100 watch s.lua >"$T/out" 2>"$T/err" &
    WPID=$!
    wait_for "$T/err" 'run 1 ok' || fail "$what: no first run"
    # The kernel file is followed (the runs' records live in the /tmp folder).
    printf '__global__ void a(int* p) { p[0] = 1; }\n__global__ void b(int* p) {}\n' >k.cu
    wait_for "$T/out" '^kernels	2$' || fail "$what: an edit of the kernel file gave no run"
    wait_for "$T/err" 'run 2 ok' || fail "$what: the second run did not end well"
    stop_watch "$what"
    [ "$(grep -c "cannot hold temporary files" "$T/err")" -eq 1 ] ||
      fail "$what: watch said $(grep -c "cannot hold temporary files" "$T/err") times that TMPDIR cannot be used"
    grep -q "using /tmp" "$T/err" || fail "$what: watch did not say where its files went"
    grep -q "internal error" "$T/err" && fail "$what: watch: $(grep "internal error" "$T/err")"

    for cmd in "run one.lua" "compile k.cu" "cache info" "compile --pch k.cu"; do
      # shellcheck disable=SC2086
      "${h[@]}" "$BIN" --profile h100 $cmd >"$T/out" 2>"$T/err"
      rc=$?
      [ $rc -eq 0 ] || fail "$what: $cmd: exit $rc: $(cat "$T/err")"
      # Said once by each part that would have used TMPDIR: the cache without HOME, the
      # warm headers of --pch.
      want=0
      [ $home = unset ] && want=1
      [ "$cmd" = "compile --pch k.cu" ] && want=$((want + 1))
      n=$(grep -c "cannot hold temporary files" "$T/err")
      [ "$n" -eq $want ] || fail "$what: $cmd said $n times that TMPDIR cannot be used, want $want"
    done
  done
done

# ---- no folder at all: TMPDIR bad and /tmp read-only ----------------------------------------
# In a mount namespace of its own, /tmp (and what is under it) is bound read-only.
ro=(unshare -m sh -c 'mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp && exec "$@"' sh)
if ! "${ro[@]}" test ! -w /tmp 2>/dev/null; then
  echo "skipped: no folder for temporary files (needs unshare -m and a read-only bind mount: root)"
  exit $((failures > 0))
fi
x=(env -u HOME -u XDG_CACHE_HOME -u WARPLAB_CACHE_DIR TMPDIR="$T/missing")
echo 'print("v1")' >one.lua
"${ro[@]}" "${x[@]}" "$BIN" --profile h100 watch one.lua >"$T/out" 2>"$T/err" &
WPID=$!
wait_for "$T/err" 'run 1 ok' || fail "no folder: no first run"
echo 'print("v2")' >one.lua  # (outside the namespace: the same file)
wait_for "$T/out" '^v2$' || fail "no folder: an edit of the script gave no run"
stop_watch "no folder"
grep -Eq "^warplab: no folder can hold temporary files \(TMPDIR='$T/missing': No such file or directory; /tmp: Read-only file system\): watching one.lua alone" "$T/err" ||
  fail "no folder: watch did not say it watches the script alone"
# Once each, however many runs: watch's line, and the cache's (no HOME).
[ "$(grep -c "watching one.lua alone" "$T/err")" -eq 1 ] || fail "no folder: watch said it more than once"
[ "$(grep -c "compiling without the cache" "$T/err")" -le 1 ] || fail "no folder: the cache's note came per run"
grep -q "internal error" "$T/err" && fail "no folder: watch: $(grep "internal error" "$T/err")"
for cmd in "run one.lua" "compile k.cu" "cache info" "compile --pch k.cu"; do
  # shellcheck disable=SC2086
  "${ro[@]}" "${x[@]}" "$BIN" --profile h100 $cmd >"$T/out" 2>"$T/err"
  rc=$?
  [ $rc -eq 0 ] || fail "no folder: $cmd: exit $rc: $(cat "$T/err")"
done
grep -q "compiling without warm headers" "$T/err" || fail "compile --pch: no word of the warm headers it did without"
[ $failures -eq 0 ] && echo ok
exit $((failures > 0))
