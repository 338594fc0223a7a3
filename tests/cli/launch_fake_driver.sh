#!/usr/bin/env bash
# launch_fake_driver.sh: warplab's live launch path with no GPU, through the stand-in
# driver bench/fake_driver.cpp (build/fake_driver/libcuda.so.1, which runs nothing):
# both launch forms with 0, 2, 4 and many arguments, launch tables with a metatable and
# with nil holes, k:bench/k:check/k:clusters on launch tables, timing tables from
# warplab.stats.summary, every argument and configuration error a live launch raises,
# device indices past an int, and the fault note: a sticky fault names the
# kernel and the file:line that launched it, from two chunks in turn (the chunk name is
# cached per calling function) and through pcall.
# Usage: bash launch_fake_driver.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; SRC="$2"
LIB="$(dirname "$W")/fake_driver"
[ -f "$LIB/libcuda.so.1" ] || { echo "skipped: no $LIB/libcuda.so.1 (target warplab_fake_driver)"; exit 77; }
WARPLAB_CACHE_DIR="$(mktemp -d)"
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" WARPLAB_CACHE_DIR NO_COLOR=1
T="$(mktemp -d)"; trap 'rm -rf "$T" "$WARPLAB_CACHE_DIR"' EXIT
unset WARPLAB_NO_DRIVER
cd "$SRC" || exit 1

cat >"$T/forms.lua" <<'LUA'
local t = require "warplab.test"
assert(cuda.device().live and tostring(cuda.device()):find("fake driver", 1, true), "not the fake driver")
local m = assert(cuda.compile{source = [[
__global__ void k0() {}
__global__ void k2(int* p, int n) {}
__global__ void k4(float* p, int n, float a, int b) {}
__global__ void many(signed char a, unsigned short b, long long c, unsigned long long d, double e,
                     bool f, const float* g, void* h) {}
]]})
local x, y = cuda.array("f32", 32), cuda.array("i32", 32)
t.case("both forms, 0 to 8 arguments", function()
  for _ = 1, 3 do
    m.k0:launch(1, 32); m.k0{grid = 1, block = 32}; m.k0{grid = {1, 1}, block = {32, 1, 1}, args = {}}
    m.k2:launch(1, 32, y, 32); m.k2{grid = 1, block = 32, args = {y, 32}}
    m.k4:launch({2, 2}, 32, x, 32, 2.0, 7); m.k4{grid = 1, block = 32, args = {x, 32, 2.0, 7}}
    m.many:launch(1, 1, -128, 65535, math.mininteger, math.maxinteger, 0.5, true, x, y)
  end
  local fields = setmetatable({}, {__index = {grid = 1, block = 32, args = table.pack(nil, 3)}})
  m.k2(fields)                                                -- fields from __index, a nil hole
  m.k2{grid = 1, block = 32, args = table.pack(nil, 3), unknown_field = true}
  local shared = m.k0{grid = 1, block = 32, shared = 1024, stream = cuda.stream(), cooperative = false}
  assert(shared == nil)
  cuda.synchronize()
end)
t.case("k:bench, k:check, k:clusters read the same launch tables", function()
  local st = m.k4:bench{grid = {2, 1}, block = 32, args = {x, 32, 2.0, 7}, warmup = 1, reps = 3}
  t.eq(st.n, 3)
  t.eq(m.k2:check{grid = 1, block = 32}, true)
  t.eq(select(2, m.k2:check{grid = 1, block = 4096}), "block dimension x = 4096 exceeds max_block_dim_x = 1024")
  t.eq(m.k0:clusters{grid = 4, block = 32, cluster = 2}, 16)
  t.checkerror("argument 2 (int) of k4: expected an integer, got 2.5", m.k4.bench, m.k4,
               {grid = 1, block = 32, args = {x, 2.5, 2.0, 7}})
end)
t.case("a device index is never cut to an int (2^32 was device 0)", function()
  t.checkerror("device 4294967296 does not exist: a device index is 0, 1, ...", cuda.device, 2 ^ 32)
  t.checkerror("device -4294967296 does not exist", cuda.device, -4294967296)
  t.checkerror("device 9223372036854775807 does not exist", cuda.device, math.maxinteger)
  t.checkerror("device 1 does not exist: 1 CUDA device is present", cuda.device, 1)
end)
t.case("timing tables are warplab.stats.summary of their samples", function()
  local stats = require "warplab.stats"
  for _, st in ipairs({cuda.bench(function() m.k0:launch(1, 32) end, {reps = 7}),
                       m.k2:bench{grid = 1, block = 32, args = {y, 32}, reps = 4}}) do
    local want = stats.summary(st.samples)
    t.eq({st.n, st.median, st.min, st.max, st.mean, st.stdev},
         {want.n, want.median, want.min, want.max, want.mean, want.stdev})
  end
  t.eq(#cuda.bench(function() end, {reps = 3}).samples, 3)
  package.loaded["warplab.stats"] = nil                  -- required again on demand
  t.eq(cuda.bench(function() end, {reps = 2}).n, 2)
  package.loaded["warplab.stats"] = 5
  t.checkerror('package.loaded["warplab.stats"] was replaced', cuda.bench, function() end, {reps = 2})
  package.loaded["warplab.stats"] = nil
end)

t.case("argument errors", function()
  local k = m.k4
  t.checkerror("argument 1 (float*) of k4: an i32 array cannot be passed as float*", k.launch, k, 1, 4, y, 0, 1, 2)
  t.checkerror("argument 2 (int) of k4: expected an integer, got 3.5", k.launch, k, 1, 4, x, 3.5, 1, 2)
  t.checkerror("argument 2 (int) of k4: 1099511627776 is out of range (32-bit signed: -2147483648..2147483647)",
               k.launch, k, 1, 4, x, 2^40, 1, 2)
  t.checkerror("argument 3 (float) of k4: expected a number, got table", k.launch, k, 1, 4, x, 1, {}, 2)
  t.checkerror("argument 1 (float*) of k4: expected a cuda.array (or nil for a null pointer), got number",
               k.launch, k, 1, 4, 5, 1, 1, 2)
  t.checkerror("argument 1 (float*) of k4: a cuda.host_array is host memory", k.launch, k, 1, 4,
               cuda.host_array("f32", 4, {pinned = false}), 1, 1, 2)
  t.checkerror("k4 expects 4 arguments (k4(float*, int, float, int)), got 3", k.launch, k, 1, 4, x, 1, 1)
  t.checkerror("k4 expects 4 arguments (k4(float*, int, float, int)), got 5", k, {grid = 1, block = 4, args = {x, 1, 1, 2, 3}})
  t.checkerror("argument 2 (unsigned short) of many: 65536 is out of range (16-bit unsigned: 0..65535)",
               m.many.launch, m.many, 1, 1, 0, 65536, 0, 0, 0, true, x, y)
  t.checkerror("argument 4 (unsigned long long) of many: -1 is out of range (64-bit unsigned: 0..18446744073709551615)",
               m.many.launch, m.many, 1, 1, 0, 0, 0, -1, 0, true, x, y)
  t.checkerror("argument 6 (bool) of many: expected a boolean, got number", m.many.launch, m.many, 1, 1, 0, 0, 0, 0, 0, 1, x, y)
  local gone = cuda.array("f32", 4)
  gone:free()
  t.checkerror("argument 1 (float*) of k4: attempt to use a freed array", k.launch, k, 1, 4, gone, 1, 1, 2)
end)
t.case("configuration errors", function()
  local k = m.k0
  t.checkerror("k0: block 32x64x1 = 2048 threads exceeds max_threads_per_block = 1024", k.launch, k, 1, {32, 64})
  t.checkerror("k0: grid 0x1x1 has a zero dimension", k.launch, k, 0, 32)
  t.checkerror("grid must be an integer >= 0 or a list of 1 to 3 of them (got -1)", k.launch, k, -1, 32)
  t.checkerror("block must have 1 to 3 dimensions, got 4", k.launch, k, 1, {1, 1, 1, 1})
  t.checkerror("launch table needs grid =", k, {block = 32})
  t.checkerror("launch table needs block =", k, {grid = 1})
  t.checkerror("shared must be a byte count >= 0, got -4", k, {grid = 1, block = 32, shared = -4})
  t.checkerror("args must be a list", k, {grid = 1, block = 32, args = 3})
  t.checkerror("stream must be a cuda.stream() or nil, got number", k, {grid = 1, block = 32, stream = 1})
  t.checkerror("warplab.kernel expected, got table", k.launch, {}, 1, 1)
  t.checkerror("warplab.kernel expected, got warplab.array", k.launch, x, 1, 1)
end)
t.run()
LUA
"$W" -q run "$T/forms.lua" >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] || { echo "FAIL: forms.lua exited $rc"; cat "$T/out"; exit 1; }
grep -q "^6 passed, 0 failed$" "$T/out" || { echo "FAIL: forms.lua"; cat "$T/out"; exit 1; }

# The fault note: launches from two chunks, the faulting one last; the error names it
# and its line, and the earlier launch with its own chunk's name.
cat >"$T/other.lua" <<'LUA'
return function(k, y)
  k:launch(1, 32, y, 32)   -- other.lua line 2
end
LUA
cat >"$T/fault.lua" <<'LUA'
local m = assert(cuda.compile{source = "__global__ void k2(int* p, int n) {}\n__global__ void fake_fault(int n) {}\n"})
local other = dofile("other.lua")
local y = cuda.array("i32", 32)
for _ = 1, 3 do m.k2{grid = 1, block = 32, args = {y, 32}} end
other(m.k2, y)
m.fake_fault:launch(1, 1, 7)   -- fault.lua line 6
print(pcall(cuda.synchronize))
LUA
(cd "$T" && "$W" -q run fault.lua >"$T/out" 2>&1)
grep -q "kernel 'fake_fault' launched at fault.lua:6 faulted: CUDA_ERROR_ILLEGAL_ADDRESS" "$T/out" ||
  { echo "FAIL: fault note of the faulting launch"; cat "$T/out"; exit 1; }
grep -q "earlier: k2@other.lua:2 k2@fault.lua:4 k2@fault.lua:4" "$T/out" ||
  { echo "FAIL: fault note of the earlier launches"; cat "$T/out"; exit 1; }

# Launched through pcall (a C caller): no script line, "?".
cat >"$T/pcall.lua" <<'LUA'
local m = assert(cuda.compile{source = "__global__ void fake_fault(int n) {}\n"})
assert(pcall(m.fake_fault.launch, m.fake_fault, 1, 1, 7))
print(pcall(cuda.synchronize))
LUA
(cd "$T" && "$W" -q run pcall.lua >"$T/out" 2>&1)
grep -q "kernel 'fake_fault' launched at ? faulted" "$T/out" || { echo "FAIL: fault note through pcall"; cat "$T/out"; exit 1; }
echo "launch_fake_driver: all passed"
