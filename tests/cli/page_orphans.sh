#!/usr/bin/env bash
# page_orphans.sh: whatever signal ends `warplab watch --serve` (SIGINT, SIGTERM, SIGHUP,
# SIGQUIT, SIGKILL, SIGUSR1, SIGPIPE, SIGALRM), with a page open (an event stream
# connected) and a run looping: nothing is left, neither a process of its session, nor its
# port (nothing listens there any more), nor a file in TMPDIR. `run --serve` the same way:
# Ctrl-C during the run ends it as it ends a plain run; after the run, its page is served
# until Ctrl-C, and then it exits with the run's status.
# Usage: bash page_orphans.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
command -v setsid >/dev/null || { echo "skipped: no setsid"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
T="$(mktemp -d)"
mkdir -p "$T/tmp" "$T/w"
export TMPDIR="$T/tmp" WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1 WARPLAB_NO_DRIVER=1
SID="" CLIENT=""
cleanup() {
  [ -n "$SID" ] && pkill -KILL -s "$SID" 2>/dev/null
  [ -n "$CLIENT" ] && kill "$CLIENT" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"; echo "--- stderr"; cat "$T/err"
  # What each process of warplab's session was doing (a hang says where it waits).
  [ -n "$SID" ] && { echo "--- its session"; ps -o pid,ppid,stat,wchan:32,args -s "$SID" 2>&1; }
  exit 1
}
wait_for() {  # wait_for FILE REGEX: poll for a matching line, 20 s at most
  for _ in $(seq 400); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no '$2' in $(basename "$1") after 20 s"
}
in_session() {  # the live processes of session $1
  local p stat
  for p in /proc/[0-9]*; do
    stat=$(cat "$p/stat" 2>/dev/null) || continue
    stat=${stat##*) }
    set -- "$1" $stat
    [ "$5" = "$1" ] && [ "$2" != Z ] && echo "${p#/proc/} $(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)"
  done
}
listening() {  # listening PORT: something accepts connections there
  python3 -c 'import socket, sys
s = socket.socket()
s.settimeout(1)
sys.exit(0 if s.connect_ex(("127.0.0.1", int(sys.argv[1]))) == 0 else 1)' "$1"
}
# An open page: an event stream held open (in the test's session, not watch's).
open_page() {  # open_page PORT TOKEN WHAT
  python3 -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(("GET /api/events?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n" % (sys.argv[2], sys.argv[1])).encode())
print(s.recv(4096).split(b"\r\n")[0].decode(), flush=True)
while s.recv(4096): pass' "$1" "$2" >"$T/client" 2>&1 &
  CLIENT=$!
  for _ in $(seq 400); do grep -q '^HTTP/1.1 200' "$T/client" && return 0; sleep 0.05; done
  fail "$3: no page could open on port $1 in 20 s; the client said: '$(cat "$T/client")'"
}
start() {  # start ARGS...: warplab in a new session, its page's port and token read
  : >"$T/out"  # (emptied here: the background shell's redirection may come after wait_for reads)
  : >"$T/err"
  (cd "$T/w" && exec setsid "$W" "$@") >>"$T/out" 2>>"$T/err" &
  SID=$!
  wait_for "$T/err" 'the page is at http://127\.0\.0\.1:[0-9]+/\?token='
  PORT=$(sed -nE 's|.*the page is at http://127\.0\.0\.1:([0-9]+)/.*|\1|p' "$T/err")
  TOKEN=$(sed -nE 's|.*the page is at .*token=([0-9a-f]{32}).*|\1|p' "$T/err")
}
# gone SIG WHAT: warplab gone within 5 s, then nothing of its session, its port, TMPDIR.
gone() {
  for _ in $(seq 100); do kill -0 "$SID" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$SID" 2>/dev/null && fail "SIG$1 ($2): still running 5 s after it"
  wait "$SID" 2>/dev/null
  STATUS=$?
  for _ in $(seq 100); do
    [ -z "$(in_session "$SID")" ] && [ -z "$(ls -A "$T/tmp")" ] && ! listening "$PORT" && break
    sleep 0.05
  done
  left=$(in_session "$SID")
  [ -z "$left" ] || fail "SIG$1 ($2): processes left: $left"
  [ -z "$(ls -A "$T/tmp")" ] || fail "SIG$1 ($2): left in TMPDIR: $(ls -A "$T/tmp")"
  listening "$PORT" && fail "SIG$1 ($2): port $PORT still listens"
  [ -n "$CLIENT" ] && { kill "$CLIENT" 2>/dev/null; wait "$CLIENT" 2>/dev/null; }
  SID="" CLIENT=""
  return 0
} 2>/dev/null

cd "$T/w" || exit 1
cat >busy.lua <<'LUA'
print("looping")
io.stdout:flush()
while true do end
LUA
echo 'print("a short run")' >short.lua

for sig in INT TERM HUP QUIT KILL USR1 PIPE ALRM; do
  start --profile h100 watch busy.lua --serve
  wait_for "$T/out" '^looping$'
  open_page "$PORT" "$TOKEN" "SIG$sig"
  kill -"$sig" "$SID"
  gone "$sig" "watch --serve, a run looping, a page open"
done

# run --serve: Ctrl-C while the script runs ends it as a plain run (by the signal).
start --profile h100 run busy.lua --serve
wait_for "$T/out" '^looping$'
open_page "$PORT" "$TOKEN" "run --serve"
kill -INT "$SID"
gone INT "run --serve during the run"
[ "$STATUS" = 130 ] || fail "run --serve stopped by Ctrl-C during the run: status $STATUS, not 130"
# After the run its page stays until Ctrl-C, then the run's status (here 0).
start --profile h100 run short.lua --serve
wait_for "$T/err" 'its page stays at'
grep -qx 'a short run' "$T/out" || fail "run --serve: the run's output is not on the terminal"
open_page "$PORT" "$TOKEN" "run --serve after the run"
kill -INT "$SID"
gone INT "run --serve after the run"
[ "$STATUS" = 0 ] || fail "run --serve after the run: status $STATUS, not 0"
for sig in TERM KILL; do
  start --profile h100 run short.lua --serve
  wait_for "$T/err" 'its page stays at'
  kill -"$sig" "$SID"
  gone "$sig" "run --serve after the run"
done
echo ok
