-- ladder.lua: the barrier ladder on Hopper, in cycles: warp, block, mbarrier, cluster of 2 to 16, grid, kernel; and what a split arrive/wait buys.
-- Shows:  each rung's loop kernel (cost.cu, ladder.cu) runs `iters` barriers and records
--         clock64 cycles per barrier, the slowest block counting, at 128 and 1024 threads
--         per block: __syncwarp, __syncthreads, an mbarrier's arrive_and_wait
--         (cuda::barrier<thread_scope_block>), cluster.sync() for clusters of 2, 4, 8 and
--         16 blocks (16 with the non-portable opt-in warplab makes), a cooperative
--         grid.sync() with one block per SM, and back-to-back empty kernels (events x the
--         clock). Then `work` dependent multiply-adds per round, after an arrive_and_wait
--         or between a split arrive() and wait(); then one dependent load from the block's
--         own shared memory against one from its cluster neighbour's (DSMEM).
-- Expect: __syncwarp < __syncthreads < mbarrier < cluster.sync() < grid.sync() < a kernel
--         boundary at both block sizes; next to `work` independent multiply-adds a barrier
--         adds at most half of its own cost (the split round is printed beside it, not
--         checked: on an H200 it bought nothing); a DSMEM load several times a local one.
-- Run:    warplab run examples/sync/ladder.lua [-p iters=100000] [-p work=64] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local sync = require "warplab.sync"
local p = params{iters = 100000, cluster_iters = 20000, grid_iters = 2000, launches = 2000, work = 64,
                 steps = 20000, save = false}

local dev = cuda.device()
local cost, lad = assert(cuda.compile("sync/cost.cu")), assert(cuda.compile("sync/ladder.cu"))
local c = check.new("ladder")
local sms = dev.attr.multiprocessor_count
local no_cluster = sync.needs(dev, 9, 0, "thread-block clusters and distributed shared memory")
local SIZES, CLUSTERS = {128, 1024}, {2, 4, 8, 16}
-- Each rung: name, kernel, launch table for block B, rounds.
local function rungs(B)
  local r = {{"__syncwarp()", cost.cost_syncwarp, {grid = 1, block = B}, p.iters},
             {"__syncthreads()", cost.cost_syncthreads, {grid = 1, block = B}, p.iters},
             {"mbarrier arrive_and_wait", lad.mbar_wait, {grid = 1, block = B}, p.iters}}
  for _, n in ipairs(CLUSTERS) do
    r[#r + 1] = {"cluster.sync() x" .. n, cost.cost_cluster_sync, {grid = n, block = B, cluster = n}, p.cluster_iters}
  end
  r[#r + 1] = {"grid.sync() 1/SM", cost.cost_grid_sync, {grid = sms, block = B, cooperative = true}, p.grid_iters}
  r[#r + 1] = {"kernel boundary 1/SM", cost.empty_kernel, {grid = sms, block = B}, p.launches}
  return r
end
local plan, rows, refused = {}, {}, {}
for s, B in ipairs(SIZES) do
  plan[B] = rungs(B)
  for i, e in ipairs(plan[B]) do
    e.ok, e.why = e[2]:check(e[3])
    if e[3].cluster and no_cluster then e.ok, e.why = false, no_cluster end
    rows[i] = rows[i] or {e[1], e[2].name}
    rows[i][2 + s] = e.ok and "ok" or e.why
    if not e.ok and not (e[3].cluster and (no_cluster or e[3].cluster > 8)) then refused[#refused + 1] = e[1] .. " at " .. B .. ": " .. e.why end
  end
end
report.table(rows, {title = "the rungs on " .. dev.name .. " (" .. lad.arch .. "), launch validation",
                    columns = {"rung", "kernel", "128 threads", "1024 threads"}})
if no_cluster then print(no_cluster .. " (the cluster rungs and the DSMEM load)") end
c:that(#refused == 0, "every rung passes validation at 128 and 1024 threads (clusters of 16 may not fit)",
       table.concat(refused, "; "))
if ex.offline(dev, "timing the rungs", p.save and {"results/sync_ladder.csv"}) then return c:summary() end

local out <close> = cuda.array("u64", 2 * sms)
local res, ghz = {}, {}
for _, B in ipairs(SIZES) do
  for i, e in ipairs(plan[B]) do
    res[i] = res[i] or {rung = e[1]}
    if not e.ok then
      res[i]["c" .. B] = nil
    elseif e[2] == cost.empty_kernel then
      local k, cfg = e[2], e[3]
      local st = cuda.bench(function() for _ = 1, e[4] do k:launch(cfg.grid, cfg.block) end end, {warmup = 1, reps = 5})
      e.ns = st.median * 1e6 / e[4]
    else
      e.ns, e.cycles = sync.loop(e[2], e[3], {e[4], out}, e[4], out)
    end
  end
  ghz[B] = plan[B][2].cycles / plan[B][2].ns -- the SM clock, from the __syncthreads loop
  for i, e in ipairs(plan[B]) do
    if e.ns and not e.cycles then e.cycles = e.ns * ghz[B] end
    res[i]["c" .. B] = e.cycles
  end
end
report.table(res, {title = string.format("cycles per barrier (SM clock %.2f GHz measured)", ghz[128]),
                   columns = {"rung", "c128", "c1024"}, format = {c128 = "%.1f", c1024 = "%.1f"}})
print("c128 / c1024: clock64 cycles per barrier at 128 / 1024 threads per block (the kernel boundary: time x clock)")
local function cyc(B, i) return plan[B][i].cycles or math.huge end
local last = #plan[128]
for _, B in ipairs(SIZES) do
  -- The clusters that ran, as one rung: all above the mbarrier, all below grid.sync().
  local lo, hi = math.huge, 0
  for i = 4, 3 + #CLUSTERS do
    if plan[B][i].cycles then lo, hi = math.min(lo, plan[B][i].cycles), math.max(hi, plan[B][i].cycles) end
  end
  local chain = {{"__syncwarp", cyc(B, 1)}, {"__syncthreads", cyc(B, 2)}, {"mbarrier", cyc(B, 3)},
                 {"cluster.sync() (fastest)", lo}, {"cluster.sync() (slowest)", hi}, {"grid.sync()", cyc(B, last - 1)},
                 {"kernel boundary", cyc(B, last)}}
  local ok, text = hi > 0, {}
  for j, r in ipairs(chain) do
    text[j] = string.format("%s %.0f", r[1], r[2])
    if j > 1 and j ~= 5 and r[2] <= chain[j - 1][2] then ok = false end
  end
  c:that(ok, "the ladder's order at " .. B .. " threads: each rung dearer than the one below",
         table.concat(text, " < "))
end
-- What the split buys: the same work after an arrive_and_wait, or between arrive() and wait().
local srows = {}
for _, B in ipairs(SIZES) do
  local cfg = {grid = 1, block = B}
  local w = select(2, sync.loop(lad.work_alone, cfg, {p.iters // 10, p.work, out}, p.iters // 10, out))
  local b = select(2, sync.loop(lad.mbar_wait, cfg, {p.iters // 10, out}, p.iters // 10, out))
  local tw = select(2, sync.loop(lad.mbar_then_work, cfg, {p.iters // 10, p.work, out}, p.iters // 10, out))
  local sp = select(2, sync.loop(lad.mbar_split, cfg, {p.iters // 10, p.work, out}, p.iters // 10, out))
  srows[#srows + 1] = {B, w, b, tw, sp, string.format("%+.0f %%", 100 * (sp - tw) / tw)}
  c:that(tw <= w + b / 2, string.format("at %d threads %d rounds of independent work hide at least half the barrier", B, p.work),
         string.format("barrier then work %.0f <= work alone %.0f + barrier alone %.0f / 2 cycles", tw, w, b))
end
report.table(srows, {title = "cycles per round: " .. p.work .. " dependent multiply-adds and one mbarrier",
                     columns = {"threads", "work alone", "barrier alone", "barrier then work", "split", "split vs then"},
                     format = {["work alone"] = "%.0f", ["barrier alone"] = "%.0f", ["barrier then work"] = "%.0f", split = "%.0f"}})
-- One dependent load: the block's own shared memory against the neighbour's, through DSMEM.
if not no_cluster then
  local cfg = {grid = 2, block = 32, cluster = 2}
  local _, local_c = sync.loop(lad.chase_local, cfg, {p.steps, out}, p.steps, out)
  local _, remote_c = sync.loop(lad.chase_remote, cfg, {p.steps, out}, p.steps, out)
  print(string.format("one dependent shared-memory load: %.1f cycles in the block's own, %.1f from the neighbour's (DSMEM): %.1fx",
        local_c, remote_c, remote_c / local_c))
  c:that(remote_c >= 2 * local_c, "a load from a neighbour's shared memory (DSMEM) costs >= 2x a local one",
         string.format("%.1f vs %.1f cycles", remote_c, local_c))
end
if p.save then print("saved " .. report.save("results/sync_ladder.csv", res, {columns = {"rung", "c128", "c1024"}})) end
c:summary()
