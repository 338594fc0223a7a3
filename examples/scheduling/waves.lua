-- waves.lua: which SM ran each block, and when: a grid larger than the GPU runs in waves.
-- Shows:  every block records %smid and %globaltimer when it starts and ends, stays a
--         fixed time (spin_us), and takes an arrival ticket. Blocks spread over all SMs;
--         at most blocks_per_sm of them (the occupancy calculator's number) share an SM
--         at once, so a grid of more than SMs x blocks_per_sm blocks runs in waves; and
--         blocks start in no guaranteed order.
-- Expect: distinct %smid = multiprocessor_count; most blocks at once on one SM =
--         blocks_per_sm; waves (start times more than spin_us/2 apart) =
--         ceil(blocks / (SMs x blocks_per_sm)); arrival order != block index order.
-- Run:    warplab run examples/scheduling/waves.lua [-p block=256] [-p waves=2.5] [-p spin_us=1000] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local p = params{block = 256, waves = 2.5, spin_us = 1000, sms = 16, buckets = 60, save = false}

local dev = cuda.device()
local k = ex.residency_kernel{}
print(k)
local sms = dev.attr.multiprocessor_count
local occ = k:occupancy{block = p.block}
if occ.blocks_per_sm == 0 then error("a block of " .. p.block .. " threads does not fit: " .. occ.reason) end
local capacity = sms * occ.blocks_per_sm
local blocks = math.ceil(p.waves * capacity)
local want_waves = math.ceil(blocks / capacity)
print(string.format("blocks of %d threads: %d per SM (limited by %s) x %d SMs = %d blocks at once",
                    p.block, occ.blocks_per_sm, occ.limiter, sms, capacity))
print(string.format("grid of %d blocks (%.2f x that), each resident for %d us: expect %d waves",
                    blocks, blocks / capacity, p.spin_us, want_waves))
if p.save then
  print("saved " .. report.save("results/waves_predicted.csv", {{p.block, occ.blocks_per_sm, occ.limiter, sms, capacity,
        blocks, want_waves}}, {columns = {"block", "blocks/SM", "limited by", "SMs", "capacity", "grid", "waves"}}))
end
if ex.offline(dev, "timing where blocks run", p.save and {"results/waves.csv"}) then return end

local c = check.new("waves")
local recs = ex.residency(k, {blocks = blocks, block = p.block, spin_us = p.spin_us})
local s = ex.residency_summary(recs)
c:eq(s.sms, sms, "blocks ran on every SM (distinct %smid = multiprocessor_count)")
c:eq(s.max, occ.blocks_per_sm, "most blocks at once on one SM = the calculator's blocks_per_sm")
print(string.format("       (%d of %d SMs reached %d at once; the fewest on any SM: %d%s)", s.at_max, s.sms,
                    s.max, s.min, occ.driver_blocks_per_sm and ("; the driver's calculator: "
                    .. occ.driver_blocks_per_sm) or ""))

-- Waves: start times cluster; a gap of half the residency time separates two waves.
local starts = {}
for i, r in ipairs(recs) do starts[i] = r.start end
local waves = ex.clusters(starts, p.spin_us * 1000 / 2)
c:eq(#waves, want_waves, "waves of start times = ceil(blocks / (SMs x blocks_per_sm))")
local wrows = {}
for i, w in ipairs(waves) do
  wrows[i] = {i, w.n, w.lo / 1000, w.hi / 1000, string.format("%.2f", w.n / capacity)}
  for _, r in ipairs(recs) do
    if r.start >= w.lo and r.start <= w.hi then r.wave = i end
  end
end
report.table(wrows, {title = "waves (times in us after the first block started)",
                     columns = {"wave", "blocks", "first start", "last start", "x capacity"},
                     format = {[3] = "%.1f", [4] = "%.1f"}})

-- Order: the arrival ticket (an atomicAdd at the start) against the block index.
local moved, order = ex.out_of_order(recs)
c:that(moved > 0, "blocks do not start in block-index order",
       string.format("%d of %d blocks arrived at a rank other than their index", moved, blocks))
local arows = {}
for i = 1, math.min(12, #order) do
  local r = order[i]
  arows[i] = {r.ticket, r.block, r.sm, r.start / 1000}
end
report.table(arows, {title = "the first arrivals", columns = {"arrival", "block", "SM", "start us"},
                     format = {[4] = "%.2f"}})
local srows = {}
for i = 1, math.min(12, #recs) do srows[i] = {recs[i].block, recs[i].sm, recs[i].ticket} end
report.table(srows, {title = "blocks 0..11: the SM each ran on", columns = {"block", "SM", "arrival"}})

-- Timeline: blocks resident on the first few SMs over time; each wave is a band.
local shown = {}
for i = 1, math.min(p.sms, #s.sm_list) do shown[i] = s.sm_list[i] end
local labels = {}
for i, sm in ipairs(shown) do labels[i] = "SM " .. sm end
local title = " on the first " .. #shown .. " SMs over time (" .. p.buckets .. " slices, left to right)"
report.heatmap(ex.timeline(recs, shown, p.buckets, function(r) return r.wave end), {min = 0,
  max = #waves, title = "the wave resident" .. title, labels = {rows = labels}, legend = "wave"})
report.heatmap(ex.timeline(recs, shown, p.buckets), {min = 0, max = occ.blocks_per_sm,
  title = "blocks resident" .. title, labels = {rows = labels}, legend = "blocks"})
if p.save then
  print("saved " .. report.save("results/waves.csv", recs,
                                {columns = {"block", "sm", "start", "stop", "ticket", "wave"}}))
end
c:summary()
