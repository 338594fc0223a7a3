#!/usr/bin/env bash
# repl_spare.sh: after a restart the REPL answers from a spare worker forked ahead, whose
# state and device context were ready before the restart (through the stand-in driver,
# which logs each context with its process id); the offline note is said once for all of
# them. Skips without build/fake_driver.
# Usage: bash repl_spare.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; SRC="$2"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; echo "--- log"; cat "$T/log"; exit 1; }
export XDG_STATE_HOME="$T/state" WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1

# Offline: the note once, though three workers start (the first, the spare, the next spare).
printf 'print(1)\n:reload\nprint(2)\n' | WARPLAB_NO_DRIVER=1 "$W" repl >"$T/out" 2>"$T/err" || fail "offline: exit $?"
[ "$(grep -c 'no GPU' "$T/err")" -eq 1 ] || fail "offline: the note $(grep -c 'no GPU' "$T/err") times"

FAKE="$(dirname "$W")/fake_driver"
[ -f "$FAKE/libcuda.so.1" ] || { echo "skipped: no $FAKE/libcuda.so.1"; exit 0; }
cat >"$T/in" <<LUA
os.execute("sleep 1")
io.open("$T/log", "a"):write("restart\n"):close()
:reload
a = cuda.array("f32", 4); print("pid", io.open("/proc/self/stat"):read("n"))
LUA
unset WARPLAB_NO_DRIVER
LD_LIBRARY_PATH="$FAKE" WARPLAB_FAKE_CONTEXT_MS=300 WARPLAB_FAKE_LOG="$T/log" "$W" repl <"$T/in" >"$T/out" 2>"$T/err" ||
  fail "exit $?"
pid=$(awk '$1 == "pid" {print $2}' "$T/out")
[ -n "$pid" ] || fail "no answer after the restart"
# The worker that answered made its context before the restart was asked for.
awk -v p="$pid" '$1 == "context" && $2 == p {c = NR} $1 == "restart" {r = NR} END {exit !(c && r && c < r)}' "$T/log" ||
  fail "the worker after the restart had no context ready before it"
echo "repl_spare: ok"
