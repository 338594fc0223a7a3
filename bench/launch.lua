-- launch.lua: warplab's launch path, measured as bench/launch_raw.cpp measures plain
-- cuLaunchKernel: bench/launch_kernels.cu's empty kernels with 0, 2 and 4 arguments
-- (nil/an array, int, float, int), launched with every check on, in both call forms:
--   k:launch(1, 32, ...)  and  k{grid = 1, block = 32, args = {...}}  (the table reused).
-- host: batches of `batch` launches then cuda.synchronize(); the host time of the launch
-- calls only (cuda.clock), per launch, the median over the batches. sustained: `sustained`
-- back-to-back launches and one synchronization, wall time per launch.
-- Shows:  records "@ <section> <row> <column> <µs>" (tab-separated) for bench/report.py.
-- Expect: host µs per launch within 5 % of raw C++ (scripts/bench prints both and the ratio).
-- Run:    warplab run bench/launch.lua [-p batches=200] [-p batch=64] [-p sustained=20000]
local p = require("warplab.params"){batches = 200, batch = 64, sustained = 20000}
local m = assert(cuda.compile("launch_kernels.cu"))
local k0 = m:kernel("empty0", "")
local k2 = m:kernel("empty2", "int*, int")
local k4 = m:kernel("empty4", "float*, int, float, int")
local y, x = cuda.array("i32", 32), cuda.array("f32", 32)
local t0 = {grid = 1, block = 32}
local t2 = {grid = 1, block = 32, args = {y, 32}}
local t4 = {grid = 1, block = 32, args = {x, 32, 2.0, 7}}

-- Each run(n) launches n times; the loops are written out so each form is measured bare.
local rows = {
  {"warplab k:launch(...)", {
    function(n) for _ = 1, n do k0:launch(1, 32) end end,
    function(n) for _ = 1, n do k2:launch(1, 32, y, 32) end end,
    function(n) for _ = 1, n do k4:launch(1, 32, x, 32, 2.0, 7) end end}},
  {"warplab k{...}", {
    function(n) for _ = 1, n do k0(t0) end end,
    function(n) for _ = 1, n do k2(t2) end end,
    function(n) for _ = 1, n do k4(t4) end end}},
}

local function median(s)
  table.sort(s)
  local h = #s // 2
  return #s % 2 == 1 and s[h + 1] or (s[h] + s[h + 1]) / 2
end

local function host_us(run)
  local per = {}
  for b = 1, p.batches do
    local start = cuda.clock()
    run(p.batch)
    per[b] = (cuda.clock() - start) * 1000 / p.batch
    cuda.synchronize()
  end
  return median(per)
end

local function sustained_us(run)
  local start = cuda.clock()
  run(p.sustained)
  cuda.synchronize()
  return (cuda.clock() - start) * 1000 / p.sustained
end

for _, row in ipairs(rows) do
  for i, run in ipairs(row[2]) do
    local nargs = 2 * (i - 1)
    run(1000)  -- loads the code, warms the path
    cuda.synchronize()
    print(string.format("@\tlaunch\t%s\t%d args\t%.4f", row[1], nargs, host_us(run)))
    print(string.format("@\tsustained\t%s\t%d args\t%.4f", row[1], nargs, sustained_us(run)))
  end
end
