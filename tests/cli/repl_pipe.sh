#!/usr/bin/env bash
# repl_pipe.sh: `warplab repl` with piped stdin: no prompts, values printed in order with
# print() output, multi-line chunks, errors that do not stop the session, :attrs, a
# worker crash survived, and the exit status (1 when any chunk failed).
# Needs the synthetic profile tests/data/profiles/synthetic_profile.json (skips without it).
set -u
W="$1"; SRC="$2"
FIX="$SRC/tests/data/profiles/synthetic_profile.json"
[ -f "$FIX" ] || { echo "skip: $FIX missing"; exit 77; }
export WARPLAB_NO_DRIVER=1 XDG_STATE_HOME="$(mktemp -d)"
T="$(mktemp -d)"; trap 'rm -rf "$T" "$XDG_STATE_HOME"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }
repl() { timeout 20 "$W" --profile "$FIX" repl >"$T/out" 2>"$T/err"; }

# The one-liner from the README.
echo 'print(dev.attr.warp_size)' | repl; rc=$?
[ $rc -eq 0 ] || fail "exit $rc for a clean input"
[ "$(cat "$T/out")" = "32" ] || fail "dev.attr.warp_size"

cat >"$T/in" <<'LUA'
print("first")
1 + 1
local _ = io.write("no newline, ")
for i = 1, 2 do
  print("loop", i)
end
error("boom")
print("after error")
t = {1, 2, x = {y = "z"}}
t
:attrs warp
:bogus
x = 1 +
  2
x
LUA
repl <"$T/in"; rc=$?
[ $rc -eq 1 ] || fail "exit $rc, want 1 after an error"
expected=$'first\n2\nno newline, loop\t1\nloop\t2\nafter error\n{1, 2, x = {y = "z"}}'
[ "$(head -n 6 "$T/out")" = "$expected" ] || fail "values and print output out of order"
grep -Eq '^warp_size +32' "$T/out" || fail ":attrs warp"
[ "$(tail -n 1 "$T/out")" = "3" ] || fail "an unfinished expression continues on the next line"
grep -q '^repl:1: boom$' "$T/err" || fail "the error message"
grep -q "unknown command ':bogus' (:help lists them)" "$T/err" || fail "unknown command"

# An unfinished chunk at the end of input is a syntax error; :quit stops reading.
printf 'for i = 1, 2 do\n' | repl; rc=$?
[ $rc -eq 1 ] && grep -q "<eof>" "$T/err" || fail "open chunk at end of input (exit $rc)"
printf 'print(1)\n:quit\nprint(2)\n' | repl; rc=$?
[ $rc -eq 0 ] && [ "$(cat "$T/out")" = "1" ] || fail ":quit"

# A crashing worker costs the state, not the session.
printf '%s\n' 'x = 1' "os.execute('kill -SEGV ' .. io.open('/proc/self/stat'):read('n'))" 'print(x)' 'print(dev.attr.warp_size)' | repl; rc=$?
[ $rc -eq 1 ] || fail "exit $rc after a crash"
grep -q '^worker died (signal 11); state lost, new worker started\. Lost: every global, array, module and kernel of the session (1 successful input); :replay runs them again$' "$T/err" ||
  fail "crash note"
[ "$(cat "$T/out")" = $'nil\n32' ] || fail "fresh state after the crash"

# A profile that cannot be read: one line, exit 4 (docs/exit-codes.md).
echo '1' | timeout 20 "$W" --profile "$T/nope.json" repl >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 4 ] || fail "exit $rc for a missing profile, want 4"
[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q '^warplab: ' "$T/err" || fail "one-line error for a missing profile"
echo "ok"
