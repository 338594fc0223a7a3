-- api_check.lua: launch validation on the H200's limits: k:check{...} answers false plus
-- the sentence for every rule (zero dimensions, block dimensions, threads per block, the
-- kernel's own cap from __launch_bounds__ and from its registers, grid dimensions,
-- dynamic shared memory over the opt-in limit, cooperative grids over the co-resident
-- capacity) and true exactly at each limit; a launch raises the same sentence, naming the
-- kernel and the script line; misuse of the launch table raises. Offline and live.
local t = require "warplab.test"

local THIS = debug.getinfo(1, "S").source:sub(2)
require "support.h200_only"  -- the numbers below are the H200's

local m = assert(cuda.compile{source = [[
#include "../data/kernels/probes.cuh"
]], kernels = {"heavy<200>"}, max_registers = 128})
local small, bounded, with_shared, heavy = m.small, m.bounded, m.with_shared, m["heavy<200>"]

-- k:check(cfg) must answer false with exactly `why`.
local function refuses(k, cfg, why)
  local ok, msg = k:check(cfg)
  t.eq({ok, msg}, {false, why})
end
local function accepts(k, cfg)
  t.eq({k:check(cfg)}, {true})
end

t.case("zero dimensions", function()
  refuses(small, {grid = 1, block = 0}, "block 0x1x1 has a zero dimension: each of x, y, z must be at least 1")
  refuses(small, {grid = {4, 0}, block = 32}, "grid 4x0x1 has a zero dimension: each of x, y, z must be at least 1")
  refuses(small, {grid = 0, block = {32, 1, 0}}, "block 32x1x0 has a zero dimension: each of x, y, z must be at least 1")
  accepts(small, {grid = 1, block = 1})
end)

t.case("each block dimension", function()
  refuses(small, {grid = 1, block = 1025}, "block dimension x = 1025 exceeds max_block_dim_x = 1024")
  refuses(small, {grid = 1, block = {1, 1025}}, "block dimension y = 1025 exceeds max_block_dim_y = 1024")
  refuses(small, {grid = 1, block = {1, 1, 65}}, "block dimension z = 65 exceeds max_block_dim_z = 64")
  accepts(small, {grid = 1, block = {1, 1, 64}})
  accepts(small, {grid = 1, block = {1, 1024}})
end)

t.case("threads per block", function()
  refuses(small, {grid = 1, block = {32, 33}}, "block 32x33x1 = 1056 threads exceeds max_threads_per_block = 1024")
  refuses(small, {grid = 1, block = {16, 16, 8}}, "block 16x16x8 = 2048 threads exceeds max_threads_per_block = 1024")
  accepts(small, {grid = 1, block = {32, 32}})
end)

t.case("the kernel's own cap: __launch_bounds__", function()
  t.eq(bounded.max_threads, 128)
  refuses(bounded, {grid = 1, block = 129}, "block 129x1x1 = 129 threads exceeds the kernel's "
          .. "max_threads_per_block = 128 (set by its launch bounds or its register use)")
  refuses(bounded, {grid = 1, block = {16, 16}}, "block 16x16x1 = 256 threads exceeds the kernel's "
          .. "max_threads_per_block = 128 (set by its launch bounds or its register use)")
  accepts(bounded, {grid = 1, block = 128})
end)

t.case("the kernel's own cap: registers x threads", function()
  -- 128 registers x 32 lanes = 4096 per warp; 65536 per block / 4096 = 16 warps = 512.
  t.eq(heavy.regs, 128)
  t.eq(heavy.max_threads, 512)
  refuses(heavy, {grid = 1, block = 513}, "block 513x1x1 = 513 threads exceeds the kernel's "
          .. "max_threads_per_block = 512 (set by its launch bounds or its register use)")
  accepts(heavy, {grid = 1, block = 512})
end)

t.case("each grid dimension", function()
  refuses(small, {grid = 2147483648, block = 1}, "grid dimension x = 2147483648 exceeds max_grid_dim_x = 2147483647")
  refuses(small, {grid = {1, 65536}, block = 1}, "grid dimension y = 65536 exceeds max_grid_dim_y = 65535")
  refuses(small, {grid = {1, 1, 65536}, block = 1}, "grid dimension z = 65536 exceeds max_grid_dim_z = 65535")
  accepts(small, {grid = {2147483647, 65535, 65535}, block = 1})
end)

t.case("dynamic shared memory: opt-in above 48 KiB, up to the opt-in limit", function()
  accepts(small, {grid = 1, block = 32, shared = 49153})  -- opted in automatically
  accepts(small, {grid = 1, block = 32, shared = 232448})
  refuses(small, {grid = 1, block = 32, shared = 232449},
          "static 0 + dynamic 232449 bytes exceeds max_shared_memory_per_block_optin = 232448")
  accepts(with_shared, {grid = 1, block = 32, shared = 232448 - 4096})
  refuses(with_shared, {grid = 1, block = 32, shared = 232448 - 4095},
          "static 4096 + dynamic 228353 bytes exceeds max_shared_memory_per_block_optin = 232448")
end)

t.case("cooperative grids: at most the co-resident blocks", function()
  -- block 1024: 2 blocks per SM by warp slots (64 / 32), x 132 SMs = 264.
  accepts(small, {grid = 264, block = 1024, cooperative = true})
  refuses(small, {grid = 265, block = 1024, cooperative = true},
          "cooperative grid of 265 blocks exceeds the 264 co-resident blocks (2 per SM × 132 SMs)")
  accepts(small, {grid = 265, block = 1024})  -- not cooperative: any grid
  -- block 256: 8 per SM = 1056; a 2-D grid counts all its blocks.
  accepts(small, {grid = {33, 32}, block = 256, cooperative = true})
  refuses(small, {grid = {1057}, block = 256, cooperative = true},
          "cooperative grid of 1057 blocks exceeds the 1056 co-resident blocks (8 per SM × 132 SMs)")
  -- 100000 bytes of dynamic shared memory: 2 blocks fit an SM's 228 KiB.
  refuses(small, {grid = 265, block = 128, shared = 100000, cooperative = true},
          "cooperative grid of 265 blocks exceeds the 264 co-resident blocks (2 per SM × 132 SMs)")
end)

t.case("the first broken rule is the one named", function()
  refuses(small, {grid = 0, block = 0}, "block 0x1x1 has a zero dimension: each of x, y, z must be at least 1")
  refuses(small, {grid = {1, 65536}, block = 2048, shared = 1 << 20},
          "block dimension x = 2048 exceeds max_block_dim_x = 1024")
end)

t.case("a launch raises the sentence with the kernel's name and the script line", function()
  local line = debug.getinfo(1, "l").currentline
  local msg = t.checkerror("small: grid dimension y = 65536 exceeds max_grid_dim_y = 65535",
                           function() small:launch({1, 65536}, 32, nil) end)
  assert(msg:find(THIS .. ":" .. (line + 2) .. ": small: grid", 1, true), msg)
  t.checkerror("bounded: block 256x1x1 = 256 threads exceeds the kernel's max_threads_per_block = 128",
               function() bounded{grid = 1, block = 256, args = {}} end)
  t.checkerror("small: static 0 + dynamic 232449 bytes exceeds max_shared_memory_per_block_optin = 232448",
               function() small{grid = 1, block = 32, shared = 232449, args = {}} end)
  t.checkerror("small: cooperative grid of 265 blocks exceeds the 264 co-resident blocks",
               function() small{grid = 265, block = 1024, cooperative = true, args = {}} end)
  -- Validation comes before the arguments are looked at.
  t.checkerror("small: block 0x1x1 has a zero dimension", function() small:launch(1, 0) end)
end)

t.case("launch-table misuse raises", function()
  t.checkerror("launch table needs grid =", small.check, small, {block = 1})
  t.checkerror("launch table needs block =", small.check, small, {grid = 1})
  t.checkerror("grid must be an integer >= 0 or a list of 1 to 3 of them (got -1)", small.check, small, {grid = -1, block = 1})
  t.checkerror("block must be an integer >= 0 or a list of 1 to 3 of them (got 2.5)", small.check, small, {grid = 1, block = 2.5})
  t.checkerror("block must be an integer >= 0 or a list of 1 to 3 of them (got x)", small.check, small, {grid = 1, block = {"x"}})
  t.checkerror("block must have 1 to 3 dimensions, got 4", small.check, small, {grid = 1, block = {1, 1, 1, 1}})
  t.checkerror("grid must have 1 to 3 dimensions, got 0", small.check, small, {grid = {}, block = 1})
  t.checkerror("shared must be a byte count >= 0, got -5", small.check, small, {grid = 1, block = 1, shared = -5})
  t.checkerror("stream must be a cuda.stream() or nil, got number", small.check, small, {grid = 1, block = 1, stream = 0})
  t.checkerror("bad argument #1 to 'check' (table expected, got no value)", function() return small:check() end)
  t.checkerror("grid must be an integer >= 0", small.launch, small, "x", 1, nil)
  accepts(small, {grid = 256.0, block = {16.0, 2}})  -- floats with an integer value are fine
end)

t.run{exit = true}
