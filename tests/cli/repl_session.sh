#!/usr/bin/env bash
# repl_session.sh: the REPL keeps the session's successful inputs: :save writes them as a
# script that runs, :replay runs them again after :reload; a chunk over 64 MiB is refused
# with one sentence and the worker (with its state) survives it. (issue 12: defect 11, the
# REPL restart's :replay; the GPU half is repl_restart_gpu.sh)
set -u
W="$1"; SRC="$2"
FIX="$SRC/tests/data/profiles/synthetic_profile.json"
export WARPLAB_NO_DRIVER=1 XDG_STATE_HOME="$(mktemp -d)"
T="$(mktemp -d)"; trap 'rm -rf "$T" "$XDG_STATE_HOME"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }
repl() { timeout 60 "$W" --profile "$FIX" repl >"$T/out" 2>"$T/err"; }

printf 'x = 40\nerror("not kept")\ny = x + 2\n:save %s\n:reload\nprint(y)\n:replay\nprint(y)\n' "$T/s.lua" | repl
grep -q "^saved 2 inputs to $T/s.lua$" "$T/out" || fail ":save"
[ "$(grep -vc -e '^--' -e '^dev = cuda.device()' "$T/s.lua")" = 2 ] || fail ":save wrote $(cat "$T/s.lua")"
grep -q "^nil$" "$T/out" || fail "after :reload y should be nil"
grep -q "^replayed 3 inputs$" "$T/out" || fail ":replay count (x =, y =, print(y))"
grep -q "^42$" "$T/out" || fail "after :replay y should be 42"
"$W" --profile "$FIX" run "$T/s.lua" >/dev/null 2>&1 || fail "the saved session does not run as a script"
printf ':save\n:save /nonexistent/dir/x.lua\n' | repl
grep -q ":save needs a file name" "$T/err" || fail ":save without a name"
grep -q ":save: the folder '/nonexistent/dir' of '/nonexistent/dir/x.lua' does not exist" "$T/err" || fail ":save to a bad path"

# :help NAME reads the API table of docs/lua-api.md; :time runs and times a chunk; :attrs
# writes values and meanings as `warplab attrs` does.
printf ':help k:launch\n:help no_such_name\n:time y = 6 * 7\nprint(y)\n:attrs warp_size\n' | repl
grep -q "^k:launch(grid, block, ...): " "$T/out" || fail ":help k:launch"
grep -q "nothing about 'no_such_name'" "$T/out" || fail ":help of an unknown name"
grep -qE '^\([0-9]+\.[0-9]{3} ms\)$' "$T/out" || fail ":time prints the time"
grep -q "^42$" "$T/out" || fail ":time runs the chunk in the session"
grep -q "^warp_size  32 threads  threads per warp" "$T/out" || fail ":attrs with the unit and the meaning"

# A failed cuda.compile at the prompt shows its diagnostics although only nil is kept.
printf 'm = cuda.compile{source = "__global__ void k(float* x) { x[0] = undefined_thing; }"}\nprint(m)\n' | repl
grep -q 'error: identifier "undefined_thing" is undefined' "$T/err" || fail "a failed compile printed nothing"
grep -q "^nil$" "$T/out" || fail "m should be nil"

# 65 MiB in one chunk: refused by the prompt, the worker and its state stay.
python3 - "$T/big.in" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("kept = 7\n")
    f.write("s = '" + "a" * (65 << 20) + "'\n")
    f.write("print(kept)\n")
PY
repl <"$T/big.in"; rc=$?
grep -q "the REPL takes at most 64 MiB per chunk" "$T/err" || fail "no sentence for a 65 MiB chunk"
grep -q "worker died" "$T/err" && fail "a 65 MiB chunk killed the worker"
grep -q "^7$" "$T/out" || fail "the state did not survive the 65 MiB chunk"
[ $rc -eq 1 ] || fail "exit $rc, want 1 (a chunk failed)"
echo "repl_session: ok"
