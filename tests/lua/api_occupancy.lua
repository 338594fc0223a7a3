-- api_occupancy.lua: k:occupancy{block=, shared=, carveout=} against cases worked out by
-- hand for the H200 (64 warp slots, 65536 registers in 4 quarters, 228 KiB of shared
-- memory of which 1 KiB is reserved per block, 32 block slots per SM). On a live GPU
-- (gpu-check) the driver's answer must agree too. Misuse raises.
local t = require "warplab.test"

require "support.h200_only"  -- the numbers below are the H200's

local m = assert(cuda.compile{source = [[
#include "../data/kernels/probes.cuh"
]], kernels = {"heavy<200>"}, max_registers = 64})
local small, bounded, with_shared, heavy = m.small, m.bounded, m.with_shared, m["heavy<200>"]

-- The calculator's table without the driver's fields (checked separately when live).
local function occ(k, opts)
  local r = k:occupancy(opts)
  if r.driver_blocks_per_sm then
    t.eq(r.driver_blocks_per_sm, r.blocks_per_sm, "the driver agrees for block " .. r.block)
    r.driver_blocks_per_sm, r.driver_error = nil, nil
  end
  return r
end

t.case("the kernels' registers are in the range the cases assume", function()
  -- <= 16 registers: 16 x 32 lanes = 512 per warp, the smallest allocation unit x 2.
  assert(small.regs >= 1 and small.regs <= 16, small.regs)
  t.eq(heavy.regs, 64)
end)

t.case("a small kernel, block 256: 8 blocks, limited by warp slots", function()
  -- warps 64 / 8 = 8; registers: 16384 per quarter / 512 per warp = 32 warps a quarter,
  -- 128 an SM, / 8 = 16 blocks; shared: 0 + 1024 reserved -> 233472 / 1024 = 228;
  -- barriers: 2 x 32 slots / 1 = 64.
  t.eq(occ(small, {block = 256}), {
    block = 256, blocks_per_sm = 8, warps_per_block = 8, active_warps = 64, max_warps = 64,
    occupancy = 1.0, limiter = "warps", by_warps = 8, by_registers = 16, by_shared = 228,
    by_blocks = 32, by_barriers = 64, regs_per_block = 4096, shared_per_block = 1024,
    shared_per_sm = 233472})
  t.eq(occ(small, 256), occ(small, {block = 256}))
end)

t.case("block 1024: 2 blocks; block 32: 32 blocks, limited by block slots", function()
  local r = occ(small, {block = 1024})
  t.eq({r.blocks_per_sm, r.limiter, r.by_registers, r.occupancy}, {2, "warps", 4, 1.0})
  r = occ(small, {block = 32})
  t.eq({r.blocks_per_sm, r.limiter, r.by_warps, r.active_warps, r.occupancy}, {32, "blocks", 64, 32, 0.5})
end)

t.case("64 registers, block 256: 4 blocks, limited by registers", function()
  -- 64 x 32 = 2048 per warp; 16384 / 2048 = 8 warps a quarter = 32 an SM; / 8 = 4.
  local r = occ(heavy, {block = 256})
  t.eq({r.blocks_per_sm, r.limiter, r.by_registers, r.by_warps, r.regs_per_block, r.occupancy},
       {4, "registers", 4, 8, 16384, 0.5})
  -- block 96 = 3 warps: 32 / 3 = 10 blocks by registers, 21 by warps.
  r = occ(heavy, {block = 96})
  t.eq({r.blocks_per_sm, r.limiter, r.by_registers, r.by_warps, r.active_warps}, {10, "registers", 10, 21, 30})
end)

t.case("dynamic shared memory: 100 KiB per block leaves room for 2", function()
  -- 102400 + 1024 reserved = 103424 (a multiple of 128); 233472 / 103424 = 2.
  local r = occ(small, {block = 128, shared = 102400})
  t.eq({r.blocks_per_sm, r.limiter, r.shared_per_block, r.by_shared, r.active_warps, r.occupancy},
       {2, "shared memory", 103424, 2, 8, 0.125})
  -- static 4096 + dynamic 40000 + 1024 = 45120, rounded up to 128: 45184; 233472 / 45184 = 5.
  r = occ(with_shared, {block = 256, shared = 40000})
  t.eq({r.blocks_per_sm, r.limiter, r.shared_per_block, r.occupancy}, {5, "shared memory", 45184, 0.625})
  r = occ(with_shared, {block = 256})
  t.eq({r.blocks_per_sm, r.limiter, r.by_shared}, {8, "warps", 45})
end)

t.case("a carveout of 0 %: the SM takes the smallest configuration that holds a block", function()
  -- 1024 bytes per block need the 8 KiB configuration: 8192 / 1024 = 8 blocks.
  local r = small:occupancy{block = 128, carveout = 0}
  t.eq({r.blocks_per_sm, r.limiter, r.shared_per_sm, r.by_shared, r.by_warps},
       {8, "shared memory", 8192, 8, 16})
  t.eq(r.driver_blocks_per_sm, nil)  -- the driver is asked only for the default carveout
end)

t.case("configurations that cannot run: 0 blocks and the reason", function()
  local r = occ(small, {block = 2048})
  t.eq({r.blocks_per_sm, r.occupancy, r.reason}, {0, 0.0, "block of 2048 threads exceeds max_threads_per_block = 1024"})
  r = bounded:occupancy{block = 256}
  t.eq({r.blocks_per_sm, r.reason}, {0, "block of 256 threads exceeds the kernel's max_threads_per_block = 128"})
  r = occ(small, {block = 32, shared = 232449})
  t.eq({r.blocks_per_sm, r.limiter, r.reason}, {0, "shared memory",
       "static 0 + dynamic 232449 bytes exceeds max_shared_memory_per_block_optin = 232448"})
  t.eq(occ(small, {block = 32, shared = 232448}).blocks_per_sm, 1)
end)

t.case("misuse raises", function()
  t.checkerror("occupancy needs block = <threads per block> >= 1", small.occupancy, small, {})
  t.checkerror("occupancy needs block = <threads per block> >= 1", small.occupancy, small, 0)
  t.checkerror("occupancy: block must be an integer, got 2.5", small.occupancy, small, {block = 2.5})
  t.checkerror("occupancy: shared must be a byte count >= 0, got -1", small.occupancy, small, {block = 32, shared = -1})
  t.checkerror("occupancy: carveout must be a percentage 0..100 (or -1, the default), got 101",
               small.occupancy, small, {block = 32, carveout = 101})
end)

t.run{exit = true}
