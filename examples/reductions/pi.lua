-- pi.lua: the CUDA introduction's pi: the midpoint rule for the integral of 4 / (1 + x^2) on [0, 1], summed by two kernels.
-- Shows:  reduce_pi1 (kernels_src/reductions/pi.cu) sums f((i + 0.5) / num) per thread
--         over a grid stride and per block in dynamic shared memory, leaving one partial
--         per block; reduce_pi2, one block of `grid` threads, adds the partials and divides
--         by num. The kernel boundary is the only grid-wide barrier. Swept over num.
-- Expect: |pi_gpu - pi| <= gamma(L + 6) * M + num^-2 / 12 for every num, where M is the
--         midpoint sum (in double, here), num^-2 / 12 the midpoint rule's error, L the
--         additions on a term's path (per-thread terms + log2 block + log2 grid) and 6 the
--         roundings inside one term and the final division (docs/experiments-reductions.md).
-- Run:    warplab run examples/reductions/pi.lua [-p num=4194304] [-p grid=256] [-p block=256] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local progress = require "warplab.progress"
local ex = require "warplab.experiment"
local reduce = require "warplab.reduce"
local p = params{num = 1 << 22, grid = 256, block = 256, reps = 20, save = false}

local function pow2(v) return v >= 1 and v & (v - 1) == 0 end
if not pow2(p.grid) or p.grid > 1024 or not pow2(p.block) or p.block > 1024 then
  error(string.format("pi.lua: grid %d and block %d must be powers of two <= 1024 (reduce_pi2 runs one block "
                      .. "of grid threads, and both trees halve)", p.grid, p.block))
end
if p.num < 1 or p.num >= 1 << 23 then
  error(string.format("pi.lua: num %d must be from 1 to 2^23 - 1, so that i + 0.5 is exact in float", p.num))
end
local dev = cuda.device()
local m = assert(cuda.compile("reductions/pi.cu"))
local k1, k2 = m.reduce_pi1, m.reduce_pi2
print(k1)
print(k2)
local occ = k1:occupancy{block = p.block, shared = 4 * p.block}
print(string.format("reduce_pi1: %d blocks of %d, %d B dynamic shared each: %d blocks per SM (%s), %.0f %% occupancy",
                    p.grid, p.block, 4 * p.block, occ.blocks_per_sm, occ.limiter, 100 * occ.occupancy))

-- The sweep: num = 2^10 .. p.num by factors of 4, then p.num itself.
local nums = {}
for e = 10, 22, 2 do if (1 << e) < p.num then nums[#nums + 1] = 1 << e end end
nums[#nums + 1] = p.num
local threads = p.grid * p.block
local function levels(num)
  local L = (num + threads - 1) // threads -- the per-thread sum starts at 0: one add per term
  for _, v in ipairs{p.block, p.grid} do L = L + math.floor(math.log(v, 2) + 0.5) end
  return L
end
local rows = {}
for i, num in ipairs(nums) do
  rows[i] = {num, levels(num), string.format("%.2e", reduce.gamma(levels(num) + 6) * 3.2),
             string.format("%.2e", 1 / (12 * num * num))}
end
local pcols = {"num", "L", "rounding bound", "midpoint error"}
report.table(rows, {title = "predicted error bounds (M <= 3.2)", columns = pcols})
if p.save then print("saved " .. report.save("results/pi_predicted.csv", rows, {columns = pcols})) end
if ex.offline(dev, "computing pi", p.save and {"results/pi.svg", "results/pi.csv"}) then return end

local d_sum <close> = cuda.array("f32", p.grid)
local d_pi <close> = cuda.array("f32", 1)
local function gpu_pi(num)
  k1{grid = p.grid, block = p.block, shared = 4 * p.block, args = {d_sum, num}}
  k2{grid = 1, block = p.grid, shared = 4 * p.grid, args = {d_sum, num, d_pi}}
end
-- The midpoint sum in double (Lua), the same terms in the same definition.
local function midpoint(num)
  local s = 0.0
  for i = 0, num - 1 do
    local x = (i + 0.5) / num
    s = s + 4 / (1 + x * x)
  end
  return s / num
end

local c = check.new("pi")
local out, bad, bar = {}, {}, progress.new(#nums, "num sweep")
for i, num in ipairs(nums) do
  gpu_pi(num)
  local got, mid = d_pi[1], midpoint(num)
  local bound = reduce.gamma(levels(num) + 6) * mid + 1 / (12 * num * num) * 1.01
  local err = math.abs(got - math.pi)
  if err > bound then bad[#bad + 1] = num end
  out[i] = {num = num, pi = got, err = err, bound = bound, rounding = got - mid, midpoint = mid - math.pi}
  bar:step()
end
bar:done()
report.table(out, {title = "pi from the two kernels, against math.pi", columns = {"num", "pi", "err", "bound",
             "rounding", "midpoint"}, format = {pi = "%.9f", err = "%.2e", bound = "%.2e", rounding = "%.2e",
             midpoint = "%.2e"}})
print("rounding: pi_gpu - M (float sums); midpoint: M - pi (the rule itself, ~ num^-2 / 12)")
c:that(#bad == 0, "every num: |pi_gpu - pi| <= gamma(L + 6) * M + num^-2 / 12",
       #bad > 0 and ("outside at num = " .. table.concat(bad, ", ")) or (#nums .. " values of num"))
local last = out[#out]
c:that(last.err <= last.bound, string.format("num = %d: pi to %.1e", p.num, last.bound),
       string.format("pi_gpu = %.9f, off by %.2e", last.pi, last.err))
local st = cuda.bench(function() gpu_pi(p.num) end, {warmup = 2, reps = p.reps})
print(string.format("two kernels for num = %d: %.3f ms (median of %d), %.2f G terms/s", p.num, st.median, p.reps,
                    p.num / (st.median * 1e6)))
if p.save then
  local xs, e, b = {}, {}, {}
  for i, o in ipairs(out) do xs[i], e[i], b[i] = o.num, math.max(o.err, 1e-12), o.bound end
  print("saved " .. report.svg_lines({{name = "|pi_gpu - pi|", x = xs, y = e}, {name = "bound", x = xs, y = b}},
        "results/pi.svg", {title = "pi by the midpoint rule", xlabel = "num", ylabel = "error", logx = 2, logy = true}))
  print("saved " .. report.save("results/pi.csv", out, {columns = {"num", "pi", "err", "bound", "rounding", "midpoint"}}))
end
c:summary()
