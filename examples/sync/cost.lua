-- cost.lua: what one barrier costs at each level: __syncwarp, __syncthreads, a cluster's cluster.sync(), a cooperative grid.sync(), a kernel boundary, in one table.
-- Shows:  each barrier kernel of cost.cu runs `iters` barriers of its level in a loop and
--         times the loop inside the kernel (%globaltimer ns, clock64 cycles; the slowest
--         block counts); a kernel boundary is timed as back-to-back launches of an empty
--         kernel between two events. The loop alone is the baseline every row includes.
-- Expect: the more threads a barrier joins and the farther apart they are, the dearer:
--         __syncwarp < __syncthreads < cluster.sync() (SMs of one GPC) < grid.sync()
--         (every SM, through memory); a kernel boundary costs more than __syncthreads.
--         The hardware counters' barrier stall share: under 5 % for the loop alone, at
--         least 25 % of the warps' cycles for __syncthreads (the loop is little else).
-- Run:    warplab run examples/sync/cost.lua [-p block=256] [-p iters=100000] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local sync = require "warplab.sync"
local hw = require "warplab.counters"
local p = params{block = 256, iters = 100000, cluster_iters = 20000, grid_iters = 2000, launches = 2000, save = false}

local dev = cuda.device()
local m = assert(cuda.compile("sync/cost.cu"))
local c = check.new("cost")
local sms = dev.attr.multiprocessor_count
local clusters = tonumber(dev.cc:match("^(%d+)")) >= 9
local B = p.block
-- level, kernel, launch table, iterations, threads one barrier joins
local plan = {
  {"loop alone (baseline)", m.cost_loop, {grid = 1, block = B}, p.iters, 0},
  {"__syncwarp()", m.cost_syncwarp, {grid = 1, block = B}, p.iters, dev.attr.warp_size},
  {"__syncthreads()", m.cost_syncthreads, {grid = 1, block = B}, p.iters, B},
  {"__syncthreads() 1024", m.cost_syncthreads, {grid = 1, block = 1024}, p.iters, 1024},
  {"cluster.sync() x2", m.cost_cluster_sync, {grid = 2, block = B, cluster = 2}, p.cluster_iters, 2 * B},
  {"cluster.sync() x8", m.cost_cluster_sync, {grid = 8, block = B, cluster = 8}, p.cluster_iters, 8 * B},
  {"grid.sync() 1/SM", m.cost_grid_sync, {grid = sms, block = B, cooperative = true}, p.grid_iters, sms * B},
  {"kernel boundary 1/SM", m.empty_kernel, {grid = sms, block = B}, p.launches, sms * B},
}
local rows = {}
for i, e in ipairs(plan) do
  local ok, why = e[2]:check(e[3])
  local cfg = string.format("grid %d, block %d%s%s", e[3].grid, e[3].block, e[3].cluster and ", cluster " .. e[3].cluster or "",
                            e[3].cooperative and ", cooperative" or "")
  rows[i] = {e[1], e[2].name, cfg, e[4], ok and "ok" or why}
end
report.table(rows, {title = "plan (" .. dev.name .. ", " .. m.arch .. ") and launch validation", columns = {"level", "kernel", "launch", "iterations", "validation"}})
local refused = {}
for i, r in ipairs(rows) do
  if r[5] ~= "ok" and (clusters or not plan[i][3].cluster) then refused[#refused + 1] = r[1] .. ": " .. r[5] end
end
c:that(#refused == 0, "every planned launch passes validation (cluster rows need sm_90)", table.concat(refused, "; "))
local claims = {"stall_barrier (share of active warp cycles waiting at a block barrier): < 5 % for the loop alone, "
                .. ">= 25 % for __syncthreads at 256 and 1024 threads; every barrier kind's share printed"}
if ex.offline(dev, "timing the barriers", p.save and {"results/sync_cost.csv"}) then
  hw.witness(claims)
  return c:summary()
end

local out <close> = cuda.array("u64", 2 * sms)
local res = {}
for i, e in ipairs(plan) do
  local r = {level = e[1], threads = e[5], iters = e[4]}
  if e[3].cluster and not clusters then
    r.note = "needs sm_90"
  elseif e[2] == m.empty_kernel then
    local k, cfg = e[2], e[3]
    local st = cuda.bench(function() for _ = 1, e[4] do k:launch(cfg.grid, cfg.block) end end, {warmup = 1, reps = 5})
    r.ns = st.median * 1e6 / e[4]
    r.note = "events around " .. e[4] .. " launches"
  else
    local cfg = {grid = e[3].grid, block = e[3].block, cluster = e[3].cluster, cooperative = e[3].cooperative,
                 args = {e[4], out}}
    e[2](cfg) -- warm-up: loads the code
    out:zero()
    e[2](cfg)
    local o = out:get()
    local ns, cyc = 0, 0
    for b = 0, e[3].grid - 1 do ns, cyc = math.max(ns, o[2 * b + 1]), math.max(cyc, o[2 * b + 2]) end
    r.ns, r.cycles = ns / e[4], cyc / e[4]
  end
  res[i] = r
end
local ghz = res[3].cycles / res[3].ns -- the SM clock while it ran, from the __syncthreads loop
for _, r in ipairs(res) do
  if r.ns then
    r.per_barrier = sync.ns(r.ns)
    r.x_syncthreads = string.format("%.2f", r.ns / res[3].ns)
    if not r.cycles then r.cycles = r.ns * ghz end
  end
end
local cols = {"level", "threads", "iters", "per_barrier", "cycles", "x_syncthreads", "note"}
report.table(res, {title = string.format("one barrier at each level (block %d; SM clock %.2f GHz measured)", B, ghz),
                   columns = cols, format = {cycles = "%.1f"}})
print("per_barrier: the slowest block's loop time / iterations (%globaltimer), loop overhead included (first row); "
      .. "cycles: clock64 (for the kernel boundary: time x the measured clock)")
local function ns(i) return res[i].ns or math.huge end
c:that(ns(2) < ns(3), "__syncwarp is cheaper than __syncthreads", sync.ns(ns(2)) .. " < " .. sync.ns(ns(3)))
if clusters then
  c:that(ns(3) < ns(5), "__syncthreads is cheaper than a cluster barrier", sync.ns(ns(3)) .. " < " .. sync.ns(ns(5)))
  c:that(ns(6) < ns(7), "a cluster barrier (8 blocks) is cheaper than grid.sync()", sync.ns(ns(6)) .. " < " .. sync.ns(ns(7)))
else
  c:that(ns(3) < ns(7), "__syncthreads is cheaper than grid.sync()", sync.ns(ns(3)) .. " < " .. sync.ns(ns(7)))
end
c:that(ns(8) > ns(3), "a kernel boundary costs more than __syncthreads", sync.ns(ns(8)) .. " > " .. sync.ns(ns(3)))
print(string.format("grid.sync() against a kernel boundary on this GPU: %s vs %s (%s is cheaper here)", sync.ns(ns(7)),
      sync.ns(ns(8)), ns(7) < ns(8) and "grid.sync()" or "the kernel boundary"))
-- The second witness: each barrier loop once more, counted: where the warps' cycles went.
-- Cluster and cooperative launches are counted apart: a failure there is printed, not fatal.
if hw.witness(claims) then
  local function count(from, to)
    local list = {}
    for i = from, to do
      if not (plan[i][3].cluster and not clusters) then list[#list + 1] = i end
    end
    return list, hw.each(list, function(i)
      local e = plan[i]
      e[2]{grid = e[3].grid, block = e[3].block, cluster = e[3].cluster, cooperative = e[3].cooperative, args = {e[4], out}}
    end, {"sync"})
  end
  local srows, by = {}, {}
  local function add(list, rows)
    for j, i in ipairs(list) do
      by[i] = rows[j]
      srows[#srows + 1] = {plan[i][1], rows[j].stall_barrier, rows[j].stall_membar}
    end
  end
  add(count(1, 4))
  local ok, list, rows = pcall(count, 5, 7)
  if ok then add(list, rows) else print("counters of the cluster and grid barriers: " .. tostring(list)) end
  report.table(srows, {title = "hardware counters: share of active warp cycles stalled", columns = {"level",
               "at a barrier %", "at a memory fence %"}, format = {["at a barrier %"] = "%.1f", ["at a memory fence %"] = "%.1f"}})
  c:within(by[1].stall_barrier, 0, 5, "the loop alone: almost no barrier stall")
  c:within(by[3].stall_barrier, 25, 100, "__syncthreads (256 threads): warps wait at the barrier >= 25 % of their cycles")
  c:within(by[4].stall_barrier, 25, 100, "__syncthreads (1024 threads): >= 25 % of their cycles at the barrier")
end
if p.save then print("saved " .. report.save("results/sync_cost.csv", res, {columns = cols})) end
c:summary()
