#!/usr/bin/env bash
# tutorial_watch.sh: docs/tutorial.md's "Watch it while you edit", followed offline: the
# tutorial's saxpy.cu and first.lua (taken from the page), `warplab watch --diff first.lua`,
# then the edits the page suggests, each with what the page says it shows: the launch-bounds
# cap (max 256 threads, two FAILs with the reason, `cannot launch`, exit 1), taken back
# (a good run), the double-precision line (the page's `regs A→B` line, the PTX lines it
# names), a broken save (exit 5) and the next good save. The one-shot commands of the page
# run in docs_commands.sh; this is the part that needs an editor.
# Usage: bash tutorial_watch.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; DOC="$(cd "$2" && pwd)/docs/tutorial.md"
export WARPLAB_NO_DRIVER=1 NO_COLOR=1
unset WARPLAB_PROFILE
T="$(mktemp -d)"
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
export WARPLAB_CACHE_DIR="$T/cache"
fail() { echo "FAIL: $*"; echo "--- watch's output"; cat "$T/out"; exit 1; }
# ended N: wait (up to 20 s) until N runs have ended, good or failed.
ended() {
  for _ in $(seq 400); do
    [ "$(grep -Ec '^\[[0-9:]+\] run [0-9]+ ok|^run (failed|stopped)' "$T/out")" -ge "$1" ] && return 0
    sleep 0.05
  done
  fail "run $1 did not end within 20 s"
}
# since N: watch's output from run N on.
since() { sed -n "/^\[[0-9:]*\] run $1: /,\$p" "$T/out"; }
# page TEXT: the tutorial still says TEXT (the test follows what it says).
page() { grep -qF -- "$1" "$DOC" || fail "docs/tutorial.md no longer says: $1"; }

python3 - "$DOC" "$T" <<'PY' || fail "cannot take saxpy.cu and first.lua from the page"
import re, sys
doc, out = open(sys.argv[1]).read(), sys.argv[2]
for name in ("saxpy.cu", "first.lua"):
    m = re.search(r"<!-- check: file " + re.escape(name) + r" -->\n```\w*\n(.*?)\n```", doc, re.S)
    open(f"{out}/{name}", "w").write(m.group(1) + "\n")
PY
cd "$T" || exit 1
orig=$(cat saxpy.cu)
"$W" watch --diff first.lua >"$T/out" 2>&1 &
WPID=$!
ended 1
since 1 | grep -q '^first: 6 passed, 0 failed$' || fail "run 1: not 6 passed"

# Edit 1: the launch-bounds cap.
page '`__global__ void __launch_bounds__(256) saxpy(...)`'
sed -i 's/__global__ void saxpy/__global__ void __launch_bounds__(256) saxpy/' saxpy.cu
ended 2
for want in 'max 256 threads' \
            "FAIL block 512: a valid launch  (block 512x1x1 = 512 threads exceeds the kernel's max_threads_per_block = 256" \
            'run failed (exit 1)'; do
  since 2 | grep -qF -- "$want" || fail "after the cap: no '$want'"
done
page "FAIL block 512: a valid launch  (block 512x1x1 = 512 threads exceeds the kernel's"
[ "$(since 2 | grep -Ec '^ *(512|1024) .*cannot launch$')" = 2 ] || fail "after the cap: 512 and 1024 not 'cannot launch'"

# Taken back out: a good run again.
printf '%s\n' "$orig" > saxpy.cu
ended 3
since 3 | grep -Eq '^\[[0-9:]+\] run 3 ok' || fail "run 3 (the cap taken out) is not good"

# Edit 2: double precision; the page's resource line and PTX lines.
page '`y[i] = (float)((double)a * x[i] + y[i]);`'
line=$(grep -oE '`saxpy\(\.\.\.\): regs [0-9]+→[0-9]+`' "$DOC" | tr -d '`' | sed 's/^saxpy(\.\.\.)//')
[ -n "$line" ] || fail "docs/tutorial.md shows no 'saxpy(...): regs A→B' line"
sed -i 's/y\[i\] = a \* x\[i\] + y\[i\];/y[i] = (float)((double)a * x[i] + y[i]);/' saxpy.cu
grep -qF '(double)a' saxpy.cu || fail "the double-precision edit did not apply to saxpy.cu"
ended 4
since 4 | grep -Eq '^\[[0-9:]+\] run 4 ok' || fail "run 4 (double precision) is not good"
since 4 | grep -Eq "^saxpy\(.*\)$line\$" || fail "run 4: no 'saxpy(...)$line' line"
for ptx in cvt.f64.f32 fma.rn.f64; do
  page "\`$ptx\`"
  since 4 | grep -Eq "^\+.*$ptx" || fail "run 4: --diff shows no added $ptx line"
done

# A broken save, then a good one.
echo 'garbage' >> saxpy.cu
ended 5
since 5 | grep -q '^run stopped (compile error, see above)' || fail "a broken save: not 'run stopped (compile error, see above)'"
printf '%s\n' "$orig" > saxpy.cu
ended 6
since 6 | grep -Eq '^\[[0-9:]+\] run 6 ok' || fail "the save after the broken one did not run well"

kill -INT "$WPID"; wait "$WPID"; rc=$?; WPID=""
[ "$rc" = 0 ] || fail "Ctrl-C: exit $rc, not 0"
echo "ok: the tutorial's watch session, offline"
