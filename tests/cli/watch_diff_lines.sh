#!/usr/bin/env bash
# watch_diff_lines.sh: `watch --diff` cuts a long diff at 40 lines and says how many changed
# lines it left out and how to see them; `--diff-lines 0` shows every one, `--diff-lines N`
# at most N. Offline: an edit that changes the constant of 64 unrolled stores changes 63 PTX
# lines (the first stores 0 either way), 126 lines of diff.
# Usage: bash watch_diff_lines.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1
WPID=""
trap '[ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; echo "--- stderr"; cat "$T/err"; failures=$((failures + 1)); }
wait_for() { for _ in $(seq 400); do grep -Eq "$1" "$T/err" 2>/dev/null && return 0; sleep 0.05; done; return 1; }
cd "$T" || exit 1
kernel() { printf '__global__ void g(float* o) {\n#pragma unroll\n  for (int i = 0; i < 64; ++i) o[i * 33] = i * %s;\n}\n' "$1" >k.cu; }
echo 'assert(cuda.compile("k.cu"))' >s.lua

# watch_edit ARGS...: a watch with ARGS, one edit of the constant, then Ctrl-C.
watch_edit() {
  kernel 1.5f
  "$BIN" --profile h100 watch s.lua "$@" >"$T/out" 2>"$T/err" &
  WPID=$!
  wait_for 'run 1 ok' || fail "watch $*: no first run"
  kernel 2.5f
  wait_for 'run 2 ok' || fail "watch $*: no second run"
  sleep 0.3
  kill -INT $WPID
  wait $WPID
  WPID=""
}

watch_edit --diff
grep -q '^PTX of g(float\*) changed:$' "$T/err" || fail "--diff: the PTX diff"
grep -Eq '^  \.\.\. and [0-9]+ more changed lines \(--diff-lines 0 shows them all\)$' "$T/err" ||
  fail "--diff: a long diff is cut at 40 lines with how to see them all"
watch_edit --diff --diff-lines 0
grep -q 'more changed lines' "$T/err" && fail "--diff-lines 0: a line left out"
n=$(grep -c '^+ mov.u32' "$T/err")  # each store's new constant (i = 0 stores 0 in both)
[ "$n" -eq 63 ] || fail "--diff-lines 0: $n new constants shown, want 63"
watch_edit --diff --diff-lines 5
[ "$(grep -c '^[-+] ' "$T/err")" -le 5 ] || fail "--diff-lines 5: more than 5 lines"
grep -q 'more changed lines (--diff-lines 0 shows them all)' "$T/err" || fail "--diff-lines 5: the rest counted"
exit $((failures > 0))
