-- graphs.lua: warplab's side of the graphs section of scripts/bench, measured as
-- bench/graphs_raw.cpp measures raw C++: N launches of bench/launch_kernels.cu's empty2
-- (1 block of 32, every check on) one by one against the same N captured once with
-- cuda.graph and replayed with g:launch(s) on a non-blocking stream, for each N of
-- `sizes`. Each figure is the best of `trials`:
--   graphs        wall µs per kernel: the N launches (or one replay) then a synchronization,
--                 averaged over max(5, 10000 / N) rounds;
--   graphs-host   µs per kernel of the launch calls only (cuda.clock around them);
--   graphs-build  µs for the whole graph: cuda.graph (capture + instantiate) and g:update
--                 (capture + update in place, another argument value).
-- Shows:  records "@ <section> <row> <N kernels> <µs>" (tab-separated) for bench/report.py.
-- Expect: the replay within 1.05x of raw C++ per kernel; cuda.graph within 1.2x of raw C++
--         capture + instantiate at 100 kernels (scripts/bench prints the ratios).
-- Run:    warplab run bench/graphs.lua [-p trials=5] [-p sizes=1,10,100,1000]
local p = require("warplab.params"){trials = 5, sizes = "1,10,100,1000"}
local m = assert(cuda.compile("launch_kernels.cu"))
local k = m:kernel("empty2", "int*, int")
local y = cuda.array("i32", 32)
local s = cuda.stream{non_blocking = true}

local function record(section, row, n, v) print(string.format("@\t%s\t%s\t%d kernels\t%.4f", section, row, n, v)) end
-- The best (smallest) of `trials` results of f().
local function best_of(f)
  local b = math.huge
  for _ = 1, p.trials do b = math.min(b, f()) end
  return b
end
-- Best of `trials`: rounds of (call, synchronize) -> wall µs per kernel, and the smallest
-- host µs per kernel of the calls alone.
local function per_kernel(n, call, sync)
  local rounds, host = math.max(5, 10000 // n), math.huge
  local wall = best_of(function()
    local calls, t0 = 0, cuda.clock()
    for _ = 1, rounds do
      local c0 = cuda.clock()
      call()
      calls = calls + (cuda.clock() - c0)
      sync()
    end
    host = math.min(host, calls * 1000 / rounds / n)
    return (cuda.clock() - t0) * 1000 / rounds / n
  end)
  return wall, host
end

local sizes = {}
for v in tostring(p.sizes):gmatch("[^,]+") do sizes[#sizes + 1] = assert(math.tointeger(tonumber(v)), "sizes: " .. v) end
for _ = 1, 1000 do k:launch(1, 32, y, 0) end -- loads the code, warms the path
cuda.synchronize()
for _, n in ipairs(sizes) do
  local function launches(arg) for _ = 1, n do k:launch(1, 32, y, arg) end end
  local wall, host = per_kernel(n, function() launches(0) end, cuda.synchronize)
  record("graphs", "warplab stream launches", n, wall)
  record("graphs-host", "warplab stream launches", n, host)
  record("graphs-build", "warplab cuda.graph (capture + instantiate)", n, best_of(function()
    local t0 = cuda.clock()
    local g = cuda.graph(function() launches(7) end)
    local us = (cuda.clock() - t0) * 1000
    g:free() -- outside the timed part, as raw C++ destroys its executable
    return us
  end))
  local g = cuda.graph(function() launches(7) end)
  assert(g.nodes == n, "the captured graph has " .. g.nodes .. " nodes, not " .. n)
  g:launch(s) -- uploads the graph
  s:synchronize()
  wall, host = per_kernel(n, function() g:launch(s) end, function() s:synchronize() end)
  record("graphs", "warplab graph replay", n, wall)
  record("graphs-host", "warplab graph replay", n, host)
  local arg = 8
  record("graphs-build", "warplab g:update (capture + update)", n, best_of(function()
    local t0 = cuda.clock()
    local how = g:update(function() launches(arg) end)
    local us = (cuda.clock() - t0) * 1000
    assert(how == "updated", "g:update did not update in place: " .. tostring(how))
    arg = arg + 1
    return us
  end))
  g:launch(s) -- the updated graph still runs
  s:synchronize()
  g:free()
end
