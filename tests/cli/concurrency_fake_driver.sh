#!/usr/bin/env bash
# concurrency_fake_driver.sh: warplab's live paths for streams, events, copies on streams,
# CUDA graphs and managed memory with no GPU, through the stand-in driver
# build/fake_driver/libcuda.so.1 (bench/fake_driver.cpp, fake_graph.cpp: it records
# captures and replays them, but runs no kernel): tests/lua/api_concurrency.lua and
# api_tensor_map.lua pass whole, and each examples/concurrency script runs to its checks' summary without a Lua
# error (its measurements mean nothing here, so its checks may fail: exit 0 or 1); a fault
# names the stream of its launch, and a graph's replay where it was captured and launched.
# Usage: bash concurrency_fake_driver.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; SRC="$2"
LIB="$(dirname "$W")/fake_driver"
[ -f "$LIB/libcuda.so.1" ] || { echo "skipped: no $LIB/libcuda.so.1 (target warplab_fake_driver)"; exit 77; }
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" WARPLAB_CACHE_DIR="$T/cache" NO_COLOR=1
export WARPLAB_LUA_DIR="$SRC/lua"
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
cd "$SRC" || exit 1
fail() { echo "FAIL: $*"; sed 's/^/    /' "$T/out" | tail -n 30; exit 1; }

"$W" -q run tests/lua/api_concurrency.lua >"$T/out" 2>&1 || fail "api_concurrency.lua exited $?"
tail -n 1 "$T/out" | grep -Eq '^[0-9]+ passed, 0 failed$' || fail "api_concurrency.lua"
[ "$(tail -n 1 "$T/out" | cut -d' ' -f1)" -ge 8 ] || fail "api_concurrency.lua ran fewer than its 8 live cases"
# Tensor maps: encoded by the stand-in, kept by a captured launch (api_tensor_map.lua).
"$W" -q run tests/lua/api_tensor_map.lua >"$T/out" 2>&1 || fail "api_tensor_map.lua exited $?"
tail -n 1 "$T/out" | grep -Eq '^2 passed, 0 failed$' || fail "api_tensor_map.lua"

# A fault names the stream of its launch, and a graph's replay by where it was captured
# and launched ("fake_fault" kernels leave a sticky error in the stand-in).
cat >"$T/fault.lua" <<'LUA'
local m = assert(cuda.compile{source = "__global__ void fake_fault(int n) {}\n"})
local s1, s2 = cuda.stream{non_blocking = true}, cuda.stream()
m.fake_fault{grid = 1, block = 1, stream = s2, args = {1}}
print(pcall(cuda.synchronize))
LUA
(cd "$T" && "$W" -q run fault.lua >"$T/out" 2>&1)
grep -q "kernel 'fake_fault' launched at fault.lua:3 on stream 2 faulted: CUDA_ERROR_ILLEGAL_ADDRESS" "$T/out" ||
  fail "the fault note does not name the stream"
cat >"$T/graph_fault.lua" <<'LUA'
local m = assert(cuda.compile{source = "__global__ void fake_fault(int n) {}\n"})
local g = cuda.graph(function() m.fake_fault:launch(1, 1, 1) end)
g:launch()
print(pcall(cuda.synchronize))
LUA
(cd "$T" && "$W" -q run graph_fault.lua >"$T/out" 2>&1)
grep -q "the graph of cuda.graph at graph_fault.lua:2 (1 node) launched at graph_fault.lua:3 faulted" "$T/out" ||
  fail "the fault note does not name the graph"

for args in "overlap.lua -p mib=8 -p reps=1" "graphs.lua -p trials=1" "stream_order.lua -p runs=3 -p spin_us=1" \
            "managed.lua -p mib=4"; do
  set -- $args
  name="${1%.lua}"
  "$W" -q run "examples/concurrency/$@" >"$T/out" 2>&1; rc=$?
  [ $rc -le 1 ] || fail "$name: exit $rc"
  grep -qE "stack traceback|^warplab: |internal error" "$T/out" && fail "$name: an error, not a check"
  tail -n 1 "$T/out" | grep -Eq "^$name: [0-9]+ passed, [0-9]+ failed$" || fail "$name: no checks' summary at the end"
done
echo "concurrency_fake_driver: ok"
