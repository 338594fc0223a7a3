-- missing_barrier.lua: the block tree of the __syncthreads() text without its barriers gives wrong sums, counted over many runs.
-- Shows:  the text's sumWithinBlock (a shared-memory tree, one block sum each) with its
--         __syncthreads() and without, launched `runs` times over two waves of blocks of
--         integers (every sum exact); each block compares its sum with Lua's. Then the
--         same with the upper half of every block's warps `late_us` late to store their
--         value (as after a cache miss): a reader no barrier holds back reads old data.
-- Expect: the PTX of the unsynced kernel has no barrier; with the barriers not one wrong
--         sum, late warps or not; without them wrong sums (on almost every block when
--         warps are late; without lateness the count is whatever the warps' timing gives).
-- Run:    warplab run examples/sync/missing_barrier.lua [-p block=1024] [-p runs=300] [-p late_us=20] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local progress = require "warplab.progress"
local ex = require "warplab.experiment"
local sync = require "warplab.sync"
local p = params{block = 1024, runs = 300, late_us = 20, waves = 2, seed = 9, save = false}

if p.block < 64 or p.block > 1024 or p.block & (p.block - 1) ~= 0 then
  error(string.format("block %d: the tree needs a power of two from 64 to 1024", p.block), 0)
end
local dev = cuda.device()
local m = assert(cuda.compile("sync/missing_barrier.cu"))
local ks = {m.tree_synced, m.tree_unsynced}
local c = check.new("missing_barrier")
local shared = 4 * p.block
local cap = sync.capacity(ks[1], p.block, shared)
local grid = p.waves * cap.capacity
local rows = {}
for i, k in ipairs(ks) do
  rows[i] = {k.name, k.regs, sync.ptx_count(m, k, table.unpack(sync.BAR)), cap.blocks_per_sm, cap.capacity}
end
report.table(rows, {title = string.format("the compiler and the occupancy calculator (%s, block %d, %d B shared)",
                    dev.name, p.block, shared),
                    columns = {"kernel", "regs", "barriers (PTX)", "blocks/SM", "co-resident"}})
c:that(rows[1][3] >= 2 and rows[2][3] == 0, "the synced tree has its barriers in the PTX, the unsynced none",
       rows[1][3] .. " against " .. rows[2][3])
print(string.format("plan: %d runs of each over %d blocks (%d waves of %d co-resident), %d values each",
                    p.runs, grid, p.waves, cap.capacity, p.block))
if ex.offline(dev, "counting wrong sums", p.save and {"results/missing_barrier.csv"}) then return c:summary() end

-- Integers 0..7: every partial sum is exact in float, so "wrong" means wrong.
math.randomseed(p.seed)
local host, want = {}, {}
for b = 1, grid do
  local s = 0
  for i = (b - 1) * p.block + 1, b * p.block do
    local v = math.random(0, 7)
    host[i], s = v, s + v
  end
  want[b] = s
end
local x <close> = cuda.array("f32", host)
local w <close> = cuda.array("f32", want)
local wrong <close> = cuda.array("u32", p.runs)
local res = {}
local bar = progress.new(4 * p.runs, "launches")
for _, late in ipairs{0, p.late_us} do
  for _, k in ipairs(ks) do
    wrong:zero()
    for run = 0, p.runs - 1 do
      k{grid = grid, block = p.block, shared = shared, args = {x, w, wrong, run, late * 1000}}
      if run % 50 == 49 then bar:step(50) end
    end
    local per_run, total, runs_bad, worst = wrong:get(), 0, 0, 0
    for _, n in ipairs(per_run) do
      total = total + n
      if n > 0 then runs_bad = runs_bad + 1 end
      worst = math.max(worst, n)
    end
    res[#res + 1] = {kernel = k.name, late_us = late, runs = p.runs, sums = p.runs * grid, wrong = total,
                     pct = 100 * total / (p.runs * grid), runs_wrong = runs_bad, worst_run = worst}
  end
end
bar:done()
local cols = {"kernel", "late_us", "runs", "sums", "wrong", "pct", "runs_wrong", "worst_run"}
report.table(res, {title = "block sums checked against Lua's exact sums", columns = cols,
                   format = {pct = "%.2f %%"}})
print("late_us: the upper half of each block's warps store their value that long after the others; "
      .. "runs_wrong: launches with at least one wrong block sum; worst_run: most wrong blocks in one launch")
c:eq({res[1].wrong, res[3].wrong}, {0, 0}, "with __syncthreads(): no wrong sum, late warps or not")
c:that(res[4].wrong > 0, "without: wrong sums once some warps are late",
       string.format("%d of %d block sums wrong", res[4].wrong, res[4].sums))
print(string.format("without the barriers and no late warps: %d of %d sums wrong (%s)", res[2].wrong, res[2].sums,
      res[2].wrong > 0 and "the race shows even with warps at their natural pace"
      or "the warps happened to keep pace here; the code is still wrong, as the late-warp run shows"))
if p.save then
  print("saved " .. report.save("results/missing_barrier.csv", res, {columns = cols}))
end
c:summary()
