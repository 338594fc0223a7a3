#!/usr/bin/env bash
# watch_rerun.sh: `warplab watch` runs a script, re-runs it on a plain save and on an
# atomic rename (how editors save), reports a failing run with the last good one and
# keeps watching, re-runs when a file the run listed in $WARPLAB_DEPS_FILE changes,
# clears the screen with --clear, and prints the save-to-rerun latency.
# Needs the synthetic profile tests/data/profiles/synthetic_profile.json (skips without it).
set -u
W="$1"; SRC="$2"
FIX="$SRC/tests/data/profiles/synthetic_profile.json"
[ -f "$FIX" ] || { echo "skip: $FIX missing"; exit 77; }
export WARPLAB_NO_DRIVER=1
T="$(mktemp -d)"
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat -v "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }
# wait_for FILE REGEX: poll for up to 5 s.
wait_for() {
  for _ in $(seq 100); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no '$2' in $(basename "$1") after 5 s"
}

cd "$T"
echo 'print("version 1")' > s.lua
"$W" --profile "$FIX" watch s.lua --clear >"$T/out" 2>"$T/err" &
WPID=$!
# Each run's output follows the clear-screen sequence, hence no ^ in these patterns.
wait_for "$T/out" 'version 1$'
wait_for "$T/err" 'run 1 ok'

echo 'print("version 2")' > s.lua                      # a plain save
wait_for "$T/out" 'version 2$'
grep -Eq 'run 2: re-run [0-9]+ ms after save \(s\.lua\)' "$T/err" || fail "latency line"

printf 'print("version 3")\n' > .s.lua.tmp && mv .s.lua.tmp s.lua   # an atomic save
wait_for "$T/out" 'version 3$'
wait_for "$T/err" 'run 3 ok'

echo 'error("broken")' > s.lua
wait_for "$T/err" '^run failed \(exit 1\) at [0-9]{2}:[0-9]{2}:[0-9]{2}; last good run [0-9]{2}:[0-9]{2}:[0-9]{2}$'
grep -q 's.lua:1: broken' "$T/err" || fail "the script's error is shown"
kill -0 $WPID 2>/dev/null || fail "the watcher died with the run"

# A dependency recorded by the run (as the compile binding records kernel files).
echo 'first' > data.txt
cat > s.lua <<LUA
local f = assert(io.open(os.getenv("WARPLAB_DEPS_FILE"), "a"))
f:write("$T/data.txt\n")
f:close()
print("data " .. io.open("$T/data.txt"):read("l"))
LUA
wait_for "$T/out" 'data first$'
wait_for "$T/err" 'watching 2 files'   # the watch set is updated when the run ends
echo 'second' > data.txt
wait_for "$T/out" 'data second$'
grep -Eq 're-run [0-9]+ ms after save \(data\.txt\)' "$T/err" || fail "re-run names the dependency"

n=$(grep -o $'\x1b\[2J' "$T/out" | wc -l)
[ "$n" -ge 5 ] || fail "--clear cleared $n times, want one per run"
kill -INT $WPID
for _ in $(seq 60); do kill -0 $WPID 2>/dev/null || break; sleep 0.05; done
kill -0 $WPID 2>/dev/null && fail "still running 3 s after Ctrl-C"
wait $WPID; rc=$?; WPID=""
[ $rc -eq 0 ] || fail "exit $rc after Ctrl-C"
echo ok
