#!/usr/bin/env bash
# watch_orphans.sh: whatever signal ends `warplab watch` (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
# SIGKILL, SIGUSR1, SIGPIPE, SIGALRM), nothing it started is left: not the running child
# (a script looping forever, or one waiting in os.execute("sleep 100")), not the waiting
# standby, not what they started, not the disassembler `--diff` runs; and nothing is left
# in TMPDIR. Watch runs in a session of its own (setsid), so "left" is any process of that
# session, found in /proc. With the stand-in driver (build/fake_driver/libcuda.so.1), also
# a run that has its context and launched, and the standby holding one. A private folder
# that a killed keeper could not remove is removed by the next watch.
# Usage: bash watch_orphans.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
command -v setsid >/dev/null || { echo "skip: no setsid"; exit 77; }
T="$(mktemp -d)"
mkdir -p "$T/tmp" "$T/w" "$T/bin"
export TMPDIR="$T/tmp" WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1 WARPLAB_NO_DRIVER=1
SID=""
cleanup() {
  [ -n "$SID" ] && pkill -KILL -s "$SID" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stderr"; cat "$T/err"; exit 1; }
wait_for() {  # wait_for FILE REGEX: poll for a matching line, 10 s at most
  for _ in $(seq 200); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no '$2' in $(basename "$1") after 10 s"
}
# The live (not zombie) processes of session $1, from /proc (pid and command).
in_session() {
  local p stat
  for p in /proc/[0-9]*; do
    stat=$(cat "$p/stat" 2>/dev/null) || continue
    stat=${stat##*) }  # after the command's name: state ppid pgrp session ...
    set -- "$1" $stat
    [ "$5" = "$1" ] && [ "$2" != Z ] && echo "${p#/proc/} $(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)"
  done
}
alive() {  # alive PID: a process (not a zombie) has that pid
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}
start() {  # start ARGS...: watch in a new session (setsid execs it: its pid is the session's)
  (cd "$T/w" && exec setsid "$W" "$@") >"$T/out" 2>"$T/err" &
  SID=$!
  for _ in $(seq 100); do [ "$(ps -o sid= -p "$SID" | tr -d ' ')" = "$SID" ] && return 0; sleep 0.02; done
  fail "watch did not start in a session of its own"
}
# stop SIG WHAT: watch gone within 5 s, then nothing of its session and nothing in TMPDIR.
stop() {
  kill -"$1" "$SID" 2>/dev/null
  local within=${STOP_WITHIN:-5}
  for _ in $(seq $((within * 20))); do kill -0 "$SID" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$SID" 2>/dev/null && fail "SIG$1 ($2): watch still running $within s after it"
  wait "$SID" 2>/dev/null
  for _ in $(seq 100); do
    [ -z "$(in_session "$SID")" ] && [ -z "$(ls -A "$T/tmp")" ] && break
    sleep 0.05
  done
  left=$(in_session "$SID")
  [ -z "$left" ] || fail "SIG$1 ($2): processes of watch left: $left"
  [ -z "$(ls -A "$T/tmp")" ] || fail "SIG$1 ($2): left in TMPDIR: $(ls -A "$T/tmp")"
  for f in "$T"/w/*.pid; do
    [ -f "$f" ] && alive "$(cat "$f")" && fail "SIG$1 ($2): $(basename "$f" .pid) still runs"
  done
  SID=""
  return 0
} 2>/dev/null

cd "$T/w" || exit 1
# The pid of the process running the script, and then a loop or a child of its own.
cat >busy.lua <<'LUA'
local f = io.open("run.pid", "w")
f:write(io.open("/proc/self/stat"):read("n"))
f:close()
while true do end
LUA
cat >sleepy.lua <<'LUA'
local f = io.open("run.pid", "w")
f:write(io.open("/proc/self/stat"):read("n"))
f:close()
os.execute("echo $$ > sleep.pid; exec sleep 100")
LUA
echo 'print("idle")' >idle.lua
# A stand-in disassembler that never ends (found first on PATH by --diff).
cat >"$T/bin/cuobjdump" <<SH
#!/bin/sh
echo \$\$ > "$T/w/tool.pid"
exec sleep 100
SH
chmod +x "$T/bin/cuobjdump"
printf '__global__ void k(const float* a, float* b) { b[0] = a[0]; }\n' >k.cu
echo 'assert(cuda.compile("k.cu"))' >compiles.lua
# A live run: its context, a launch, then a loop (the stand-in driver runs no kernel).
cat >live.lua <<'LUA'
local m = assert(cuda.compile("k.cu"))
local a = cuda.array("f32", 256)
m.k:launch(1, 32, a, a)
cuda.synchronize()
local f = io.open("run.pid", "w")
f:write(io.open("/proc/self/stat"):read("n"))
f:close()
while true do end
LUA
FAKE="$(dirname "$W")/fake_driver"
[ -f "$FAKE/libcuda.so.1" ] || echo "skipped: live runs (no $FAKE/libcuda.so.1)"

for sig in INT TERM HUP QUIT KILL USR1 PIPE ALRM; do
  rm -f ./*.pid
  start --profile h100 watch busy.lua
  wait_for run.pid '^[0-9]+$'
  [ -n "$(ls -A "$T/tmp")" ] || fail "SIG$sig: watch made no private folder in TMPDIR"
  stop "$sig" "a script looping forever"

  rm -f ./*.pid
  start --profile h100 watch sleepy.lua
  wait_for sleep.pid '^[0-9]+$'
  stop "$sig" "a script in os.execute"

  rm -f ./*.pid
  WARPLAB_STARTUP_TRACE=1 start --profile h100 watch idle.lua
  wait_for "$T/err" 'standby for run 2 ready'
  [ "$(in_session "$SID" | wc -l)" -ge 3 ] || fail "SIG$sig: no standby beside watch and its keeper"
  stop "$sig" "a standby waiting"

  rm -f ./*.pid
  PATH="$T/bin:$PATH" start --profile h100 watch --diff compiles.lua
  wait_for tool.pid '^[0-9]+$'
  stop "$sig" "the disassembler of --diff running"

  [ -f "$FAKE/libcuda.so.1" ] || continue
  rm -f ./*.pid
  WARPLAB_NO_DRIVER="" LD_LIBRARY_PATH="$FAKE" start watch live.lua
  wait_for run.pid '^[0-9]+$'
  stop "$sig" "a live run in its loop"

  echo 'local a = cuda.array("f32", 16) print("live", cuda.device().live)' >idle_live.lua
  WARPLAB_NO_DRIVER="" LD_LIBRARY_PATH="$FAKE" WARPLAB_STARTUP_TRACE=1 start watch idle_live.lua
  wait_for "$T/err" 'standby for run 2 ready'
  grep -q '^live	true$' "$T/out" || fail "SIG$sig: the stand-in driver gave no live device"
  stop "$sig" "a live standby waiting"
done

# Ctrl-C while the watcher keeps a kernel's headers warm (NVRTC, about a second here) ends
# watch once that compile is done (NVRTC sets SIGINT to SIG_IGN as a compile starts).
printf '#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n__global__ void g(int* p) { p[0] = 1; }\n' >cg.cu
echo 'assert(cuda.compile("cg.cu"))' >cg.lua
start --profile h100 watch cg.lua
wait_for "$T/err" 'run 1 ok'
sleep 0.2
STOP_WITHIN=60 stop INT "the headers kept warm"  # the compile's own time: 9 s on a loaded machine

# A keeper killed with watch (the whole session at once) cannot remove the private
# folder: the next watch does, and leaves the folder of a watch still running alone.
kill_session() {
  pkill -KILL -s "$SID"
  for _ in $(seq 100); do [ -z "$(in_session "$SID")" ] && break; sleep 0.05; done
  wait "$SID"
  SID=""
} 2>/dev/null
start --profile h100 watch idle.lua
wait_for "$T/err" 'run 1 ok'
stale=$(ls -A "$T/tmp")
[ -n "$stale" ] || fail "no private folder"
kill_session
[ -d "$T/tmp/$stale" ] || fail "the folder went with its keeper killed: nothing to test"
start --profile h100 watch idle.lua
wait_for "$T/err" 'run 1 ok'
[ -d "$T/tmp/$stale" ] && fail "the next watch left the folder of a killed one: $stale"
first=$SID first_dir=$(ls -A "$T/tmp")
start --profile h100 watch idle.lua
wait_for "$T/err" 'run 1 ok'
[ -d "$T/tmp/$first_dir" ] || fail "a watch removed the folder of another that runs: $first_dir"
second_dir=$(ls -A "$T/tmp" | grep -vx "$first_dir")
[ -n "$second_dir" ] || fail "the second watch made no folder"
kill -INT "$SID"
wait "$SID"
for _ in $(seq 100); do [ -d "$T/tmp/$second_dir" ] || break; sleep 0.05; done
[ -d "$T/tmp/$second_dir" ] && fail "the second watch left its folder"
[ -d "$T/tmp/$first_dir" ] || fail "the second watch took the first one's folder with it"
SID=$first
stop INT "the first of two"
echo ok
