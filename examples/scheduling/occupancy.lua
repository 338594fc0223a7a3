-- occupancy.lua: block size x registers: predicted occupancy next to a latency-bound kernel's time.
-- Shows:  the chase kernel (latency_chain.cu) makes every warp wait one L2 latency per
--         step, so its speed is set by how many warps each SM holds at once. Four variants
--         keep 4, 24, 48 or 112 values live (more registers per thread); for each block
--         size the calculator predicts occupancy, and the same number of warps is timed.
-- Expect: throughput rises with predicted occupancy: Spearman rank correlation >= 0.6
--         over all configurations, and the top quarter by occupancy at least 1.5 x the
--         throughput of the bottom quarter (when its occupancy is at least 2 x). The
--         hardware counters' achieved occupancy, counted for a few configurations, is at
--         most the prediction and at least 70 % of it (8 waves of equal warps: short tails).
-- Run:    warplab run examples/scheduling/occupancy.lua [-p step=32] [-p reps=3] [-p save=true]
--         (save: the predicted heatmap and table offline too; the measured sweep on a GPU)
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local stats = require "warplab.stats"
local ex = require "warplab.experiment"
local progress = require "warplab.progress"
local hw = require "warplab.counters"
local p = params{step = 32, steps = 336, waves = 8, reps = 3, save = false}

local dev = cuda.device()
local a = dev.attr
local ws = a.warp_size
local sms = dev.live and a.multiprocessor_count -- the GPU part only (--profile sm_86 has no SM count)
local variants = {}
for i, n in ipairs{4, 24, 48, 112} do
  local m = assert(cuda.compile{file = "scheduling/latency_chain.cu", defines = {NACC = n}})
  variants[i] = {nacc = n, k = m.chase, init = m.chain_init, name = n .. " live, " .. m.chase.regs .. " regs"}
  print(string.format("NACC = %3d: %s", n, tostring(m.chase)))
end
local sizes = {}
for b = p.step, math.min(1024, a.max_threads_per_block), p.step do sizes[#sizes + 1] = b end

-- Predictions (offline too): occupancy per variant and block size; a block size above the
-- kernel's max threads cannot launch at all (false in the grid: hatched, not 0 %).
local CANNOT = "cannot launch"
local occ_grid, names = {}, {}
for vi, v in ipairs(variants) do
  v.occ, occ_grid[vi], names[vi] = {}, {}, v.name
  for si, b in ipairs(sizes) do
    v.occ[si] = v.k:occupancy{block = b}
    occ_grid[vi][si] = not v.occ[si].reason and 100 * v.occ[si].occupancy
  end
end
local size_labels = {}
for i, b in ipairs(sizes) do size_labels[i] = b end
local heat_svg = p.save and "results/occupancy_predicted.svg" or nil -- predictions: saved offline too
report.heatmap(occ_grid, {title = "predicted occupancy %, block size left to right (" .. sizes[1] .. ".."
                          .. sizes[#sizes] .. ")", labels = {rows = names, cols = size_labels}, min = 0, max = 100,
                          xlabel = "threads per block", legend = "occupancy %", excluded = CANNOT, svg = heat_svg})
local function table_rows(with_time)
  local rows = {}
  for si, b in ipairs(sizes) do
    local r = {b}
    for _, v in ipairs(variants) do
      r[#r + 1] = v.occ[si].reason and CANNOT or string.format("%.0f %%", 100 * v.occ[si].occupancy)
      if with_time then r[#r + 1] = v.ms[si] and string.format("%.3f", v.ms[si]) or "-" end
    end
    rows[si] = r
  end
  return rows
end
local cols = {"block"}
for _, v in ipairs(variants) do cols[#cols + 1] = v.name end
if p.save then
  print("saved " .. heat_svg)
  local prows = {} -- occupancy 0..1 per block size (rows) and variant (columns), or "cannot launch"
  for si, b in ipairs(sizes) do
    prows[si] = {b}
    for vi = 1, #variants do prows[si][vi + 1] = occ_grid[vi][si] and occ_grid[vi][si] / 100 or CANNOT end
  end
  print("saved " .. report.save("results/occupancy_predicted.csv", prows, {columns = cols}))
end
local claims = {"achieved_occupancy of each variant at blocks of 64, 256 and 1024 threads (where they fit): "
                .. "at most the predicted occupancy + 2 points, at least 70 % of it"}
if ex.offline(dev, "timing the latency-bound kernel", p.save and {"results/occupancy_sweep.svg",
              "results/occupancy_sweep.csv"}) then
  report.table(table_rows(false), {title = "predicted occupancy", columns = cols})
  hw.witness(claims)
  return
end

-- The table: the largest power of two entries filling at most half the L2, so the chain
-- stays in L2 (one L2 latency per step) whatever the GPU.
local entries = 1 << 16
while entries * 16 <= a.l2_cache_size do entries = entries * 2 end
local next_tab <close> = cuda.array("u32", entries)
variants[1].init:launch(4 * sms, 256, next_tab, entries, 0x9E3779B5, 12345)
local nominal = p.waves * sms * (a.max_threads_per_multiprocessor // ws) -- warps per run
local out <close> = cuda.array("u32", nominal * ws + 1024)
local occs, thr, hi, lo = {}, {}, {}, {}
local bar <close> = progress.new(#variants * #sizes, "timing")
for _, v in ipairs(variants) do
  v.ms, v.thr = {}, {}
  local rounds = p.steps // v.nacc
  for si, b in ipairs(sizes) do
    if v.occ[si].blocks_per_sm > 0 then
      local grid = (nominal * ws + b - 1) // b
      local warps = grid * b // ws
      local t = v.k:bench{grid = grid, block = b, args = {next_tab, out, entries, rounds},
                          warmup = 1, reps = p.reps}.median
      -- Scaled to the nominal work, so every configuration is the same job.
      v.ms[si] = t * (nominal / warps) * (p.steps / (rounds * v.nacc))
      v.thr[si] = warps * rounds * v.nacc / (t * 1e6) -- warp-loads per ns
      occs[#occs + 1], thr[#thr + 1] = v.occ[si].occupancy, v.thr[si]
    end
    bar:step()
  end
end
bar:done()
local ccols = {"block"}
for _, v in ipairs(variants) do ccols[#ccols + 1] = v.k.regs .. " regs"; ccols[#ccols + 1] = "ms" end
report.table(table_rows(true), {title = string.format("occupancy and time for %d warps x %d dependent loads",
             nominal, p.steps), columns = ccols})
local tgrid = {}
for vi, v in ipairs(variants) do
  tgrid[vi] = {}
  for si = 1, #sizes do tgrid[vi][si] = v.thr[si] end
end
report.heatmap(tgrid, {title = "measured throughput (warp-loads per ns; ?? = does not fit)",
                       labels = {rows = names, cols = size_labels}})

local c = check.new("occupancy")
local rho = ex.spearman(occs, thr)
c:that(rho >= 0.6, "throughput rises with predicted occupancy (Spearman rank correlation >= 0.6)",
       string.format("rho = %.3f over %d configurations", rho, #occs))
-- The lowest- and highest-occupancy quarters of the configurations, compared by mean.
local idx = {}
for i = 1, #occs do idx[i] = i end
table.sort(idx, function(x, y) return occs[x] < occs[y] end)
local q = math.max(1, #idx // 4)
local ohi, olo = {}, {}
for j = 1, q do
  lo[j], olo[j] = thr[idx[j]], occs[idx[j]]
  hi[j], ohi[j] = thr[idx[#idx + 1 - j]], occs[idx[#idx + 1 - j]]
end
local ratio, oratio = stats.mean(hi) / stats.mean(lo), stats.mean(ohi) / stats.mean(olo)
c:that(oratio < 2 or ratio >= 1.5, "the top quarter by occupancy runs >= 1.5 x the throughput of the bottom quarter",
       string.format("%.2f x, at %.2f x the occupancy (mean %.0f %% vs %.0f %%, %d configurations each)",
                     ratio, oratio, 100 * stats.mean(ohi), 100 * stats.mean(olo), q))
-- The second witness: a few configurations once more, counted: the warps the SMs held on
-- average while active, next to the calculator's prediction.
if hw.witness(claims) then
  local picks = {}
  for _, v in ipairs(variants) do
    for si, b in ipairs(sizes) do
      if (b == 64 or b == 256 or b == 1024) and v.occ[si].blocks_per_sm > 0 then
        picks[#picks + 1] = {v = v, b = b, want = 100 * v.occ[si].occupancy}
      end
    end
  end
  local rows = hw.each(picks, function(pk)
    pk.v.k{grid = (nominal * ws + pk.b - 1) // pk.b, block = pk.b, args = {next_tab, out, entries, p.steps // pk.v.nacc}}
  end, {"achieved_occupancy"})
  local trows, off = {}, {}
  for i, pk in ipairs(picks) do
    local got = rows[i].achieved_occupancy
    trows[i] = {pk.v.name, pk.b, string.format("%.1f %%", pk.want), string.format("%.1f %%", got)}
    if got > pk.want + 2 or got < 0.7 * pk.want then off[#off + 1] = pk.v.name .. " at " .. pk.b end
  end
  report.table(trows, {title = "achieved occupancy (hardware counters) next to the prediction",
                       columns = {"variant", "block", "predicted", "achieved"}})
  c:that(#off == 0, "achieved occupancy is at most the prediction and at least 70 % of it, in "
         .. #picks .. " configurations", #off > 0 and ("not at " .. table.concat(off, ", ")) or "")
end
if p.save then
  local series, csv = {}, {}
  local best = stats.max(thr)
  for _, v in ipairs(variants) do
    local oy, ty = {}, {}
    for si = 1, #sizes do oy[si] = v.occ[si].occupancy; ty[si] = v.thr[si] and v.thr[si] / best end
    series[#series + 1] = {name = v.name .. ": occupancy", x = sizes, y = oy}
    series[#series + 1] = {name = v.name .. ": throughput / best", x = sizes, y = ty}
    for si, b in ipairs(sizes) do
      csv[#csv + 1] = {v.nacc, v.k.regs, b, v.occ[si].blocks_per_sm, v.occ[si].occupancy, v.ms[si], v.thr[si]}
    end
  end
  print("saved " .. report.svg_lines(series, "results/occupancy_sweep.svg", {title = "predicted occupancy and "
        .. "measured throughput", xlabel = "threads per block", ylabel = "fraction"}))
  print("saved " .. report.save("results/occupancy_sweep.csv", csv, {columns = {"nacc", "regs", "block",
        "blocks_per_sm", "occupancy", "ms", "loads_per_ns"}}))
end
c:summary()
