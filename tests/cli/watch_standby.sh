#!/usr/bin/env bash
# watch_standby.sh: `warplab watch` runs each edit in a process made ready before the save
# (the standby). Its life cycle: a script that ends well, raises, calls os.exit, is edited
# while the standby is still starting (the run reads the script and the kernel as they are
# at the save, never as they were when the standby started), or vanishes; the run's
# output is the script's; and nothing is left, neither a process of a run nor a temporary
# file, after watch ends by SIGINT, SIGTERM, SIGQUIT, SIGHUP or SIGKILL.
# The standby's slow start comes from the stand-in driver (build/fake_driver) with a
# context that takes 1.5 s; without it that part is skipped.
# Usage: bash watch_standby.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; SRC="$2"
T="$(mktemp -d)"
mkdir -p "$T/tmp" "$T/w"
export TMPDIR="$T/tmp" WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1 WARPLAB_NO_DRIVER=1
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }
# wait_for FILE REGEX [SECONDS]: poll until the file has a matching line.
wait_for() {
  for _ in $(seq $((${3:-10} * 20))); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no '$2' in $(basename "$1") after ${3:-10} s"
}
count() { grep -Ec "$2" "$1" 2>/dev/null; }
# Processes (not zombies) whose parent or group is $1.
related_alive() {
  ps -e -o pid=,ppid=,pgid=,stat= | awk -v p="$1" '($2 == p || $3 == p) && $4 !~ /^Z/' | grep -q .
}
start() {  # start ARGS...: watch in the background, in $T/w
  (cd "$T/w" && exec "$W" "$@") >"$T/out" 2>"$T/err" &
  WPID=$!
}
stop() {  # stop SIGNAL: and it must be gone within 5 s (bash's "Killed" notice left out)
  kill -"$1" "$WPID"
  for _ in $(seq 100); do kill -0 "$WPID" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$WPID" 2>/dev/null && fail "watch still running 5 s after SIG$1"
  wait "$WPID"
  WPID=""
} 2>/dev/null

cd "$T/w" || exit 1
# ---- the life cycle ----------------------------------------------------------------------
echo 'print("v1")' >s.lua
start --profile h100 watch s.lua
wait_for "$T/out" '^v1$'
wait_for "$T/err" 'run 1 ok'
echo 'error("boom")' >s.lua
wait_for "$T/err" '^run failed \(exit 1\) at'
grep -q 's.lua:1: boom' "$T/err" || fail "the error's message is not shown"
echo 'print("v3"); os.exit(3)' >s.lua
wait_for "$T/err" '^run failed \(exit 3\) at'
wait_for "$T/out" '^v3$'
echo 'print("v4")' >s.lua
wait_for "$T/err" 'run 4 ok'
# The script is gone, then back: the run after it is the new one.
rm s.lua
wait_for "$T/err" 's.lua is gone; waiting for it to come back'
echo 'print("v5")' >s.lua
wait_for "$T/out" '^v5$'
wait_for "$T/err" 'run 5 ok'
[ "$(count "$T/out" '^v')" -eq 4 ] || fail "each version printed once: $(tr '\n' ' ' <"$T/out")"
stop INT

# ---- edited while the standby starts -------------------------------------------------------
FAKE="$(dirname "$W")/fake_driver"
if [ -f "$FAKE/libcuda.so.1" ]; then
  printf '__global__ void kA(int* p) { p[0] = 1; }\n' >k.cu
  echo 'local m = cuda.compile("k.cu"); print("s1", m.kernels[1])' >s.lua
  : >"$T/fake.log"
  WARPLAB_NO_DRIVER="" LD_LIBRARY_PATH="$FAKE" WARPLAB_FAKE_CONTEXT_MS=1500 WARPLAB_FAKE_LOG="$T/fake.log" \
    WARPLAB_STARTUP_TRACE=1 start watch s.lua
  wait_for "$T/out" '^s1	kA$'
  wait_for "$T/err" 'run 1 ok'
  sleep 0.3  # the standby for run 2 is making its context now (1.5 s): edit both files
  printf '__global__ void kB(int* p) { p[0] = 2; }\n' >k.cu
  echo 'local m = cuda.compile("k.cu"); print("s2", m.kernels[1])' >s.lua
  wait_for "$T/out" '^s2	kB$'
  wait_for "$T/err" 'run 2 ok'
  grep -Eq '^s2	kA$|^s1	kB$' "$T/out" && fail "a run saw a file as it was before the save"
  # Run 2 was the standby: the process that went after the save was forked before it.
  awk '/\] run 2: re-run/ {saved = NR} /run forked/ {forked[$3] = NR}
       saved && / go \(/ && !gone {gone = $3}
       END {exit !(gone && forked[gone] && forked[gone] < saved)}' "$T/err" ||
    fail "run 2 was not a process forked before the save"
  stop TERM
else
  echo "skipped: the edit during a standby's start (no $FAKE/libcuda.so.1)"
fi

# ---- nothing left, whatever ends watch -------------------------------------------------------
# gone SIG RUN WATCHER: after watch ended by SIG, no process of the run or of watch is left,
# and the private folder in TMPDIR is gone.
gone() {
  for _ in $(seq 100); do
    related_alive "$2" || related_alive "$3" || [ -n "$(ls -A "$T/tmp")" ] || break
    sleep 0.05
  done
  related_alive "$2" && fail "SIG$1: the run's processes outlived watch"
  related_alive "$3" && fail "SIG$1: a child of watch outlived it"
  [ -z "$(ls -A "$T/tmp")" ] || fail "SIG$1: left in TMPDIR: $(ls -A "$T/tmp")"
}
for sig in INT TERM QUIT HUP KILL; do
  # While a run is going (it started a process of its own).
  cat >s.lua <<'LUA'
local f = io.open("run.pid", "w")
f:write(io.open("/proc/self/stat"):read("n"))
f:close()
os.execute("sleep 30")
LUA
  rm -f run.pid
  start --profile h100 watch s.lua
  wait_for run.pid '^[0-9]+$'
  [ -n "$(ls -A "$T/tmp")" ] || fail "SIG$sig: watch made no private folder in TMPDIR"
  watcher=$WPID
  stop "$sig"
  gone "$sig" "$(cat run.pid)" "$watcher"
  # While idle, with the next run's standby waiting.
  echo 'print("idle")' >s.lua
  WARPLAB_STARTUP_TRACE=1 start --profile h100 watch s.lua
  wait_for "$T/err" 'standby for run 2 ready'
  watcher=$WPID
  related_alive "$watcher" || fail "SIG$sig: no standby process"
  stop "$sig"
  gone "$sig" "$watcher" "$watcher"
done
echo ok
