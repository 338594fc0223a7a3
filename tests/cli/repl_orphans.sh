#!/usr/bin/env bash
# repl_orphans.sh: what the REPL's worker started (os.execute, io.popen) dies with the
# prompt, whatever kills the prompt: Ctrl-\ (SIGQUIT), SIGKILL, SIGTERM, SIGHUP, SIGUSR1,
# SIGPIPE, SIGALRM. Each time a command marked by a unique word is started from the
# prompt, the prompt is killed, and the command must be gone within 5 s (no process left
# with parent 1).
# Usage: bash repl_orphans.sh <warplab binary> <source root>
set -u
W="$1"
export WARPLAB_NO_DRIVER=1 XDG_STATE_HOME="$(mktemp -d)"
T="$(mktemp -d)"
cleanup() {
  pkill -KILL -f "warplab_orphan_$$_" 2>/dev/null
  rm -rf "$T" "$XDG_STATE_HOME"
}
trap cleanup EXIT
cd "$T" || exit 1  # a SIGQUIT may leave a core file here
failed=0

# alive WORD: the pids of processes whose command line holds WORD.
alive() { pgrep -f "$1" 2>/dev/null; }

for sig in QUIT KILL TERM HUP USR1 PIPE ALRM; do
  word="warplab_orphan_$$_$sig"
  fifo="$T/in.$sig"
  mkfifo "$fifo"
  "$W" --profile h100 -q repl <"$fifo" >"$T/out.$sig" 2>&1 &
  prompt=$!
  exec 7>"$fifo"  # held open: the prompt waits for more input
  # A busy shell loop, marked by its own command line, started from the worker.
  printf '%s\n' "os.execute([[sh -c 'while :; do :; done' $word &]])" >&7
  for _ in $(seq 50); do [ -n "$(alive "$word")" ] && break; sleep 0.1; done
  if [ -z "$(alive "$word")" ]; then
    echo "FAIL ($sig): the marked command never started"; cat "$T/out.$sig"; failed=1
    exec 7>&-; kill -KILL $prompt 2>/dev/null; wait $prompt 2>/dev/null; continue
  fi
  kill -"$sig" $prompt
  exec 7>&-
  wait $prompt 2>/dev/null
  for _ in $(seq 50); do [ -z "$(alive "$word")" ] && break; sleep 0.1; done
  if [ -n "$(alive "$word")" ]; then
    echo "FAIL ($sig): the command os.execute started outlived the prompt:"; ps -o pid,ppid,args -p "$(alive "$word" | tr '\n' ',' | sed 's/,$//')"
    failed=1
  else
    echo "ok: SIG$sig to the prompt ends what its worker started"
  fi
done
exit $failed
