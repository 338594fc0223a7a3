#!/usr/bin/env bash
# syncblocks_timeout_gpu.sh: the home-made __syncblocks() WITHOUT a deadline
# (syncblocks_forever in kernels_src/sync/syncblocks.cu), launched with twice the
# co-resident capacity by `examples/sync/syncblocks.lua -p forever=true`, never ends by
# itself: `warplab --timeout 2 run` must stop it within seconds, exit 7 (the watchdog) and
# name the kernel, its launch line and the grid against the co-resident capacity. The
# process exit ends the GPU work. Exit 77 (skipped) without a GPU.
# Usage: bash syncblocks_timeout_gpu.sh <warplab binary> <source root>
set -u
W="$1"
ROOT="$2"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }
echo 'io.write(tostring(cuda.device().live))' > "$T/probe.lua"
[ "$("$W" -q run "$T/probe.lua" 2>/dev/null)" = "true" ] || { echo "skipped: no GPU"; exit 77; }
cd "$ROOT" || exit 1
script=examples/sync/syncblocks.lua
line=$(grep -n 'kf:launch(' "$script" | head -n 1 | cut -d: -f1)
[ -n "$line" ] || fail "no kf:launch( line in $script"
start=$(date +%s)
"$W" --timeout 2 run "$script" -p forever=true >"$T/out" 2>"$T/err"
rc=$?
took=$(( $(date +%s) - start ))
[ $rc -eq 7 ] || fail "exit $rc, expected 7 (the watchdog)"
[ $took -le 30 ] || fail "took $took s: the watchdog did not end the run promptly"
grep -q "^syncblocks_forever: grid [0-9]* > [0-9]* co-resident, no deadline" "$T/out" ||
  fail "the script did not announce the launch without a deadline"
grep -q "kernel 'syncblocks_forever' launched at .*syncblocks.lua:$line did not finish within 2 s" "$T/err" ||
  fail "the message names the kernel and its launch line ($script:$line)"
grep -Eq "probable inter-block deadlock: grid [0-9]+ blocks > [0-9]+ co-resident \([0-9]+ per SM x [0-9]+ SMs\)" "$T/err" ||
  fail "the message gives the grid against the co-resident capacity"
grep -q "^blocks arrived" "$T/out" && fail "the read after the launch returned: the kernel ended by itself?"
msg=$(grep -o "did not finish.*" "$T/err" | head -n 1)
# The GPU is usable again by the next process.
[ "$("$W" -q run "$T/probe.lua" 2>"$T/err")" = "true" ] || fail "the next run found no usable GPU after the timeout"
echo "syncblocks_timeout_gpu: ok ($took s): $msg"
