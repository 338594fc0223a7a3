#!/usr/bin/env bash
# watch_gpu.sh: hot reload on a real GPU: `warplab watch` runs a script that compiles a
# kernel file and launches it; editing only the .cu file re-runs the script, and the new
# kernel's result shows. Prints the save-to-rerun latency the watcher measured.
# Skips (77) without a GPU.
set -u
W="$1"
T="$(mktemp -d)"
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }
wait_for() {  # FILE REGEX: poll for up to 20 s (the first compile and context take a while)
  for _ in $(seq 400); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no '$2' in $(basename "$1") after 20 s"
}
echo 'print(cuda.device().live)' > "$T/probe.lua"
[ "$("$W" -q run "$T/probe.lua" 2>/dev/null)" = "true" ] || { echo "skip: no GPU"; exit 77; }

cd "$T"
printf '__global__ void fill(int* out) { out[threadIdx.x] = 1; }\n' > k.cu
cat > s.lua <<'LUA'
local m = assert(cuda.compile("k.cu"))
local a = cuda.array("i32", 32)
m.fill:launch(1, 32, a)
print("value " .. a[32])
LUA
"$W" watch s.lua >"$T/out" 2>"$T/err" &
WPID=$!
wait_for "$T/out" '^value 1$'
wait_for "$T/err" 'run 1 ok'
sleep 0.3
printf '__global__ void fill(int* out) { out[threadIdx.x] = 2; }\n' > k.cu   # edit the kernel only
wait_for "$T/out" '^value 2$'
wait_for "$T/err" 'run 2 ok'
line=$(grep -Eo 're-run [0-9]+ ms after save \(k\.cu\)' "$T/err" | head -n 1)
[ -n "$line" ] || fail "the re-run names k.cu"
echo "kernel edit -> $line"
kill -INT $WPID
for _ in $(seq 100); do kill -0 $WPID 2>/dev/null || break; sleep 0.05; done
kill -0 $WPID 2>/dev/null && fail "watch did not leave on Ctrl-C"
WPID=""
echo "watch_gpu: ok"
