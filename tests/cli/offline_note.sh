#!/usr/bin/env bash
# offline_note.sh: without a GPU every command (run, repl, compile, attrs, watch) goes on
# with the default profile after the same one short line on stderr, said once per
# command (watch's re-runs and the REPL's restarted worker do not repeat it); -q hides it,
# and --profile (in any position) or WARPLAB_PROFILE make it unnecessary. The calls that
# need a GPU then say the note's few words ("needs a GPU (WARPLAB_NO_DRIVER is set)"),
# not the driver layer's whole sentence each time (`--version` has that one).
# Usage: bash offline_note.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache" XDG_STATE_HOME="$T/state"
NOTE="warplab: no GPU (WARPLAB_NO_DRIVER is set): using profile h100"
fail() { echo "FAIL: $*"; echo "--- stdout:"; cat "$T/out"; echo "--- stderr:"; cat "$T/err"; failures=$((failures + 1)); }
# run ARGS...: warplab ARGS with stdin from $T/in, must exit 0.
run() {
  "$BIN" "$@" <"$T/in" >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq 0 ] || fail "warplab $*: exit $rc"
}
notes() { grep -c "no GPU" "$T/err"; }
[ ${#NOTE} -le 80 ] || fail "the note is ${#NOTE} characters long"

echo 'print(cuda.device().name)' >"$T/s.lua"
echo 'print(dev.name)' >"$T/in"
GOOD=$ROOT/kernels_src/warps/thread_ids.cu
for cmd in "run $T/s.lua" "repl" "compile $GOOD" "attrs warp_size"; do
  # shellcheck disable=SC2086
  run $cmd
  [ "$(cat "$T/err")" = "$NOTE" ] || fail "$cmd: want exactly the note on stderr"
  # The profile named in the note is the one used.
  case $cmd in
    compile*) grep -q "for sm_90 " "$T/out" || fail "$cmd: not compiled for h100's sm_90" ;;
    *) grep -q "NVIDIA H100" "$T/out" || fail "$cmd: not on the h100 profile" ;;
  esac
  for quiet in "-q $cmd" "$cmd -q" "--profile h100 $cmd" "$cmd --profile h100" "$cmd --profile=h200"; do
    # shellcheck disable=SC2086
    run $quiet
    [ ! -s "$T/err" ] || fail "$quiet: stderr should be empty"
  done
  # shellcheck disable=SC2086
  WARPLAB_PROFILE=h200 "$BIN" $cmd <"$T/in" >"$T/out" 2>"$T/err" || fail "WARPLAB_PROFILE $cmd: exit $?"
  [ ! -s "$T/err" ] || fail "WARPLAB_PROFILE=h200 $cmd: stderr should be empty"
done

# The REPL says it once, not again for a worker started by :reload.
printf 'print(1)\n:reload\nprint(2)\n' >"$T/in"
run repl
[ "$(notes)" -eq 1 ] || fail "repl with :reload: $(notes) notes"

# watch: once at the start, not for each run.
: >"$T/in"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
cd "$T" || exit 1
echo 'print("version 1")' >w.lua
"$BIN" watch w.lua >"$T/out" 2>"$T/err" &
wpid=$!
wait_for() {
  for _ in $(seq 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no '$2' in $(basename "$1") after 10 s"
}
wait_for "$T/err" "run 1 ok"
echo 'print("version 2")' >w.lua
wait_for "$T/err" "run 2 ok"
echo 'print("version 3")' >w.lua
wait_for "$T/err" "run 3 ok"
kill -INT $wpid
wait $wpid
[ "$(notes)" -eq 1 ] || fail "watch over 3 runs: $(notes) notes"
[ "$(head -n 1 "$T/err")" = "$NOTE" ] || fail "watch: the note comes first"

# Each GPU call a script catches says the reason in the note's words; the long sentence
# ("no NVIDIA driver: ...") is not repeated on every message, in a script or the REPL.
cat >"$T/pcalls.lua" <<'LUA'
for _, f in ipairs{cuda.synchronize, function() return cuda.stream() end, cuda.synchronize} do
  print(select(2, pcall(f)))
end
LUA
: >"$T/in"
run run "$T/pcalls.lua"
[ "$(cat "$T/err")" = "$NOTE" ] || fail "pcalls: want exactly the note on stderr"
[ "$(grep -c "needs a GPU (WARPLAB_NO_DRIVER is set)$" "$T/out")" -eq 3 ] || fail "pcalls: want 3 short reasons"
grep -q "no NVIDIA driver" "$T/out" && fail "pcalls: the driver's sentence repeated"
printf 'print(pcall(cuda.synchronize))\nprint(pcall(cuda.synchronize))\n' >"$T/in"
run repl
[ "$(grep -c "needs a GPU (WARPLAB_NO_DRIVER is set)" "$T/out")" -eq 2 ] || fail "repl: want 2 short reasons"
grep -q "no NVIDIA driver" "$T/out" "$T/err" && fail "repl: the driver's sentence repeated"
"$BIN" --version 2>&1 | grep -qF "(no NVIDIA driver: WARPLAB_NO_DRIVER is set)" || fail "--version lacks the driver's sentence"

exit $((failures > 0))
