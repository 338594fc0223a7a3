#!/usr/bin/env bash
# watch_sessions.sh: nothing a watched run starts outlives it, a process in a session of
# its own (setsid, as daemons start) included: it is ended when the run ends, when a save
# cancels the run, when --timeout ends it, when watch stops (Ctrl-C) and when watch is
# killed (SIGKILL: the keeper tells the run to end what it started). Such a process left
# the run's process group, so killing the group missed it; the run and watch are each the
# reaper of what is orphaned below them, and end it. The REPL's worker likewise: what it
# started in a session of its own is ended with it (:reload, the end of the input); and
# what it started that has ended stays no zombie of the prompt's (the prompt adopts it).
# Needs setsid and the synthetic profile tests/data/profiles/synthetic_profile.json.
set -u
W="$1"; SRC="$2"
FIX="$SRC/tests/data/profiles/synthetic_profile.json"
[ -f "$FIX" ] || { echo "skip: $FIX missing"; exit 77; }
command -v setsid >/dev/null || { echo "skip: no setsid"; exit 77; }
export WARPLAB_NO_DRIVER=1 NO_COLOR=1
T="$(mktemp -d)"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
WPID=""
cleanup() {
  [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null
  for f in "$T"/*.pid; do [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat -v "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }
wait_for() {  # wait_for FILE REGEX: poll for up to 10 s
  for _ in $(seq 200); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no '$2' in $(basename "$1") after 10 s"
}
alive() {  # alive PID: a process (not a zombie) has that pid
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}
# gone WHAT [PID]: the process PID (by default the one in daemon.pid) ends within 3 s.
gone() {
  local pid="${2:-}"
  [ -n "$pid" ] || pid=$(cat "$T/daemon.pid" 2>/dev/null) || fail "$1: no daemon.pid"
  for _ in $(seq 60); do
    alive "$pid" || { [ -n "${2:-}" ] || rm -f "$T/daemon.pid"; return 0; }
    sleep 0.05
  done
  fail "$1: the process started with setsid ($pid) outlived it"
}
# The script starts `sleep 100` in a session of its own, and says so; with a file `loop`
# there it then loops.
cat >"$T/d.lua" <<'LUA'
os.execute([[setsid sh -c 'echo $$ > daemon.tmp; exec sleep 100' </dev/null >/dev/null 2>&1 &]])
-- Its pid written, not the file alone: a run that ended at once had the shell killed between
-- the file's creation and the echo, and daemon.pid stayed empty.
local function written()
  local f = io.open("daemon.tmp")
  if not f then return false end
  local s = f:read("a")
  f:close()
  return s:match("^%d+") ~= nil
end
for _ = 1, 100 do if written() then break end os.execute("sleep 0.05") end
os.rename("daemon.tmp", "daemon.pid")
print("started")
if io.open("loop") then while true do end end
LUA
cd "$T"
start() {  # start ARGS...: watch d.lua in a session of its own; wait for the daemon
  rm -f daemon.pid
  : >"$T/err"
  setsid "$W" --profile "$FIX" watch d.lua "$@" >"$T/out" 2>"$T/err" &
  WPID=$!
  wait_for "$T/daemon.pid" '^[0-9]+$'
}
stop() {  # stop SIG
  kill -"$1" "$WPID"
  wait "$WPID" 2>/dev/null
  WPID=""
}

start
wait_for "$T/err" '\] run 1 ok'
gone "the run that started it ended"
echo '-- edited' >>d.lua
wait_for "$T/daemon.pid" '^[0-9]+$'
gone "a second run ended"
stop INT

touch loop
start --timeout 2
wait_for "$T/err" 'timed out after 2 s'
gone "the run timed out"
echo '-- saved' >>d.lua                  # the next run loops too
wait_for "$T/daemon.pid" '^[0-9]+$'
stop INT
gone "watch stopped with Ctrl-C while a run looped"

start
first=$(cat "$T/daemon.pid")            # the next run starts one of its own
echo '-- saved again' >>d.lua           # cancels the looping run
wait_for "$T/err" 'run cancelled: a file was saved'
gone "a save cancelled the run" "$first"
stop INT

start
stop KILL
gone "watch killed with SIGKILL while a run looped"
rm -f loop

# The REPL's worker: what it started in a session of its own ends with it.
cat >"$T/chunks.lua" <<'LUA'
os.execute([[setsid sh -c 'echo $$ > daemon.pid; exec sleep 100' </dev/null >/dev/null 2>&1 &]])
os.execute("sleep 0.3")
LUA
"$W" --profile "$FIX" repl <"$T/chunks.lua" >"$T/out" 2>"$T/err" || fail "the REPL failed"
gone "the REPL's input ended"
{ printf '%s\n%s\n:reload\nprint("reloaded")\n' "$(head -1 "$T/chunks.lua")" 'os.execute("sleep 0.3")'; sleep 4; } |
  "$W" --profile "$FIX" repl >"$T/out" 2>"$T/err" &
WPID=$!
wait_for "$T/out" '^reloaded$'
gone "the REPL's worker was replaced (:reload)"
wait "$WPID"
{ printf '%s\n' 'os.execute("sleep 0.2 &")' 'os.execute("sleep 0.6")' 'print("next")'; sleep 3; } |
  "$W" --profile "$FIX" repl >"$T/out" 2>"$T/err" &
WPID=$!
wait_for "$T/out" '^next$'
zombies=0
for p in /proc/[0-9]*; do
  stat=$(cat "$p/stat" 2>/dev/null) || continue
  stat=${stat##*) }
  set -- $stat
  [ "$2" = "$WPID" ] && [ "$1" = Z ] && zombies=$((zombies + 1))
done
[ "$zombies" -eq 0 ] || fail "the prompt keeps $zombies zombie(s) of what the worker started"
wait "$WPID"
WPID=""
echo ok
