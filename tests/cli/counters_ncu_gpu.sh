#!/usr/bin/env bash
# counters_ncu_gpu.sh (GPU): warplab's in-process hardware counters against an independent
# tool, Nsight Compute. One script launches five kernels, once each: a one-warp shared
# store at stride 32 and at stride 1, a global load at a stride of 4 floats, a branch
# split inside every warp, and a kernel that spills (max_registers = 32). warplab counts
# them with cuda.counters (CUPTI names); then `ncu --csv --metrics <the same names>` profiles
# the same script's same launches. Counts (.sum) must be equal, rates (.pct) within 2 %.
# Both columns are printed, always. Exit 77 without a GPU or without ncu (PATH, then
# $CUDA_HOME/bin, /usr/local/cuda/bin).
# Usage: bash counters_ncu_gpu.sh <warplab binary> <source root>
set -u
W=$(realpath "$1") ROOT=$(realpath "$2")
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
export WARPLAB_LUA_DIR=$ROOT/lua
cd "$ROOT" || exit 1

echo 'io.write(tostring(cuda.device().live))' >"$T/probe.lua"
[ "$("$W" run "$T/probe.lua" 2>/dev/null)" = true ] || { echo "skipped: no CUDA device"; exit 77; }
NCU=$(command -v ncu || true)
for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  [ -z "$NCU" ] && [ -n "$d" ] && [ -x "$d/bin/ncu" ] && NCU=$d/bin/ncu
done
[ -n "$NCU" ] || { echo "skipped: no ncu (Nsight Compute) on PATH or in /usr/local/cuda/bin"; exit 77; }
echo "ncu: $NCU ($("$NCU" --version 2>/dev/null | tail -n 1))"

METRICS=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_shared_st.sum
METRICS+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
METRICS+=,smsp__sass_branch_targets_threads_divergent.sum,smsp__sass_average_branch_targets_threads_uniform.pct
METRICS+=,smsp__inst_executed_op_local_ld.sum,smsp__inst_executed_op_local_st.sum

cat >"$T/x.lua" <<'LUA'
local params = require "warplab.params"
local p = params{ncu = false, metrics = ""}
local m = assert(cuda.compile{source = [[
extern "C" __global__ void store(int* out, int stride) {
  __shared__ int s[32 * 33];
  s[threadIdx.x * stride] = threadIdx.x;
  __syncwarp();
  out[threadIdx.x] = s[threadIdx.x];
}
extern "C" __global__ void load(const float* x, float* out, int stride) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = x[i * stride];
}
extern "C" __global__ void branchy(float* out, int iters) {
  float v = threadIdx.x;
  if (threadIdx.x & 1) {
#pragma unroll 1
    for (int i = 0; i < iters; ++i) v = v * 1.0001f + 0.5f;
  } else {
#pragma unroll 1
    for (int i = 0; i < 2 * iters; ++i) v = v * 0.9999f - 0.25f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
]], name = "ncu_check.cu"})
local spill = assert(cuda.compile{file = "memory/spill.cu", defines = {WL_LIVE = 96}, max_registers = 32})
local store, load = m:kernel("store", "int*, int"), m:kernel("load", "const float*, float*, int")
local branchy = m:kernel("branchy", "float*, int")
local out <close> = cuda.array("f32", 2048)
local x <close> = cuda.array("f32", 2048 * 4):fill(1)
local sink <close> = cuda.array("i32", 32)
local function launches()
  store:launch(1, 32, sink, 32)
  store:launch(1, 32, sink, 1)
  load:launch(8, 256, x, out, 4)
  branchy:launch(2, 64, out, 64)
  spill.live_values:launch(4, 128, x, out, 10)
end
if p.ncu then -- under ncu: the launches alone (two CUPTI clients cannot profile one process)
  launches()
  cuda.synchronize()
  return
end
local names = {}
for n in p.metrics:gmatch("[^,]+") do names[#names + 1] = n end
local rows = cuda.counters(launches, names)
assert(#rows == 5, "counted " .. #rows .. " launches")
for i, r in ipairs(rows) do
  for _, n in ipairs(names) do print(string.format("WL,%d,%s,%s,%.17g", i - 1, r.kernel, n, r[n])) end
end
LUA

"$W" run "$T/x.lua" -p metrics="$METRICS" >"$T/wl.out" 2>"$T/wl.err" ||
  { echo "FAIL: warplab's counters: exit $?"; cat "$T/wl.out" "$T/wl.err"; exit 1; }
grep '^WL,' "$T/wl.out" | cut -d, -f2,4,5 >"$T/wl.csv"
timeout 300 "$NCU" --csv --print-units base --launch-count 5 --metrics "$METRICS" \
  "$W" run "$T/x.lua" -p ncu=true >"$T/ncu.out" 2>"$T/ncu.err"
rc=$?
# ncu's rows: "ID","Process ID",...,"Kernel Name",...,"Metric Name","Metric Unit","Metric Value";
# fields joined by "," (values may hold thousands separators: removed).
grep '^"' "$T/ncu.out" | awk -F'","' '
  NR == 1 { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); col[$i] = i }; next }
  { for (i = 1; i <= NF; i++) gsub(/"/, "", $i)
    v = $col["Metric Value"]; gsub(/,/, "", v)
    print $col["ID"] "," $col["Metric Name"] "," v }' >"$T/ncu.csv"
if [ $rc -ne 0 ] || [ ! -s "$T/ncu.csv" ]; then
  echo "FAIL: ncu exit $rc, $(wc -l <"$T/ncu.csv") metric rows"
  tail -n 20 "$T/ncu.out" "$T/ncu.err"
  exit 1
fi

# Side by side; a count must be equal, a rate within 2 % (of the larger).
awk -F, -v OFS=, '
  NR == FNR { wl[$1 "," $2] = $3; next }
  { key = $1 "," $2; n++
    if (!(key in wl)) { printf "%-3s %-62s %18s %18s  MISSING\n", $1, $2, "-", $3; bad++; next }
    a = wl[key] + 0; b = $3 + 0
    d = a - b; if (d < 0) d = -d
    m = (a < 0 ? -a : a); if ((b < 0 ? -b : b) > m) m = (b < 0 ? -b : b)
    ok = ($2 ~ /\.sum$/) ? (d == 0) : (d <= 0.02 * m)
    printf "%-3s %-62s %18.6g %18.6g  %s\n", $1, $2, a, b, ok ? "ok" : "DIFFERS"
    if (!ok) bad++ }
  END { printf "%d values compared, %d differ or are missing\n", n, bad; exit (bad > 0 || n < 40) }
' "$T/wl.csv" "$T/ncu.csv" | { printf "%-3s %-62s %18s %18s\n" launch metric warplab ncu; cat; }
st=${PIPESTATUS[0]}
[ "$st" -eq 0 ] || { echo "FAIL: warplab's counters and ncu's differ (above)"; exit 1; }
# The physics, once more, from warplab's own column.
want() { grep -qxF "$1" "$T/wl.csv" || { echo "FAIL: warplab: want $1"; exit 1; }; }
want "0,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,31"
want "1,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,0"
echo "counters_ncu_gpu.sh: warplab and ncu agree"
