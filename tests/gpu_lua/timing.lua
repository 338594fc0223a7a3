-- timing.lua (GPU): events time device work (a kernel that spins a known time on the
-- global timer), on the default stream and on a stream; cuda.bench and k:bench return
-- {median, min, max, mean, stdev, n, samples} in milliseconds, sane for known work;
-- destroyed events raise.
local t = require "warplab.test"

assert(cuda.device().live, "needs a GPU")

local m = assert(cuda.compile{source = [[
#include <warplab/ids.cuh>
__global__ void spin(unsigned long long ns) {
  const unsigned long long t0 = warplab::global_timer();
  while (warplab::global_timer() - t0 < ns) {}
}
__global__ void empty() {}
]]})

-- The fields every timing table has, consistent with its samples.
local function sane(st, reps, lo, hi)
  t.eq({st.n, #st.samples}, {reps, reps})
  local s = {}
  for i, v in ipairs(st.samples) do s[i] = v end
  table.sort(s)
  t.eq({st.min, st.max}, {s[1], s[reps]})
  local median = reps % 2 == 1 and s[(reps + 1) // 2] or (s[reps // 2] + s[reps // 2 + 1]) / 2
  t.eq(st.median, median)
  local sum = 0
  for _, v in ipairs(s) do sum = sum + v end
  assert(math.abs(st.mean - sum / reps) < 1e-9, "mean")
  assert(st.stdev >= 0 and st.stdev <= st.max - st.min + 1e-9, "stdev " .. st.stdev)
  assert(st.min >= lo and st.max < hi, string.format("%g..%g ms outside [%g, %g)", st.min, st.max, lo, hi))
end

t.case("events time a 20 ms kernel", function()
  local e1, e2 = cuda.event(), cuda.event()
  t.eq(e1:record(), e1)
  m.spin:launch(1, 1, 20000000)
  e2:record()
  e2:synchronize()
  local ms = e1:elapsed(e2)
  assert(ms >= 19.5 and ms < 200, ms .. " ms")
  local s = cuda.stream()
  e1:record(s)
  m.spin{grid = 1, block = 1, stream = s, args = {5000000}}
  e2:record(s)
  ms = e1:elapsed(e2)
  assert(ms >= 4.5 and ms < 100, ms .. " ms on a stream")
  e2:free()
  e2:free()
  t.checkerror("attempt to use a destroyed event", e1.elapsed, e1, e2)
  t.checkerror("attempt to use a destroyed event", e2.record, e2)
  cuda.synchronize()
end)

t.case("cuda.bench: warmup + reps calls, timed by events", function()
  local calls = 0
  local st = cuda.bench(function() calls = calls + 1; m.spin:launch(1, 1, 1000000) end, {warmup = 2, reps = 10})
  t.eq(calls, 12)
  sane(st, 10, 0.95, 50)
  calls = 0
  st = cuda.bench(function() calls = calls + 1; m.empty:launch(1, 32) end)
  t.eq(calls, 105)  -- defaults: warmup 5, reps 100
  sane(st, 100, 0, 1)
  local s = cuda.stream()
  st = cuda.bench(function() m.spin{grid = 1, block = 1, stream = s, args = {1000000}} end, {reps = 3, stream = s})
  sane(st, 3, 0.95, 50)
end)

t.case("k:bench: the launch alone, checked once", function()
  sane(m.spin:bench{grid = 1, block = 1, args = {1000000}, warmup = 0, reps = 5}, 5, 0.95, 50)
  sane(m.empty:bench{grid = 4, block = 64}, 100, 0, 1)
  local s = cuda.stream()
  sane(m.spin:bench{grid = 1, block = 1, stream = s, args = {2000000}, reps = 2}, 2, 1.9, 50)
  t.checkerror("empty: block 32x64x1 = 2048 threads exceeds max_threads_per_block = 1024",
               m.empty.bench, m.empty, {grid = 1, block = {32, 64}})
  t.checkerror("spin expects 1 arguments (spin(unsigned long long)), got 0", m.spin.bench, m.spin, {grid = 1, block = 1})
end)

t.run{exit = true}
