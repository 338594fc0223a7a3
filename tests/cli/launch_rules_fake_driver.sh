#!/usr/bin/env bash
# launch_rules_fake_driver.sh: the launch rules a kernel's code carries, on the live path
# with no GPU, through the stand-in driver (bench/fake_driver.cpp: an H100, compute
# capability 9.0): a compile-time cluster (__cluster_dims__) checked offline and live in
# one sentence each (a grid it does not divide, a conflicting cluster =, the cluster
# launched without cluster =), __cluster_dims__() without a size, .maxclusterrank, a
# 16-block cluster with the non-portable opt-in made (the stand-in refuses it otherwise)
# and 32 refused with the figure; a module built for another architecture (sm_120, sm_75,
# sm_90a on this 9.0 device is fine) refused by k:check, k:occupancy and the launch, never
# loaded. No raw driver error (CUDA_ERROR_*) reaches the script.
# Usage: bash launch_rules_fake_driver.sh <warplab binary> <source root>
set -u
W="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; SRC="$2"
LIB="$(dirname "$W")/fake_driver"
[ -f "$LIB/libcuda.so.1" ] || { echo "skipped: no $LIB/libcuda.so.1 (target warplab_fake_driver)"; exit 77; }
WARPLAB_CACHE_DIR="$(mktemp -d)"
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" WARPLAB_CACHE_DIR NO_COLOR=1
T="$(mktemp -d)"; trap 'rm -rf "$T" "$WARPLAB_CACHE_DIR"' EXIT
unset WARPLAB_NO_DRIVER
cd "$SRC" || exit 1

cat >"$T/rules.lua" <<'LUA'
local t = require "warplab.test"
assert(cuda.device().live and tostring(cuda.device()):find("fake driver", 1, true), "not the fake driver")
local m = assert(cuda.compile{source = [[
extern "C" __global__ void __cluster_dims__(2, 1, 1) two(int* p) { p[0] = 1; }
extern "C" __global__ void __cluster_dims__() any(int* p) { p[0] = 1; }
extern "C" __global__ void __launch_bounds__(128, 1, 4) capped(int* p) { p[0] = 1; }
extern "C" __global__ void plain(int* p) { p[0] = 1; }
]]})
local a = cuda.array("i32", 64)
local function sig(k) return m:kernel(k, "int*") end
local two, any, capped, plain = sig("two"), sig("any"), sig("capped"), sig("plain")
local function refused(want, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected a refusal: " .. want)
  assert(err:find(want, 1, true), "got: " .. err)
  assert(not err:find("CUDA_ERROR", 1, true), "a raw driver error: " .. err)
end

t.case("a compile-time cluster: the grid, a conflicting cluster =, the same one", function()
  local ok, why = two:check{grid = 9, block = 32}
  t.eq(ok, false)
  t.eq(why, "grid dimension x = 9 is not a multiple of compile-time cluster dimension x = 2")
  refused("grid dimension x = 9 is not a multiple of compile-time cluster dimension x = 2",
          two.launch, two, 9, 32, a)
  ok, why = two:check{grid = 8, block = 32, cluster = 4}
  t.eq(why, "cluster 4x1x1 conflicts with the kernel's compile-time cluster 2x1x1 (__cluster_dims__): "
            .. "leave cluster out, or give 2x1x1")
  refused("conflicts with the kernel's compile-time cluster", two, {grid = 8, block = 32, cluster = 4, args = {a}})
  local n, no = two:clusters{grid = 8, block = 32, cluster = 4}
  t.eq(n, nil)
  assert(no:find("conflicts with the kernel's compile-time cluster", 1, true), no)
  t.eq(two:check{grid = 8, block = 32}, true)
  t.eq(two:check{grid = 8, block = 32, cluster = 2}, true)
  two:launch(8, 32, a)
  two{grid = 8, block = 32, cluster = {2, 1, 1}, args = {a}}
  t.eq(two:clusters{grid = 8, block = 32}, 16, "the compile-time cluster when cluster = is left out")
end)

t.case("__cluster_dims__() runs only in clusters; .maxclusterrank caps them", function()
  local ok, why = any:check{grid = 8, block = 32}
  t.eq(ok, false)
  t.eq(why, "the kernel is declared __cluster_dims__() without a size, so it runs only in clusters: "
            .. "give cluster = {x, y, z}")
  any{grid = 8, block = 32, cluster = 4, args = {a}}
  ok, why = capped:check{grid = 8, block = 32, cluster = 8}
  t.eq(why, "cluster 8x1x1 = 8 blocks exceeds the kernel's own maximum of 4 blocks per cluster "
            .. "(the third value of its __launch_bounds__)")
  capped{grid = 8, block = 32, cluster = 4, args = {a}}
end)

t.case("clusters above 8 blocks: the non-portable opt-in, then the driver's figure", function()
  t.eq(plain:check{grid = 16, block = 32, cluster = 16}, true)
  plain{grid = 32, block = 32, cluster = 16, args = {a}}          -- the stand-in refuses it without the opt-in
  t.eq(plain:clusters{grid = 16, block = 32, cluster = 16}, 16)
  local ok, why = plain:check{grid = 32, block = 32, cluster = 32}
  t.eq(ok, false)
  t.eq(why, "cluster 32x1x1 = 32 blocks exceeds 16, the largest cluster this device forms for this kernel "
            .. "with blocks of 32x1x1 threads and 0 bytes dynamic shared (cuOccupancyMaxPotentialClusterSize, "
            .. "with the non-portable opt-in)")
  refused("32 blocks exceeds 16", plain, {grid = 32, block = 32, cluster = 32, args = {a}})
end)

t.case("code for another architecture: refused by check, occupancy and launch", function()
  for _, arch in ipairs{"sm_120", "sm_75"} do
    local other = assert(cuda.compile{source = "__global__ void k(int* p) { p[0] = 1; }", arch = arch})
    local want = "the kernel was compiled for " .. arch .. ", and its code cannot run on this device of "
                 .. "compute capability 9.0"
    local ok, why = other.k:check{grid = 1, block = 32}
    t.eq(ok, false)
    assert(why:find(want, 1, true), why)
    assert(why:find("compile for sm_90", 1, true), why)
    refused(want, other.k.occupancy, other.k, 32)
    refused(want, other.k.launch, other.k, 1, 32, a)
    refused(want, other.k, {grid = 1, block = 32, args = {a}})
    refused(want, other.k.bench, other.k, {grid = 1, block = 32, args = {a}})
    t.eq(other.k.arch, arch)
  end
  local a90 = assert(cuda.compile{source = "__global__ void k(int* p) { p[0] = 1; }", arch = "sm_90a"})
  t.eq(a90.k:check{grid = 1, block = 32}, true)
  a90.k:launch(1, 32, a)
end)
t.run{exit = true}
LUA
"$W" run "$T/rules.lua" >"$T/out" 2>&1; rc=$?
cat "$T/out"
[ $rc -eq 0 ] || { echo "FAIL: rules.lua exit $rc"; exit 1; }

# The same refusals with the checks off (--no-check is not an option: opts.check is the
# default); offline on the h100 profile, the same sentences as live.
cat >"$T/offline.lua" <<'LUA'
local m = assert(cuda.compile{source = "extern \"C\" __global__ void __cluster_dims__(2, 1, 1) two(int* p) {}"})
local two = m:kernel("two", "int*")
local ok, why = two:check{grid = 9, block = 32}
assert(not ok and why == "grid dimension x = 9 is not a multiple of compile-time cluster dimension x = 2", why)
local other = assert(cuda.compile{source = "__global__ void k(int* p) {}", arch = "sm_120"})
ok, why = other.k:check{grid = 1, block = 32}
assert(not ok and why:find("compiled for sm_120, and its code cannot run on this device of compute capability 9.0", 1, true), why)
local o, err = pcall(other.k.occupancy, other.k, 32)
assert(not o and err:find("occupancy: the kernel was compiled for sm_120", 1, true), err)
print("offline ok")
LUA
WARPLAB_NO_DRIVER=1 "$W" --profile h100 run "$T/offline.lua" >"$T/out" 2>&1 || { cat "$T/out"; echo "FAIL: offline"; exit 1; }
grep -q "offline ok" "$T/out" || { cat "$T/out"; echo "FAIL: offline"; exit 1; }
echo "launch rules: ok"
