#!/usr/bin/env bash
# watch_stop.sh: `warplab watch` ends a run that hangs past --timeout and keeps
# watching; a save during a run cancels it; Ctrl-C (SIGINT) leaves with status 0 and
# no process of a run left behind, even one the run started itself (--diff on too).
# Needs tests/data/profiles/synthetic_profile.json (skips without it).
set -u
W="$1"; SRC="$2"
FIX="$SRC/tests/data/profiles/synthetic_profile.json"
[ -f "$FIX" ] || { echo "skip: $FIX missing"; exit 77; }
export WARPLAB_NO_DRIVER=1
T="$(mktemp -d)"
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }
wait_for() {
  for _ in $(seq 100); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no '$2' in $(basename "$1") after 5 s"
}
# Processes (not zombies) in process group $1.
group_alive() { ps -e -o pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/' | grep -q .; }

cd "$T"
echo 'while true do end' > s.lua
"$W" --profile "$FIX" watch s.lua --timeout 3 --diff >"$T/out" 2>"$T/err" &
WPID=$!
wait_for "$T/err" '^run failed \(timed out after 3 s\) at [0-9:]{8}; no good run yet$'

echo 'print("fine")' > s.lua
wait_for "$T/out" '^fine$'

# A run that hangs in a child process of its own; a save cancels it.
cat > s.lua <<LUA
local f = io.open("$T/run.pid", "w")
f:write(io.open("/proc/self/stat"):read("n"))
f:close()
os.execute("sleep 30")
LUA
wait_for "$T/run.pid" '^[0-9]+$'
first=$(cat "$T/run.pid"); rm -f "$T/run.pid"
touch s.lua
wait_for "$T/err" 'run cancelled: a file was saved'
wait_for "$T/run.pid" '^[0-9]+$'
second=$(cat "$T/run.pid")
sleep 0.2
group_alive "$first" && fail "the cancelled run's processes are still alive"
group_alive "$second" || fail "the current run should be running"

kill -INT $WPID
for _ in $(seq 60); do kill -0 $WPID 2>/dev/null || break; sleep 0.05; done
kill -0 $WPID 2>/dev/null && fail "still running 3 s after Ctrl-C"
wait $WPID; rc=$?; WPID=""
[ $rc -eq 0 ] || fail "exit $rc after Ctrl-C, want 0"
sleep 0.1
group_alive "$second" && fail "a run's processes outlived the watcher"
echo ok
