-- reduce.lua: warplab's fastest sum (reduce_last_block: one launch, float4 loads, the last
-- block finishes) over n floats in [0, 1), timed as bench/cub_reduce.cu times CUB: events
-- around each call, warm-up first, the median; with a streaming read and a
-- device-to-device copy measured in the same run. Exits 1 if the sum is off its bound.
-- Shows:  lines "warplab <ms> <GB/s>", "read <ms> <GB/s>", "copy <ms> <GB/s (read + write)>".
-- Expect: warplab >= cub in GB/s on the same GPU (scripts/bench prints them side by side).
-- Run:    warplab run bench/reduce.lua [-p n=268435456] [-p reps=100] [-p unroll=4] [-p acc=0] [-p load=3] [-p grid=0] [-p block=256] [-p min_blocks=0] [-p layout=1] [-p finish=1]
local params = require "warplab.params"
local reduce = require "warplab.reduce"
local bw = require "warplab.bandwidth"
local p = params{n = 1 << 28, reps = 100, unroll = 4, acc = 0, load = 3, grid = 0, block = 256, min_blocks = 0, layout = 1,
                 finish = 1, seed = 1}

local r = reduce.runner{block = p.block, grid = p.grid, unroll = p.unroll, acc = p.acc, load = p.load,
                        min_blocks = p.min_blocks, layout = p.layout, finish = p.finish}
local v = reduce.versions[9]
assert(v.kernel == "reduce_last_block")
local dev = cuda.device()
local k = r.k.reduce_last_block
io.stderr:write(string.format("reduce.lua: %s, %d blocks of %d, layout %d, unroll %d, acc %d, load %d, min_blocks %d, "
                              .. "finish %d: %d regs, %d B spilled\n", dev.name, r.grid, p.block, p.layout, p.unroll, r.acc,
                              p.load, p.min_blocks, p.finish, k.regs, k.spill_bytes))
if not dev.live then
  print("skipped: no GPU")
  return
end
r:alloc(1024)
local x <close> = cuda.array("f32", p.n):random{seed = p.seed}
local ref = r:reference(x, p.n)
local got = r:sum(v, x, p.n)
local bound = r:bound(v, p.n, ref.abs) + ref.err
local st = cuda.bench(function() r:launch(v, x, p.n) end, {warmup = 10, reps = p.reps})
local m = bw.measure(x, {reps = p.reps, warmup = 10})
print(string.format("warplab %.4f %.1f", st.median, bw.gbs(4 * p.n, st.median)))
print(string.format("read %.4f %.1f", m.read.ms, m.read.gbs))
print(string.format("copy %.4f %.1f", m.copy.ms, m.copy.gbs))
io.stderr:write(string.format("reduce.lua: sum %.9g, double %.9g, error %.2e, bound %.2e\n", got, ref.sum,
                              math.abs(got - ref.sum), bound))
if math.abs(got - ref.sum) > bound then error("reduce.lua: the sum is outside its rounding bound") end
