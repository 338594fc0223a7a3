-- limits.lua (GPU): each launch validation rule rejects before the driver sees the launch
-- (the kernel does not run, the message names the limit), and a configuration exactly at
-- each limit is accepted and runs: block dimensions and threads, grid y/z, the kernel's
-- cap from __launch_bounds__ and from 128 registers, dynamic shared memory above 48 KiB
-- (automatic opt-in) up to the opt-in limit, a cooperative grid of exactly the
-- co-resident capacity whose blocks all meet at a grid-wide barrier.
local t = require "warplab.test"

local dev = cuda.device()
assert(dev.live, "needs a GPU")
local optin = dev.attr.max_shared_memory_per_block_optin

local m = assert(cuda.compile{source = [[
#include <warplab/ids.cuh>
__global__ void count(unsigned long long* c) { atomicAdd(c, 1ull); }
__global__ void __launch_bounds__(128) bounded(unsigned long long* c) { atomicAdd(c, 1ull); }
extern __shared__ unsigned char smem[];
// Writes every byte of the dynamic shared memory, then sums it: all of it is usable.
__global__ void dyn(unsigned* out, unsigned bytes) {
  for (unsigned i = threadIdx.x; i < bytes; i += blockDim.x) smem[i] = static_cast<unsigned char>(i * 7u);
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned s = 0;
    for (unsigned i = 0; i < bytes; ++i) s += smem[i];
    out[0] = s;
  }
}
// A grid-wide barrier by hand: legal only when every block is resident at once, which a
// cooperative launch guarantees. A deadline turns a hang into a counted timeout.
__global__ void barrier(unsigned* arrived, unsigned* seen, unsigned* timeouts, unsigned long long ns) {
  if (threadIdx.x != 0) return;
  atomicAdd(arrived, 1u);
  const unsigned long long t0 = warplab::global_timer();
  unsigned n;
  while ((n = atomicAdd(arrived, 0u)) < gridDim.x) {
    if (warplab::global_timer() - t0 > ns) { atomicAdd(timeouts, 1u); break; }
  }
  seen[blockIdx.x] = n;
}
#include "../data/kernels/pressure.cuh"
]], kernels = {"heavy<200>"}, max_registers = 128})

local c = cuda.array("u64", 1)
-- Launches `k` with the counter and returns how many threads ran.
local function ran(k, grid, block)
  c:zero()
  k{grid = grid, block = block, args = {c}}
  return c[1]
end
-- The launch must raise `why` (our sentence, not the driver's) and run nothing.
local function rejected(k, grid, block, why)
  c:zero()
  local msg = t.checkerror(why, function() k{grid = grid, block = block, args = {c}} end)
  assert(not msg:find("CUDA_ERROR", 1, true), "the driver saw it: " .. msg)
  cuda.synchronize()
  t.eq(c[1], 0, "nothing ran for: " .. why)
end

t.case("block dimensions and threads per block", function()
  t.eq(ran(m.count, 1, 1024), 1024)
  t.eq(ran(m.count, 1, {1, 1, 64}), 64)
  t.eq(ran(m.count, 1, {1, 1024}), 1024)
  rejected(m.count, 1, 1025, "count: block dimension x = 1025 exceeds max_block_dim_x = 1024")
  rejected(m.count, 1, {1, 1, 65}, "count: block dimension z = 65 exceeds max_block_dim_z = 64")
  rejected(m.count, 1, {32, 33}, "count: block 32x33x1 = 1056 threads exceeds max_threads_per_block = 1024")
end)

t.case("zero dimensions", function()
  rejected(m.count, 1, 0, "count: block 0x1x1 has a zero dimension")
  rejected(m.count, {2, 0}, 1, "count: grid 2x0x1 has a zero dimension")
end)

t.case("grid dimensions y and z at their limit; over it", function()
  t.eq(ran(m.count, {1, 65535}, 1), 65535)
  t.eq(ran(m.count, {1, 1, 65535}, 1), 65535)
  rejected(m.count, {1, 65536}, 1, "count: grid dimension y = 65536 exceeds max_grid_dim_y = 65535")
  rejected(m.count, {2147483648}, 1, "count: grid dimension x = 2147483648 exceeds max_grid_dim_x = 2147483647")
end)

t.case("the kernel's own cap: launch bounds and registers", function()
  t.eq(m.bounded.max_threads, 128)
  t.eq(ran(m.bounded, 2, 128), 256)
  rejected(m.bounded, 1, 129, "bounded: block 129x1x1 = 129 threads exceeds the kernel's max_threads_per_block = 128")
  local h = m["heavy<200>"]
  t.eq({h.regs, h.max_threads}, {128, 512})
  local input, out = cuda.array("f32", 200 * 512):fill(1), cuda.array("f32", 512)
  h:launch(1, 512, input, out, 0)
  local got = out:get()
  t.eq({got[1], got[512]}, {200.0, 200.0})
  t.checkerror("heavy<200>: block 513x1x1 = 513 threads exceeds the kernel's max_threads_per_block = 512",
               h.launch, h, 1, 513, input, out, 0)
end)

t.case("dynamic shared memory: above 48 KiB opts in; the opt-in limit itself works", function()
  local out = cuda.array("u32", 1)
  for _, bytes in ipairs({1024, 49153, 100 * 1024, optin}) do
    local want = 0
    for i = 0, bytes - 1 do want = want + (i * 7) % 256 end
    out:zero()
    m.dyn{grid = 1, block = 256, shared = bytes, args = {out, bytes}}
    t.eq(out[1], want, bytes .. " bytes")
  end
  t.checkerror("dyn: static 0 + dynamic " .. (optin + 1) .. " bytes exceeds max_shared_memory_per_block_optin = " .. optin,
               function() m.dyn{grid = 1, block = 256, shared = optin + 1, args = {out, 1}} end)
end)

t.case("cooperative: exactly the co-resident capacity runs and meets at a barrier", function()
  local occ = m.barrier:occupancy{block = 256}
  t.eq(occ.driver_blocks_per_sm, occ.blocks_per_sm)
  local cap = occ.blocks_per_sm * dev.sm_count
  assert(cap >= dev.sm_count, cap)
  local arrived, seen, timeouts = cuda.array("u32", 1):zero(), cuda.array("u32", cap):zero(), cuda.array("u32", 1):zero()
  m.barrier{grid = cap, block = 256, cooperative = true, args = {arrived, seen, timeouts, 2000000000}}
  t.eq({arrived[1], timeouts[1]}, {cap, 0})
  local s = seen:get()
  for i = 1, cap do if s[i] ~= cap then error(string.format("block %d saw %d of %d", i - 1, s[i], cap)) end end
  arrived:zero()
  t.checkerror(string.format("barrier: cooperative grid of %d blocks exceeds the %d co-resident blocks (%d per SM × %d SMs)",
                             cap + 1, cap, occ.blocks_per_sm, dev.sm_count),
               function() m.barrier{grid = cap + 1, block = 256, cooperative = true, args = {arrived, seen, timeouts, 1}} end)
  t.eq(arrived[1], 0)
end)

t.run{exit = true}
