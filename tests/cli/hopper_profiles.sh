#!/usr/bin/env bash
# hopper_profiles.sh: the Hopper experiments offline, no GPU: on the h100 profile each prints
# its plan and passes its offline checks (exit 0, "0 failed"); on the a100 profile (sm_80)
# each still plans, and refuses what needs compute capability 9.0 in one sentence each
# (clusters and DSMEM, bulk copies, TMA copies, mbarrier transaction counts), while what
# sm_80 has (cp.async, __reduce_add_sync, the litmus tests) is not refused.
# Usage: bash hopper_profiles.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache"
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
exit $((failures > 0))
