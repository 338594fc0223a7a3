-- graphs.lua: a CUDA graph replays many small kernels for the price of one launch call: what it costs per kernel next to launching them one by one.
-- Shows:  N = 1, 10, 100, 1000 launches of add_one (kernels_src/concurrency/graphs.cu, one
--         block of 32 threads), launched one by one (k:launch, then cuda.synchronize) and
--         captured once with cuda.graph and replayed (g:launch, then cuda.synchronize):
--         wall µs per kernel (host clock, best of `trials`), the capture + instantiate of
--         cuda.graph and the update in place of g:update, in µs.
-- Expect: a capture records without running (x unchanged); each replay adds N to x; an
--         update that changes an argument is done in place ("updated"), one that adds a
--         launch instantiates anew ("the topology changed"); replay costs less per kernel
--         than one-by-one launches at N = 1000, and the script says from which N on.
-- Run:    warplab run examples/concurrency/graphs.lua [-p trials=5] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local p = params{trials = 5, save = false}

local dev = cuda.device()
local k = assert(cuda.compile("concurrency/graphs.cu")).add_one
local c = check.new("graphs")
local SIZES = {1, 10, 100, 1000}
local plan = {}
for i, n in ipairs(SIZES) do plan[i] = {n, math.max(5, 2000 // n), n .. (n == 1 and " node" or " nodes")} end
report.table(plan, {title = "add_one " .. tostring(k.regs or "?") .. " regs: launches per round, rounds per trial, the graph",
                    columns = {"N", "rounds", "graph"}})
c:that(k:check{grid = 1, block = 32, args = {cuda.array("i32", 32), 1}}, "add_one's launch passes the checks (offline too)")
if ex.offline(dev, "launching and capturing", p.save and {"results/graphs.csv"}) then
  print("it would check: replay adds N; update in place; a new launch re-instantiates; replay cheaper per kernel at N = 1000")
  return c:summary()
end

local x <close> = cuda.array("i32", 32):zero()
local function launches(n, step) for _ = 1, n do k:launch(1, 32, x, step) end end
-- Best of `trials` of `rounds` rounds of fn then a synchronization: µs per kernel.
local function per_kernel(n, rounds, fn)
  local best = math.huge
  for _ = 1, p.trials do
    local t0 = cuda.clock()
    for _ = 1, rounds do
      fn()
      cuda.synchronize()
    end
    best = math.min(best, (cuda.clock() - t0) * 1000 / (rounds * n))
  end
  return best
end

local rows = {}
for i, n in ipairs(SIZES) do
  local rounds = math.max(5, 2000 // n)
  launches(n, 1) -- loads the code, warms the path
  cuda.synchronize()
  local one = per_kernel(n, rounds, function() launches(n, 1) end)
  x:zero()
  local t0 = cuda.clock()
  local g <close> = cuda.graph(function() launches(n, 1) end)
  local build = (cuda.clock() - t0) * 1000
  c:eq({x[1], g.nodes}, {0, n}, "N = " .. n .. ": the capture recorded " .. n .. " launches and ran none")
  g:launch()
  cuda.synchronize()
  c:eq(x[1], n, "N = " .. n .. ": one replay adds N")
  local replay = per_kernel(n, rounds, function() g:launch() end)
  t0 = cuda.clock()
  local how = g:update(function() launches(n, 2) end)
  local update = (cuda.clock() - t0) * 1000
  c:eq(how, "updated", "N = " .. n .. ": another argument value is updated in place")
  x:zero()
  g:launch()
  cuda.synchronize()
  c:eq(x[1], 2 * n, "N = " .. n .. ": the updated graph adds 2N")
  rows[i] = {n, one, replay, one / replay, build, update}
end

local g <close> = cuda.graph(function() launches(10, 1) end)
local how, why = g:update(function() launches(11, 1) end)
c:eq({how, why}, {"reinstantiated", "the topology changed (10 nodes -> 11)"},
     "one more launch is a new topology: instantiated again, and g:update says why")

local from
for i = #rows, 1, -1 do
  if rows[i][3] < rows[i][2] then from = rows[i][1] else break end
end
report.table(rows, {title = "µs per kernel on " .. dev.name .. " (wall, best of " .. p.trials .. "); the graph's build and update in µs",
                    columns = {"N", "one by one", "replay", "gain", "capture + instantiate", "update"},
                    format = {["one by one"] = "%.3f", replay = "%.3f", gain = "%.2f x", ["capture + instantiate"] = "%.1f",
                              update = "%.1f"}})
c:that(rows[#rows][3] < rows[#rows][2], "at N = 1000 a replay costs less per kernel than launching one by one",
       string.format("%.3f against %.3f µs", rows[#rows][3], rows[#rows][2]))
print(from and string.format("replay is cheaper per kernel from N = %d on", from)
      or "replay was not cheaper per kernel at any N measured")
if p.save then
  print("saved " .. report.save("results/graphs.csv", rows,
        {columns = {"N", "one_by_one_us", "replay_us", "gain", "build_us", "update_us"}}))
end
c:summary()
