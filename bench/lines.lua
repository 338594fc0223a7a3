-- lines.lua: the script of the lines section of scripts/bench: the launches of
-- examples/memory/banks.lua's timing (kernels_src/memory/banks.cu's bank_cycles, one block
-- of 512 threads, strides 1, 2, 4, 8, 16, 32, 33 and the broadcast, `reps` launches each)
-- without its checks or its counters and lines witnesses, so that a run with lines off is
-- the launches alone, `run --lines` counts exactly these, and Nsight Compute profiles the
-- same launches.
-- Shows:  one line: how many launches ran.
-- Expect: `run --lines` lists bank_cycles with the chase's load line hottest.
-- Run:    warplab run bench/lines.lua [-p reps=1] [-p iters=256]
local p = require("warplab.params"){reps = 1, iters = 256}
local m = assert(cuda.compile{file = "memory/banks.cu", defines = {WL_CHAINS = 4, WL_UNROLL = 8}})
local k = m.bank_cycles
local block = 512
local cycles <close> = cuda.array("u64", 2 * block // cuda.device().attr.warp_size)
local sink <close> = cuda.array("u32", 1):zero()
local n = 0
for _, stride in ipairs{1, 2, 4, 8, 16, 32, 33, 0} do
  for _ = 1, p.reps do
    k{grid = 1, block = block, args = {stride, p.iters, 0, cycles, sink}}
    n = n + 1
  end
end
cuda.synchronize()
print(n .. " launches of bank_cycles")
