#!/usr/bin/env bash
# bad_inputs_gpu.sh: the cases of tests/bad_inputs/gpu.cases on a live GPU; exit 77
# (skipped) without one, after checking that every line is a case. $K0 is the kernel
# source those cases compile.
# Usage: bash bad_inputs_gpu.sh <warplab binary> <source root>
unset WARPLAB_NO_DRIVER
# Every line a case, GPU or not (a case split over lines would only show on a GPU).
lint=$(RUN_CASES_LINT=1 bash "$2/tests/bad_inputs/run_cases.sh" "$1" "$2" "$2/tests/bad_inputs/gpu.cases") ||
  { echo "$lint"; exit 1; }
echo 'print(cuda.device().live)' >"${TMPDIR:-/tmp}/bad_inputs_gpu_probe.$$.lua"
live=$("$1" -q run "${TMPDIR:-/tmp}/bad_inputs_gpu_probe.$$.lua" 2>/dev/null)
rm -f "${TMPDIR:-/tmp}/bad_inputs_gpu_probe.$$.lua"
[ "$live" = true ] || { echo "skip: no GPU"; exit 77; }
export K0='#include <warplab/ids.cuh>
__global__ void poke(unsigned long long address) { *reinterpret_cast<volatile int*>(address) = 1; }
__global__ void spin(int* done, unsigned long long limit_ns) {
  const unsigned long long t0 = warplab::global_timer();
  while (warplab::global_timer() - t0 < limit_ns) {}
  done[0] = 1;
}
__global__ void fine(int* x) { x[threadIdx.x] = 1; }'
WARPLAB_LIVE=1 exec bash "$2/tests/bad_inputs/run_cases.sh" "$1" "$2" "$2/tests/bad_inputs/gpu.cases"
