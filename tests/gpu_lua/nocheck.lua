-- nocheck.lua (GPU, run with --no-check): without warplab's checks the same launches
-- reach the driver, which refuses them in its own words (so the limits limits.lua
-- enforces are the driver's), integer ranges are not checked (the low bits are passed),
-- and the context stays usable. CTest passes the run-with line.
-- run-with: --no-check nocheck
local t = require "warplab.test"

local dev = cuda.device()
assert(dev.live, "needs a GPU")
assert(arg[1] == "nocheck", "run this file with --no-check nocheck (CTest (cmake/tests.cmake) does)")

local m = assert(cuda.compile{source = [[
__global__ void count(unsigned long long* c) { atomicAdd(c, 1ull); }
__global__ void __launch_bounds__(128) bounded(unsigned long long* c) { atomicAdd(c, 1ull); }
__global__ void store(int* out, int v) { out[0] = v; }
extern __shared__ unsigned char smem[];
__global__ void dyn(unsigned* out) { smem[threadIdx.x] = 1; __syncthreads(); out[0] = smem[0]; }
]]})
local c = cuda.array("u64", 1)

-- The launch must fail with a driver error from `call`.
local function driver_refuses(call, f)
  local msg = t.checkerror(call, f)
  assert(msg:find("failed: CUDA_ERROR_", 1, true), msg)
  return msg
end

t.case("the driver refuses what validation would have", function()
  local msg = driver_refuses("cuLaunchKernel (kernel _Z5countPy, grid 1x1x1, block 1025x1x1",
                             function() m.count{grid = 1, block = 1025, args = {c}} end)
  assert(msg:find("CUDA_ERROR_INVALID_VALUE", 1, true), msg)
  driver_refuses("cuLaunchKernel", function() m.count{grid = {1, 65536}, block = 1, args = {c}} end)
  driver_refuses("cuLaunchKernel", function() m.bounded{grid = 1, block = 129, args = {c}} end)
  driver_refuses("cuLaunchKernel", function() m.count{grid = 1, block = 0, args = {c}} end)
  driver_refuses("bytes of dynamic shared memory", function()
    m.dyn{grid = 1, block = 32, shared = dev.attr.max_shared_memory_per_block_optin + 1, args = {cuda.array("u32", 1)}}
  end)
end)

t.case("the driver's cooperative capacity is the one warplab computes", function()
  local cap = m.count:occupancy{block = 256}.blocks_per_sm * dev.sm_count
  c:zero()
  m.count{grid = cap, block = 256, cooperative = true, args = {c}}
  t.eq(c[1], cap * 256)
  local msg = driver_refuses("cuLaunchCooperativeKernel",
                             function() m.count{grid = cap + 1, block = 256, cooperative = true, args = {c}} end)
  assert(msg:find("CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", 1, true), msg)
end)

t.case("integer ranges are not checked: the low 32 bits are passed", function()
  local out = cuda.array("i32", 1)
  m.store:launch(1, 1, out, (1 << 32) + 5)
  t.eq(out[1], 5)
  t.checkerror("argument 2 (int) of store: expected an integer, got 2.5", m.store.launch, m.store, 1, 1, out, 2.5)
end)

t.case("the context is still usable", function()
  c:zero()
  m.count:launch(4, 256, c)
  t.eq(c[1], 1024)
end)

t.run{exit = true}
