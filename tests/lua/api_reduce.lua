-- api_reduce.lua: warplab.reduce and warplab.bandwidth offline: every version's kernel
-- compiles and is found, the grids come from the device's occupancy, the rounding levels
-- follow each version's passes, and misuse raises a sentence naming the limit.
-- Depends on: the cuda module (offline, a profile), warplab.reduce, warplab.bandwidth.
local t = require "warplab.test"
local reduce = require "warplab.reduce"
local bandwidth = require "warplab.bandwidth"

local r = reduce.runner{block = 256, unroll = 4, load = 3}
local sms = cuda.device().attr.multiprocessor_count

t.case("every version's kernel is compiled and found by name", function()
  for _, v in ipairs(reduce.versions) do
    local k = r:kernel(v)
    assert(k, v.name .. ": no kernel " .. v.kernel)
    t.eq(k.name, v.kernel)
  end
end)

t.case("grids: SMs x resident blocks, the cooperative one within capacity", function()
  t.eq(r.grid, sms * r.k.reduce_last_block:occupancy{block = 256}.blocks_per_sm)
  t.eq(r.int_grid, sms * r.k.reduce_redux:occupancy{block = 256}.blocks_per_sm)
  assert(r.coop_grid <= sms * r.k.reduce_grid_sync:occupancy{block = 256}.blocks_per_sm)
  local fixed = reduce.runner{block = 128, grid = 77}
  t.eq({fixed.grid, fixed.int_grid}, {77, 77})
end)

t.case("levels: passes of the tree versions, the grid-stride and atomic ones", function()
  local by = {}
  for _, v in ipairs(reduce.versions) do by[v.kernel] = v end
  -- 2^28 in blocks of 256, one element each: 2^20, 2^12, 2^4, 1 partials: 4 passes x 8.
  t.eq(r:levels(by.reduce_interleaved, 1 << 28), 32)
  -- two elements a thread: 2^19, 2^10, 2, 1: 4 passes x (1 + 8).
  t.eq(r:levels(by.reduce_first_add, 1 << 28), 36)
  -- 512 elements a block: 1000 -> 2 partials -> 1: 2 passes x (1 + 10 shuffle levels).
  t.eq(r:levels(by.reduce_shuffle, 1000), 2 * (1 + 10))
  t.eq(r:levels(by.reduce_interleaved, 1), 8) -- n = 1: one pass of one block
  t.eq(r:levels(by.reduce_atomic, 1000), 999)
  t.eq(r:levels(by.reduce_redux, 1000), nil)
  t.eq(r:bound(by.reduce_redux, 1000, 1), nil)
  t.eq(r:bound(by.reduce_atomic, 1 << 24, 1), math.huge)
  local g, b = r.grid, 256
  t.eq(r:levels(by.reduce_last_block, 1 << 20),
       reduce.thread_levels(1 << 20, g * b, 4, 4) + 10 + (g + b - 1) // b + 10)
  t.eq(r:levels(by.reduce_vec4, 1 << 20),
       reduce.thread_levels(1 << 20, g * b, 4, 4) + 10 + reduce.thread_levels(g, b, 4, 4) + 10)
end)

t.case("acc: the accumulators the loads go to, checked and used by the bound", function()
  local one = reduce.runner{block = 256, unroll = 8, acc = 1}
  t.eq(one.acc, 1)
  local v
  for _, x in ipairs(reduce.versions) do if x.kind == "last" then v = x end end
  t.eq(one:levels(v, 1 << 20),
       reduce.thread_levels(1 << 20, one.grid * 256, 8, 1) + 10 + (one.grid + 255) // 256 + 10)
  t.eq(reduce.runner{block = 256, unroll = 8}.acc, 8)
  t.checkerror("acc 3 must divide unroll 8", reduce.runner, {block = 256, unroll = 8, acc = 3})
end)

t.case("layout 2 (runs of tiles) and finish: compiled into the grid-stride kernels, checked", function()
  local runs = reduce.runner{block = 256, unroll = 4, acc = 2, layout = 2, finish = 8}
  t.eq({runs.layout, runs.finish}, {2, 8})
  -- The finishing block's loop unrolled 8 times: 8 loads of partials from L2 (ld.global.cg)
  -- where the default has 1.
  local function cg(m)
    local n = 0
    for _ in m.ptx:match("%.entry _Z17reduce_last_block.-\n}\n"):gmatch("ld%.global%.cg") do n = n + 1 end
    return n
  end
  local sp = function(d) return assert(cuda.compile{file = "reductions/single_pass.cu", defines = d}) end
  t.eq(cg(sp({WL_FINISH = 8})), 8)
  t.eq(cg(sp({})), 1)
  t.checkerror("layout 3 must be 0 (grid-stride), 1 (tiles) or 2 (runs of tiles)", reduce.runner, {layout = 3})
  t.checkerror("finish 0 must be an integer from 1 to 64", reduce.runner, {finish = 0})
end)

t.case("misuse: a block the tree versions cannot take", function()
  t.checkerror("block 96: the ladder needs a power of two from 64 to 1024", reduce.runner, {block = 96})
  t.checkerror("block 2048: the ladder needs a power of two from 64 to 1024", reduce.runner, {block = 2048})
end)

t.case("bandwidth: the streaming read kernel compiles offline, for each load policy", function()
  for load = 0, 4 do
    local k = bandwidth.kernel(load)
    t.eq(k.name, "stream_read")
  end
  t.eq(bandwidth.gbs(4e9, 1000), 4.0)
  t.eq(bandwidth.pct(93.14, 100), "93.1 %")
end)

t.case("bandwidth.pct and gbs: a sane text for any numbers, one sentence for anything else", function()
  t.eq(bandwidth.pct(-5, 100), "-5.0 %")
  t.eq(bandwidth.pct(1, 3), "33.3 %")
  t.eq(bandwidth.pct(1e308, 1e300), "1e+10 %", "three digits past a million, no 300-digit number")
  t.eq(bandwidth.pct(1e308, 1), "inf %", "100 x 1e308 is past the largest float")
  t.eq(bandwidth.pct(5, 0), "inf %")
  t.eq(bandwidth.pct(0, 0), "nan %")
  t.eq(bandwidth.pct(0 / 0, 100), "nan %")
  t.eq(bandwidth.pct(5, math.huge), "0.0 %")
  t.eq(bandwidth.pct(math.mininteger, 1), "-9.22e+20 %", "an integer that 100 x would wrap")
  t.checkerror("bandwidth.pct: value and base are numbers, got nil and an integer", bandwidth.pct, nil, 100)
  t.checkerror("bandwidth.pct: value and base are numbers, got a float and a string", bandwidth.pct, 1.5, "100")
  t.eq(bandwidth.gbs(4e9, 0), math.huge)
  t.checkerror("bandwidth.gbs: bytes and ms are numbers, got an integer and nil", bandwidth.gbs, 4)
  t.checkerror("bandwidth.read: expected a cuda.array, got nil", bandwidth.read, nil)
  t.checkerror("bandwidth.copy: expected two cuda.arrays", bandwidth.copy, nil, nil)
end)

t.run{exit = true}
