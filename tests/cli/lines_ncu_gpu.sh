#!/usr/bin/env bash
# lines_ncu_gpu.sh (GPU): warplab's per-line numbers against Nsight Compute's source page on
# the same launch (a stride-32 shared load, 528 blocks of 256 threads). warplab: `run
# --lines --json` (exact counts) and `run --lines=stalls --json` (samples); ncu: `--section
# SourceCounters --page source --csv --print-source sass`, twice. ncu's per-instruction rows
# are summed per source line through the SASS offsets warplab's rows list. The counted
# columns (warp and thread instructions, predicated-on thread instructions, shared
# wavefronts and their ideal, global sectors and their ideal) must be equal on every line;
# each line's share of the stall samples must be within max(2 x the spread of the two ncu
# runs, 0.02) of ncu's mean; the spread is printed. ncu's header and both columns are
# printed, always. Under ncu, cuda.counters_available() and cuda.lines_available() answer
# false naming the other tool, and run --lines says so in one sentence. Exit 77 without a
# GPU or without ncu.
# Usage: bash lines_ncu_gpu.sh <warplab binary> <source root>
set -u
W=$(realpath "$1") ROOT=$(realpath "$2")
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
export NO_COLOR=1 XDG_STATE_HOME=$T/state WARPLAB_LUA_DIR=$ROOT/lua
cd "$T" || exit 1
echo 'io.write(tostring(cuda.device().live))' >probe.lua
[ "$("$W" run probe.lua 2>/dev/null)" = true ] || { echo "skipped: no CUDA device"; exit 77; }
NCU=$(command -v ncu || true)
for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  [ -z "$NCU" ] && [ -n "$d" ] && [ -x "$d/bin/ncu" ] && NCU=$d/bin/ncu
done
[ -n "$NCU" ] || { echo "skipped: no ncu (Nsight Compute) on PATH or in /usr/local/cuda/bin"; exit 77; }
echo "ncu: $NCU ($("$NCU" --version 2>/dev/null | tail -n 1))"

cat >x.lua <<'LUA'
local m = assert(cuda.compile{name = "x.cu", lineinfo = true, kernels = {"stride<32>"}, source = [[
template <int S>
__global__ void stride(float* out, int reps) {
  __shared__ float s[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = (float)i;
  __syncthreads();
  float acc = 0.f;
  for (int r = 0; r < reps; ++r)
    acc += s[(threadIdx.x * S + r) & (32 * 32 - 1)];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}]]})
local out = cuda.array("f32", 132 * 4 * 256)
m["stride<32>"]:launch(132 * 4, 256, out, 256)
cuda.synchronize()
LUA

"$W" run --lines --json wl.json x.lua >wl.out 2>wl.err || { echo "FAIL: warplab --lines: exit $?"; cat wl.out wl.err; exit 1; }
"$W" run --lines=stalls --json wls.json x.lua >wls.out 2>wls.err ||
  { echo "FAIL: warplab --lines=stalls: exit $?"; cat wls.out wls.err; exit 1; }
for i in 1 2; do
  timeout 240 "$NCU" --section SourceCounters --page source --csv --print-source sass --launch-count 1 \
    "$W" run x.lua >"ncu$i.csv" 2>"ncu$i.err"
  rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: ncu run $i: exit $rc"; tail -n 30 "ncu$i.csv" "ncu$i.err"; exit 1; }
done

# Under Nsight Compute: the script's own counters and lines are not available (one sentence
# each, the script goes on), and run --lines is exit 6 with one sentence.
cat >probe2.lua <<'LUA'
print("counters:", cuda.counters_available())
print("lines:", cuda.lines_available())
LUA
timeout 120 "$NCU" "$W" run probe2.lua >ncu_probe.out 2>&1
grep -E '^(counters|lines):' ncu_probe.out
grep -qE '^counters:.false.*another NVIDIA tool' ncu_probe.out && grep -qE '^lines:.false.*another NVIDIA tool' ncu_probe.out ||
  { echo "FAIL: under ncu: counters_available / lines_available do not say another tool is attached"; cat ncu_probe.out; exit 1; }
timeout 120 "$NCU" "$W" run --lines x.lua >ncu_lines.out 2>&1
rc=$(grep -c "another NVIDIA tool" ncu_lines.out)
echo "run --lines under ncu: $(grep -m1 'warplab' ncu_lines.out)"
[ "$rc" -ge 1 ] || { echo "FAIL: run --lines under ncu: no sentence naming the other tool"; cat ncu_lines.out; exit 1; }

python3 - wl.json wls.json ncu1.csv ncu2.csv <<'PY'
import csv, json, re, sys
wl, wls = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))

def read_ncu(path):
    rows = [r for r in csv.reader(open(path, errors="replace")) if r]
    for i, r in enumerate(rows):
        if any(re.search(r"address", c, re.I) for c in r):
            head, data = r, rows[i + 1:]
            break
    else:
        sys.exit("FAIL: no header with an address in " + path + ":\n" + open(path, errors="replace").read()[:3000])
    def col(name, exclude=()):
        for j, h in enumerate(head):
            if h.strip().lower() == name.lower():
                return j
        for j, h in enumerate(head):
            if name.lower() in h.lower() and not any(e.lower() in h.lower() for e in exclude):
                return j
        return None
    cols = {
        "address": col("Address"),
        "inst": col("Instructions Executed", ("thread", "predicated")),
        "thread_inst": col("Thread Instructions Executed", ("predicated",)),
        "thread_inst_pred_on": col("Predicated-On Thread Instructions Executed"),
        "shared_wavefronts": col("L1 Wavefronts Shared", ("ideal", "excessive")),
        "shared_ideal": col("L1 Wavefronts Shared Ideal"),
        "global_sectors": col("L2 Theoretical Sectors Global", ("ideal", "excessive")),
        "global_ideal": col("L2 Theoretical Sectors Global Ideal"),
        "samples": col("Warp Stall Sampling (All Samples)"),
    }
    out = []
    for r in data:
        if len(r) != len(head):
            continue
        try:
            a = int(r[cols["address"]].strip(), 16)
        except ValueError:
            continue
        v = {}
        for k, j in cols.items():
            if k != "address" and j is not None:
                s = r[j].replace(",", "").strip()
                try:
                    v[k] = float(s) if s not in ("", "-") else 0.0
                except ValueError:
                    v[k] = 0.0
        out.append((a, v))
    return head, cols, out

head, cols, n1 = read_ncu(sys.argv[3])
_, _, n2 = read_ncu(sys.argv[4])
print("ncu's columns: " + " | ".join(head))
print("matched: " + ", ".join("%s=%s" % (k, head[j] if j is not None else "-") for k, j in cols.items()))
if not n1:
    sys.exit("FAIL: no instruction rows in ncu's CSV")

def by_line(report):
    m = {}
    for r in report["rows"]:
        if r["kernel"] == "stride<32>":
            for o in r["offsets"]:
                m[o] = r["line"]
    return m
lines_of = by_line(wl)
def per_line(rows):
    base = min(a for a, _ in rows)
    acc = {}
    for a, v in rows:
        line = lines_of.get(a - base, lines_of.get(a, -1))
        d = acc.setdefault(line, {})
        for k, x in v.items():
            d[k] = d.get(k, 0.0) + x
    return acc
p1, p2 = per_line(n1), per_line(n2)
if -1 in p1:
    print("note: %d ncu rows at addresses warplab's map does not list" % len(p1[-1]))
bad = 0
counted = ["inst", "thread_inst", "thread_inst_pred_on", "shared_wavefronts", "shared_ideal", "global_sectors", "global_ideal"]
wrow = {r["line"]: r for r in wl["rows"] if r["kernel"] == "stride<32>"}
print("%-5s %-20s %16s %16s" % ("line", "column", "warplab", "ncu"))
compared = 0
for line in sorted(k for k in p1 if k >= 0):
    for c in counted:
        if cols[c] is None:
            continue
        a = wrow.get(line, {}).get(c) or 0.0
        b = p1[line].get(c, 0.0)
        ok = a == b
        compared += 1
        bad += not ok
        if a or b:
            print("%-5d %-20s %16.0f %16.0f  %s" % (line, c, a, b, "ok" if ok else "DIFFERS"))
missing = [c for c in counted if cols[c] is None]
if missing:
    print("note: ncu's page has no column for " + ", ".join(missing))
if cols["samples"] is not None:
    t1 = sum(v.get("samples", 0) for v in p1.values()) or 1
    t2 = sum(v.get("samples", 0) for v in p2.values()) or 1
    srow = {r["line"]: r for r in wls["rows"] if r["kernel"] == "stride<32>"}
    spread = max(abs(p1[l].get("samples", 0) / t1 - p2.get(l, {}).get("samples", 0) / t2) for l in p1)
    tol = max(2 * spread, 0.02)
    print("stall shares: the two ncu runs differ by up to %.4f per line; allowed %.4f" % (spread, tol))
    for line in sorted(k for k in p1 if k >= 0):
        mean = (p1[line].get("samples", 0) / t1 + p2.get(line, {}).get("samples", 0) / t2) / 2
        mine = (srow.get(line, {}).get("share") or 0.0)
        ok = abs(mine - mean) <= tol
        bad += not ok
        if mine or mean:
            print("%-5d %-20s %16.4f %16.4f  %s" % (line, "stall share", mine, mean, "ok" if ok else "DIFFERS"))
else:
    print("note: ncu's page has no stall sampling column")
print("%d values compared, %d differ" % (compared, bad))
sys.exit(1 if bad or compared == 0 else 0)
PY
st=$?
[ $st -eq 0 ] || { echo "FAIL: warplab's per-line numbers and ncu's differ (above)"; exit 1; }
echo "lines_ncu_gpu.sh: warplab and ncu agree"
