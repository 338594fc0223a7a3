-- residency.lua: registers, shared memory and block size decide how many blocks share an SM.
-- Shows:  one kernel (residency.cu) in variants that cost more registers (live floats,
--         __launch_bounds__, max_registers), more static or dynamic shared memory, or use
--         bigger or smaller blocks; for each, the blocks seen at once on one SM (as in
--         waves.lua) next to the occupancy calculator's prediction and its limiting
--         resource. Then register pressure pushed until spills appear, and what they cost.
-- Expect: measured = predicted for every variant, each limited by the resource it
--         changed; no spills uncapped, spills at 32 registers, and a slowdown with them.
--         The hardware counters' achieved occupancy of one full wave of each variant is
--         the predicted occupancy, within 10 %.
-- Run:    warplab run examples/scheduling/residency.lua [-p block=256] [-p iters=1000] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local progress = require "warplab.progress"
local hw = require "warplab.counters"
local p = params{block = 256, spin_us = 1000, iters = 1000, reps = 5, save = false}

local dev = cuda.device()
local a = dev.attr
local sms = dev.live and a.multiprocessor_count -- the GPU part only (--profile sm_86 has no SM count)
-- Sizes derived from the device: half the SM's shared memory (less a margin for the
-- per-block reserve) as dynamic shared, so two blocks fit; __launch_bounds__ asking for
-- half the SM's threads, which caps registers per thread at 65536 / that many (64 where an
-- SM holds 2048 threads: below the ~128 that 120 live floats want).
local dyn = (a.max_shared_memory_per_multiprocessor // 2) // 1024 * 1024 - 2048
local min_blocks = math.max(1, a.max_threads_per_multiprocessor // p.block // 2)
local variants = {
  {"baseline (4 live floats)"},
  {"blocks of " .. math.min(1024, a.max_threads_per_block), block = math.min(1024, a.max_threads_per_block), want = "warps"},
  {"blocks of 32", block = 32, want = "blocks"},
  {"120 live floats", nacc = 120, want = "registers"},
  {"120 + __launch_bounds__(" .. p.block .. ", " .. min_blocks .. ")", nacc = 120, bounds = {p.block, min_blocks}, want = "registers"},
  {"120 + max_registers = 32", nacc = 120, max_registers = 32},
  {"40 KiB static shared", smem = 40 * 1024, want = "shared memory"},
  {(dyn // 1024) .. " KiB dynamic shared", shared = dyn, want = "shared memory"},
}
local rows = {}
for i, v in ipairs(variants) do
  v.block = v.block or p.block
  v.k = ex.residency_kernel{nacc = v.nacc, smem = v.smem, max_registers = v.max_registers, bounds = v.bounds}
  v.occ = v.k:occupancy{block = v.block, shared = v.shared or 0}
  rows[i] = {v[1], v.block, v.k.regs, v.k.shared_bytes, v.shared or 0, v.k.spill_bytes,
             v.occ.blocks_per_sm, v.occ.limiter, string.format("%.0f %%", 100 * v.occ.occupancy)}
end
local cols = {"variant", "block", "regs", "static B", "dynamic B", "spill B", "blocks/SM", "limited by", "occupancy"}
report.table(rows, {title = "predicted by the occupancy calculator (" .. dev.name .. ")", columns = cols})

-- Register pressure: 120 live floats under tighter and tighter caps.
local caps, spill = {0, 128, 96, 64, 48, 32}, {}
for i, cap in ipairs(caps) do
  local k = ex.residency_kernel{nacc = 120, max_registers = cap > 0 and cap or nil}
  spill[i] = {cap = cap, k = k, occ = k:occupancy{block = p.block}}
end
local function spill_rows(with_time)
  local out = {}
  for i, s in ipairs(spill) do
    out[i] = {s.cap > 0 and s.cap or "none", s.k.regs, s.k.spill_bytes, s.k.local_bytes, s.occ.blocks_per_sm,
              with_time and s.ms or nil, with_time and s.ms / spill[1].ms or nil}
  end
  return out
end
local scols = {"max_registers", "regs", "spill B", "local B", "blocks/SM", "ms", "slowdown"}
if p.save then -- the predictions: the same offline and on a GPU
  print("saved " .. report.save("results/residency_predicted.csv", rows, {columns = cols}))
  print("saved " .. report.save("results/residency_spills_predicted.csv", spill_rows(false), {columns = scols}))
  local vbars, sbars = {}, {}
  for i, v in ipairs(variants) do vbars[i] = {label = v[1] .. " (" .. v.occ.limiter .. ")", value = v.occ.blocks_per_sm} end
  for _, s in ipairs(spill) do -- spill bytes come from the ptxas report: left out where it was not given
    if s.k.spill_bytes then sbars[#sbars + 1] = {label = "cap " .. (s.cap > 0 and s.cap or "none") .. ": " .. s.k.regs
                                                 .. " regs", value = s.k.spill_bytes} end
  end
  print("saved " .. report.svg_bars(vbars, "results/residency_predicted.svg", {title = "predicted blocks per SM on "
        .. dev.name .. " (limited by)", xlabel = "blocks per SM", format = "%d"}))
  print("saved " .. report.svg_bars(sbars, "results/residency_spills_predicted.svg", {title = "120 live floats "
        .. "under a register cap", xlabel = "spill bytes per thread (stores + loads)", format = "%d"}))
end
if not dev.live then -- the spill table before the note that ends the offline run
  report.table(spill_rows(false), {title = "120 live floats under a register cap", columns = {table.unpack(scols, 1, 5)}})
end
local claims = {"achieved_occupancy of one full wave (blocks/SM x SMs blocks, each spinning " .. p.spin_us
                .. " us) = the predicted occupancy of each variant, within 10 %"}
if ex.offline(dev, "measuring residency and timing the spills", p.save and {"results/residency.csv",
              "results/residency_spills.csv"}) then
  hw.witness(claims)
  return
end

local c = check.new("residency")
local limiters, wanted = {}, {}
local bar = progress.new(#variants, "residency")
for i, v in ipairs(variants) do
  local blocks = math.ceil(1.5 * sms * v.occ.blocks_per_sm) -- enough to fill every SM
  if blocks == 0 then
    rows[i][#cols + 1] = "does not fit"
  else
    local s = ex.residency_summary(ex.residency(v.k, {blocks = blocks, block = v.block,
                                                       shared = v.shared, spin_us = p.spin_us}))
    v.measured = s.max
    rows[i][#cols + 1] = s.min == s.max and tostring(s.max) or (s.min .. ".." .. s.max)
    -- The typical SM (the mode over SMs) is compared, and the range printed: on an H200
    -- (2026-11-21) the spilling variant showed up to 10 overlapping intervals on a few SMs
    -- where 8 blocks fit (cause not established); the other SMs showed exactly 8.
    c:eq(s.mode, v.occ.blocks_per_sm, string.format("%s: blocks at once on a typical SM = predicted (range %d..%d)",
                                                    v[1], s.min, s.max))
  end
  if v.want then limiters[#limiters + 1], wanted[#wanted + 1] = v[1] .. ": " .. v.occ.limiter, v[1] .. ": " .. v.want end
  bar:step()
end
bar:done()
-- The expected limits hold for blocks of up to 256 threads (bigger ones run out of warps first).
if p.block <= 256 then c:eq(limiters, wanted, "each changed resource is what limits its variant") end
if variants[4].measured and variants[1].measured then
  c:that(variants[4].measured < variants[1].measured, "more registers per thread, fewer resident blocks",
         string.format("%d blocks with 120 live floats, %d with 4", variants[4].measured, variants[1].measured))
end
cols[#cols + 1] = "measured"
report.table(rows, {title = "resident blocks per SM: predicted and measured (range over SMs)", columns = cols})

-- The second witness: one full wave of each variant (every SM holding what the calculator
-- says, all blocks spinning together), counted: the warps an SM held on average.
if hw.witness(claims) then
  local fits, most = {}, 0
  for _, v in ipairs(variants) do
    if v.occ.blocks_per_sm > 0 then fits[#fits + 1], most = v, math.max(most, sms * v.occ.blocks_per_sm) end
  end
  local rec <close> = cuda.array("u64", 4 * most):zero()
  local counter <close> = cuda.array("u32", 1):zero()
  local sink <close> = cuda.array("f32", 1):zero()
  local rows = hw.each(fits, function(v)
    v.k{grid = sms * v.occ.blocks_per_sm, block = v.block, shared = v.shared or 0,
        args = {rec, counter, sink, math.floor(p.spin_us * 1000), 0}}
  end, {"achieved_occupancy"})
  for i, v in ipairs(fits) do
    c:near(rows[i].achieved_occupancy, 100 * v.occ.occupancy, 0.1, v[1] .. ": achieved occupancy (counters) = predicted "
           .. string.format("%.1f %%", 100 * v.occ.occupancy))
  end
end

-- Timing: the same work (iters rounds) at each cap, on a grid of 4 blocks per SM.
local rec <close> = cuda.array("u64", 4 * 4 * sms):zero()
local counter <close> = cuda.array("u32", 1):zero()
local sink <close> = cuda.array("f32", 1):zero()
if spill[1].occ.blocks_per_sm == 0 then
  print("blocks of " .. p.block .. " threads with 120 live floats do not fit an SM: no timing")
  return c:summary()
end
bar = progress.new(#spill, "timing the caps")
for _, s in ipairs(spill) do
  s.ms = s.k:bench{grid = 4 * sms, block = p.block, args = {rec, counter, sink, 0, p.iters},
                   warmup = 1, reps = p.reps}.median
  bar:step()
end
bar:done()
local srows = spill_rows(true)
report.table(srows, {title = "120 live floats under a register cap: " .. p.iters .. " rounds, "
                     .. 4 * sms .. " blocks", columns = scols, format = {ms = "%.3f", slowdown = "%.2f x"}})
c:eq(spill[1].k.spill_bytes, 0, "uncapped: no spills")
c:that(spill[#spill].k.spill_bytes > 0, "capped at " .. caps[#caps] .. " registers: the compiler spills",
       spill[#spill].k.spill_bytes .. " bytes of spill loads and stores")
c:that(spill[#spill].ms > spill[1].ms, "the spilling kernel is slower",
       string.format("%.3f ms vs %.3f ms: %.2f x", spill[#spill].ms, spill[1].ms, spill[#spill].ms / spill[1].ms))
if p.save then
  print("saved " .. report.save("results/residency.csv", rows, {columns = cols}))
  print("saved " .. report.save("results/residency_spills.csv", srows, {columns = scols}))
end
c:summary()
