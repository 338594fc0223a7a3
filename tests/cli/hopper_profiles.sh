#!/usr/bin/env bash
# hopper_profiles.sh: the Hopper experiments offline, no GPU: on the h100 profile each prints
# its plan and passes its offline checks (exit 0, "0 failed"); on the a100 profile (sm_80)
# each still plans, and refuses what needs compute capability 9.0 in one sentence each
# (clusters and DSMEM, bulk copies, TMA copies, mbarrier transaction counts), while what
# sm_80 has (cp.async, __reduce_add_sync, the litmus tests) is not refused; a -p value
# an experiment cannot use is exit 4 with its sentence.
# Usage: bash hopper_profiles.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
# The compile cache is the one the examples' own tests use (the default, or the
# environment's WARPLAB_CACHE_DIR), not a fresh one: compiling every example for every
# profile is the suite's largest cost (the CCCL kernels take seconds each), and a cache hit
# is the same result (the key hashes the source, every header, the options and NVRTC).
export NO_COLOR=1
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
EX=$ROOT/examples
run() {  # run PROFILE NAME: the example's output in $T/out, its exit status checked to be 0
  "$BIN" --profile "$1" run "$EX/$2.lua" >"$T/out" 2>&1 </dev/null
  local rc=$?
  [ $rc -eq 0 ] || fail "$2 on $1: exit $rc: $(tail -3 "$T/out")"
  grep -q "stack traceback" "$T/out" && fail "$2 on $1: a traceback"
  grep -qE "^[a-z_]+: [0-9]+ passed, 0 failed$" "$T/out" || fail "$2 on $1: no '0 failed' summary: $(tail -2 "$T/out")"
}
has() { grep -qF -- "$1" "$T/out" || fail "$2: the output lacks '$1'"; }
lacks() { grep -qF -- "$1" "$T/out" && fail "$2: the output has '$1'"; }
NEED="need compute capability 9.0 (this is 8.0): refused"

for name in sync/ladder memory/async_copy sync/pipeline sync/atomics sync/litmus; do
  run h100 "$name"
  lacks "refused" "$name on h100"
  has "no GPU here (profile h100)" "$name on h100"
done

run a100 sync/ladder
has "thread-block clusters and distributed shared memory $NEED" "ladder on a100"
run a100 memory/async_copy
has "bulk copies $NEED" "async_copy on a100"
has "TMA tensor copies $NEED" "async_copy on a100"
lacks "cp.async need" "async_copy on a100"
has "tensor map: cuda.tensor_map(u32 {256, 262144}, box {256, 32} = 32768 bytes" "async_copy on a100"
run a100 sync/pipeline
has "bulk copies and mbarrier transaction counts $NEED" "pipeline on a100"
run a100 sync/atomics
lacks "refused" "atomics on a100"
run a100 sync/litmus
lacks "refused" "litmus on a100"
# A -p value an experiment cannot use is the command line's error: exit 4, its sentence alone,
# before anything compiles.
refuse() {  # refuse NAME "SENTENCE" -p ...
  local name=$1 want=$2
  shift 2
  "$BIN" --profile h100 run "$EX/$name.lua" "$@" >"$T/out" 2>&1 </dev/null
  local rc=$?
  [ $rc -eq 4 ] || fail "$name $*: exit $rc, want 4: $(tail -2 "$T/out")"
  [ "$(cat "$T/out")" = "warplab: $want" ] || fail "$name $*: not the sentence alone: $(cat "$T/out")"
}
refuse sync/ladder "params: -p work=0: give 1 to 256" -p work=0
refuse sync/ladder "params: -p iters=5: give 10 to 4294967295" -p iters=5
refuse memory/async_copy "params: -p tile=100: a multiple of 1024 bytes (256 u32 per TMA row), 1 to 256 rows" -p tile=100
refuse sync/pipeline "params: -p consumers=40: give 1 to 31" -p consumers=40
refuse sync/atomics "params: -p block=33: a multiple of 32" -p block=33
refuse sync/litmus "params: -p tests=MP,XX: no test 'XX' (MP, SB, LB, IRIW, CoRR, TICKET)" -p tests=MP,XX
refuse sync/litmus "params: -p testers=100: give 128 to 512" -p testers=100
exit $((failures > 0))
