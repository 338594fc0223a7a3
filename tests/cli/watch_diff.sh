#!/usr/bin/env bash
# watch_diff.sh: `warplab watch --diff` shows what an edit changed in the PTX of the
# kernel that changed (offline: compiling needs no GPU), and nothing for an edit that
# leaves the code the same; where cuobjdump or nvdisasm exists (the GPU machine) the SASS
# diff too, else the one-time note; a new register cap gives the resources line.
set -u
W="$1"
T="$(mktemp -d)"
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stderr"; cat "$T/err"; exit 1; }
wait_for() { for _ in $(seq 200); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done; fail "no '$2' after 10 s"; }
export WARPLAB_NO_DRIVER=1 WARPLAB_CACHE_DIR="$T/cache"
cd "$T"
printf '__global__ void fill(int* out) { out[threadIdx.x] = 1; }\n' > k.cu
echo 'assert(cuda.compile("k.cu"))' > s.lua
"$W" --profile h200 watch --diff s.lua >"$T/out" 2>"$T/err" &
WPID=$!
wait_for "$T/err" 'run 1 ok'
printf '// a comment only\n__global__ void fill(int* out) { out[threadIdx.x] = 1; }\n' > k.cu
wait_for "$T/err" 'run 2 ok'
sleep 0.2
grep -q "changed:" "$T/err" && fail "an edit that leaves the code alone reported a change"
printf '__global__ void fill(int* out) { out[threadIdx.x] = 7; }\n' > k.cu
wait_for "$T/err" 'run 3 ok'
wait_for "$T/err" '^PTX of fill\(int\*\) changed:$'
grep -q '^- mov.u32.*, 1;$' "$T/err" || fail "the old instruction is shown"
grep -q '^+ mov.u32.*, 7;$' "$T/err" || fail "the new instruction is shown"
if grep -q "neither cuobjdump nor nvdisasm found" "$T/err"; then
  echo "note: no SASS tool here: SASS diffs not checked"
else
  grep -q '^SASS of fill(int\*) changed:$' "$T/err" || fail "a SASS tool exists but no SASS diff was shown"
  grep -q '^@@ -[0-9]*,[0-9]* +[0-9]*,[0-9]* @@$' "$T/err" || fail "no hunk header"
fi
# The same code under a register cap: the CUBIN's numbers move, the PTX does not.
printf '__global__ void big(const float* in, float* out) { float v[24];\n#pragma unroll\nfor (int i = 0; i < 24; ++i) v[i] = in[threadIdx.x + i * 64];\nfloat s = 0;\n#pragma unroll\nfor (int i = 0; i < 24; ++i) s += v[i] * v[23 - i];\nout[threadIdx.x] = s; }\n' > b.cu
echo 'assert(cuda.compile("k.cu")); assert(cuda.compile{file = "b.cu", max_registers = BIG_CAP})' > s.lua
wait_for "$T/err" 'run 4 ok'
sed -i 's/BIG_CAP/16/' s.lua
wait_for "$T/err" 'run 5 ok'
wait_for "$T/err" '^big\(const float\*, float\*\): regs [0-9]+→[0-9]+'
kill -INT $WPID; wait $WPID; WPID=""
echo "watch_diff: ok"
