-- ladder.lua: the barrier ladder on Hopper, in cycles: warp, block, mbarrier, cluster of 2 to 16, grid, kernel; and what a split arrive/wait buys.
-- Shows:  each rung's loop kernel (cost.cu, ladder.cu) runs `iters` barriers and records
--         clock64 cycles per barrier, the slowest block counting, at 128 and 1024 threads
--         per block: __syncwarp, __syncthreads, an mbarrier's arrive_and_wait
--         (cuda::barrier<thread_scope_block>), cluster.sync() for clusters of 2, 4, 8 and
--         16 blocks (16 with the non-portable opt-in warplab makes), a cooperative
--         grid.sync() with one block per SM, and back-to-back empty kernels (events x the
--         clock). Then `work` dependent multiply-adds per round (straight-line code),
--         after an arrive_and_wait or between a split arrive() and wait(); then one
--         dependent load from the block's own shared memory against one from its cluster
--         neighbour's (DSMEM).
-- Expect: __syncwarp < __syncthreads < mbarrier < cluster.sync() < grid.sync() < a kernel
--         boundary at both block sizes; the split round at least 5% cheaper than
--         barrier-then-work, and saving more at 1024 threads than at 128 (what a split hides
--         is the wait for the other warps: 4 warps arrive almost together, 32 do not); a
--         DSMEM load several times a local one.
-- Run:    warplab run examples/sync/ladder.lua [-p iters=100000] [-p work=32] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local sync = require "warplab.sync"
local p = params{iters = 100000, cluster_iters = 20000, grid_iters = 2000, launches = 2000, work = 32,
                 steps = 20000, save = false}

for _, k in ipairs{"work", "iters", "cluster_iters", "grid_iters", "launches", "steps"} do
  local lo, hi = k == "iters" and 10 or 1, k == "work" and 256 or 0xffffffff
  if p[k] < lo or p[k] > hi then
    warplab.raise("parameter", string.format("params: -p %s=%d: give %d to %d", k, p[k], lo, hi), 0)
  end
end

local dev = cuda.device()
local sms = dev.attr.multiprocessor_count -- before the compiles: a profile without it stops here
local cost = assert(cuda.compile("sync/cost.cu"))
local lad = assert(cuda.compile{file = "sync/ladder.cu", defines = {WL_WORK = p.work}})
local c = check.new("ladder")
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
-- What the split buys: the same work after an arrive_and_wait (in sequence: about work +
-- barrier per round), or between arrive() and wait() (the barrier completes while the work
-- runs: at best the larger of the two). The saving can be at most the smaller of the two.
local srows = {}
for _, B in ipairs(SIZES) do
  local cfg, n = {grid = 1, block = B}, p.iters // 10
  local function per_round(k) return select(2, sync.loop(k, cfg, {n, out}, n, out)) end
  local w, b = per_round(lad.work_alone), per_round(lad.mbar_wait)
  local tw, sp = per_round(lad.mbar_then_work), per_round(lad.mbar_split)
  local saved, most = tw - sp, math.min(w, b)
  srows[#srows + 1] = {B, w, b, tw, sp, saved, most}
  c:that(most > 0 and tw > 0 and saved >= tw / 20,
         string.format("at %d threads the split round is at least 5%% cheaper than barrier then work", B),
         string.format("measured: split %.0f vs barrier then work %.0f cycles per round, saved %.0f (%.0f%%); "
                         .. "expected: split near max(work %.0f, barrier %.0f) = %.0f, then-work near their sum %.0f, "
                         .. "saved up to %.0f", sp, tw, saved, tw > 0 and 100 * saved / tw or 0, w, b, math.max(w, b),
                       w + b, most))
end
-- What the split hides is the wait for the other warps' arrivals, not the arrive and the
-- wait's own instructions: the more warps, the more to hide.
if #srows == 2 then
  local s1, s2 = srows[1], srows[2]
  c:that(s2[6] > s1[6], string.format("the split saves more at %d threads than at %d (more warps to wait for)",
                                      s2[1], s1[1]),
         string.format("saved %.0f vs %.0f cycles per round", s2[6], s1[6]))
end
report.table(srows, {title = "cycles per round: " .. p.work .. " dependent multiply-adds and one mbarrier",
                     columns = {"threads", "work alone", "barrier alone", "barrier then work", "split", "saved",
                                "at most"},
                     format = {["work alone"] = "%.0f", ["barrier alone"] = "%.0f", ["barrier then work"] = "%.0f",
                               split = "%.0f", saved = "%.0f", ["at most"] = "%.0f"}})
-- One dependent load: the block's own shared memory against the neighbour's, through DSMEM.
if not no_cluster then
  local cfg = {grid = 2, block = 32, cluster = 2}
  local _, local_c = sync.loop(lad.chase_local, cfg, {p.steps, out}, p.steps, out)
  local _, remote_c = sync.loop(lad.chase_remote, cfg, {p.steps, out}, p.steps, out)
  print(string.format("one dependent shared-memory load: %.1f cycles in the block's own, %.1f from the neighbour's (DSMEM): %.1fx",
        local_c, remote_c, remote_c / local_c))
  c:that(local_c > 0 and remote_c >= 2 * local_c, "a load from a neighbour's shared memory (DSMEM) costs >= 2x a local one",
         string.format("%.1f vs %.1f cycles", remote_c, local_c))
end
if p.save then print("saved " .. report.save("results/sync_ladder.csv", res, {columns = {"rung", "c128", "c1024"}})) end
c:summary()
