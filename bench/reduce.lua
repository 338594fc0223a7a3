-- reduce.lua: warplab's fastest sum (reduce_last_block: one launch, float4 loads, the last
-- block finishes) over n floats in [0, 1), timed as bench/cub_reduce.cu times CUB: events
-- around each call, warm-up first, the median; with a streaming read and a
-- device-to-device copy measured in the same run. Exits 1 if the sum is off its bound.
-- Unless a configuration option is given (or -p tune=false), it first times a few
-- configurations on this GPU (below: the default, what the tuning sweep found best on an
-- H100, and neighbours that keep more loads in flight or use fewer, larger blocks), 20
-- calls each, and measures the fastest.
-- Shows:  lines "warplab <ms> <GB/s>", "read <ms> <GB/s>", "copy <ms> <GB/s (read + write)>";
--         on stderr the configuration measured ("reduce.lua: ... blocks of ...") and, tuned,
--         each candidate's GB/s.
-- Expect: warplab >= cub in GB/s on the same GPU (scripts/bench prints them side by side).
-- Run:    warplab run bench/reduce.lua [-p n=268435456] [-p reps=100] [-p tune=false] [-p unroll=4] [-p acc=0] [-p load=3] [-p grid=0] [-p block=256] [-p min_blocks=0] [-p layout=1] [-p finish=1]
local params = require "warplab.params"
local reduce = require "warplab.reduce"
local bw = require "warplab.bandwidth"
local p = params{n = 1 << 28, reps = 100, unroll = 4, acc = 0, load = 3, grid = 0, block = 256, min_blocks = 0, layout = 1,
                 finish = 1, seed = 1, tune = true}

local v = reduce.versions[9]
assert(v.kernel == "reduce_last_block")
local dev = cuda.device()

-- A runner for configuration c; c.waves (tuning only) sets the grid to that many full
-- waves of resident blocks.
local function runner(c)
  local r = reduce.runner{block = c.block, grid = c.grid, unroll = c.unroll, acc = c.acc, load = c.load,
                          min_blocks = c.min_blocks, layout = c.layout, finish = c.finish}
  if c.waves then r.grid = c.waves * r.resident end
  return r
end
local function describe(r, c)
  local k = r.k.reduce_last_block
  return string.format("%d blocks of %d, layout %d, unroll %d, acc %d, load %d, min_blocks %d, finish %d: %d regs, "
                       .. "%d B spilled", r.grid, c.block, c.layout, c.unroll, r.acc, c.load, c.min_blocks or 0, c.finish,
                       k.regs, k.spill_bytes)
end

local given = {block = p.block, grid = p.grid, unroll = p.unroll, acc = p.acc, load = p.load, min_blocks = p.min_blocks,
               layout = p.layout, finish = p.finish}
-- The candidates: the options given (the default), then what the sweep (scripts/reduce-sweep)
-- found fastest on an H100 (one accumulator, 512 threads, the finish over 8 partials a
-- thread, two waves) and its neighbours.
local candidates = {given}
-- Tuning is the default only when no configuration option was given (-p tune=true tunes
-- anyway, the given configuration first).
local given_params, explicit = rawget(_G, "WARPLAB_PARAMS") or {}, false
for _, key in ipairs{"unroll", "acc", "load", "grid", "block", "min_blocks", "layout", "finish"} do
  if given_params[key] ~= nil then explicit = true end
end
if p.tune and (not explicit or given_params.tune ~= nil) then
  local function with(t)
    local c = {min_blocks = 0, grid = 0, layout = 1, load = 3}
    for key, val in pairs(t) do c[key] = val end
    return c
  end
  candidates[#candidates + 1] = with{block = 512, unroll = 4, acc = 1, finish = 8, waves = 2}
  candidates[#candidates + 1] = with{block = 512, unroll = 4, acc = 1, finish = 8, waves = 1}
  candidates[#candidates + 1] = with{block = 256, unroll = 8, acc = 0, finish = 1}
  candidates[#candidates + 1] = with{block = 256, unroll = 4, acc = 0, finish = 1, waves = 2}
  candidates[#candidates + 1] = with{block = 512, unroll = 8, acc = 2, finish = 8, waves = 2}
  candidates[#candidates + 1] = with{block = 512, unroll = 4, acc = 1, finish = 8, waves = 2, load = 0}
end

if not dev.live then  -- every candidate compiled and described, nothing timed
  for i, cand in ipairs(candidates) do
    if #candidates > 1 then io.stderr:write(string.format("reduce.lua: candidate %d: %s\n", i, describe(runner(cand), cand))) end
  end
  io.stderr:write(string.format("reduce.lua: %s, %s\n", dev.name, describe(runner(given), given)))
  print("skipped: no GPU")
  return
end
local x <close> = cuda.array("f32", p.n):random{seed = p.seed}
local r, c = runner(given), given
if #candidates > 1 then
  local best
  for i, cand in ipairs(candidates) do
    local ri = i == 1 and r or runner(cand)
    ri:alloc(1024)
    local ms = cuda.bench(function() ri:launch(v, x, p.n) end, {warmup = 5, reps = 20}).median
    io.stderr:write(string.format("reduce.lua: candidate %d: %.1f GB/s (%s)\n", i, bw.gbs(4 * p.n, ms), describe(ri, cand)))
    if not best or ms < best then best, r, c = ms, ri, cand end
  end
else
  r:alloc(1024)
end
io.stderr:write(string.format("reduce.lua: %s, %s%s\n", dev.name, describe(r, c),
                              #candidates > 1 and " (the fastest of " .. #candidates .. " tried)" or ""))
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
