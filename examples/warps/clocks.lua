-- clocks.lua: when did each thread finish? The handbook's reportClocks: threads finish by warp.
-- Shows:  each thread's last act stores the SM's cycle counter (clock64), normalized per SM
--         (every SM has its own counter). The lanes of a warp read it in one instruction,
--         so a warp's threads share one value and the values step from warp to warp. A
--         16x8 block fills 4 warps; a 14x8 block (112 threads = 3.5 warps) still takes 4,
--         leaving 12.5 % of their lanes idle.
-- Expect: lanes of a warp within W cycles (W = half the median gap between consecutive
--         warps on an SM; the spread is 0 in practice); the warps of a block do not all
--         finish together; idle lanes 0 % for 16x8 and 12.5 % for 14x8.
-- Run:    warplab run examples/warps/clocks.lua [-p shapes=16x8,14x8] [-p blocks=0] [-p show=2] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local stats = require "warplab.stats"
local ex = require "warplab.experiment"
local p = params{shapes = "16x8,14x8", blocks = 0, show = 2, save = false}

local dev = cuda.device()
local ws = dev.attr.warp_size
local k = assert(cuda.compile("warps/clocks.cu")).completion_clocks
print(k)
-- Default grid: 2 blocks per SM, so every SM compares warps of two blocks.
local nblocks = p.blocks > 0 and p.blocks or 2 * dev.attr.multiprocessor_count
local FIELDS, SM, SLOT, LANE = 3, 1, 2, 3 -- clocks.cu's `where` record, 1-based here

local shapes = {}
for s in p.shapes:gmatch("[^,]+") do shapes[#shapes + 1] = s end
local function idle_expected(n)
  local lanes = (n + ws - 1) // ws * ws
  return (lanes - n) / lanes, lanes
end
local pred = {}
for _, s in ipairs(shapes) do
  local d = params.dims(s)
  local n = d[1] * d[2] * d[3]
  local frac, lanes = idle_expected(n)
  pred[#pred + 1] = {s, n, lanes // ws, lanes, lanes - n, string.format("%.1f %%", 100 * frac)}
end
local cols = {"block", "threads", "warps", "lanes", "idle lanes", "idle"}
report.table(pred, {title = "expected (warpSize = " .. ws .. "), " .. nblocks .. " blocks", columns = cols})
if p.save then print("saved " .. report.save("results/clocks_predicted.csv", pred, {columns = cols})) end
if ex.offline(dev, "reading the cycle counters", p.save and {"results/clocks_<shape>.csv (one per shape)"}) then return end

-- One shape: launch, then per-thread records {blk, tid, sm, slot, lane, clock (per SM)}.
local function run(shape)
  local d = params.dims(shape)
  local n = d[1] * d[2] * d[3]
  local clocks <close> = cuda.array("u64", n * nblocks):zero()
  local where <close> = cuda.array("u32", n * nblocks * FIELDS):zero()
  k:launch(nblocks, d, clocks, where)
  local cl, wh = clocks:get(), where:get()
  local recs, base = {}, {}
  for t = 0, n * nblocks - 1 do
    local r = {blk = t // n, tid = t % n, clock = cl[t + 1], sm = wh[t * FIELDS + SM],
               slot = wh[t * FIELDS + SLOT], lane = wh[t * FIELDS + LANE]}
    base[r.sm] = math.min(base[r.sm] or math.huge, r.clock)
    recs[t + 1] = r
  end
  for _, r in ipairs(recs) do r.clock = r.clock - base[r.sm] end
  return recs, d, n
end

local c = check.new("clocks")
local summary, measured = {}, {}
for _, shape in ipairs(shapes) do
  local recs, d, n = run(shape)
  -- Warps as the hardware formed them: same block, same %warpid.
  local warps = ex.group(recs, function(r) return r.blk * 4096 + r.slot end)
  local spread, active, per_sm, per_blk, lanes0 = 0, {}, {}, {}, {}
  for _, w in pairs(warps) do
    local lo, hi, first = math.huge, -1, math.huge
    for _, r in ipairs(w) do
      lo, hi, first = math.min(lo, r.clock), math.max(hi, r.clock), math.min(first, r.tid)
    end
    spread = math.max(spread, hi - lo)
    active[#active + 1] = #w
    if w[1].blk == 0 then lanes0[#lanes0 + 1] = {first, #w} end
    local sm, blk = w[1].sm, w[1].blk
    per_sm[sm] = per_sm[sm] or {}
    table.insert(per_sm[sm], lo)
    per_blk[blk] = per_blk[blk] or {}
    per_blk[blk][lo] = true
  end
  -- The gap between consecutive warps on an SM: the scale a warp's lanes must stay within.
  local gaps = {}
  for _, vals in pairs(per_sm) do
    table.sort(vals)
    for i = 2, #vals do if vals[i] > vals[i - 1] then gaps[#gaps + 1] = vals[i] - vals[i - 1] end end
  end
  local gap = #gaps > 0 and stats.median(gaps) or 0
  local window = math.floor(gap / 2)
  c:that(#gaps > 0 and spread <= window, shape .. ": the lanes of every warp finished within W cycles",
         string.format("largest spread %d cycles over %d warps; W = %d, half the median gap of %g "
                       .. "cycles between warps", spread, #active, window, gap))
  local split, multi = 0, 0
  for _, vals in pairs(per_blk) do
    local nv = 0
    for _ in pairs(vals) do nv = nv + 1 end
    if (n + ws - 1) // ws > 1 then multi = multi + 1 end
    if nv > 1 then split = split + 1 end
  end
  c:that(multi == 0 or split > 0, shape .. ": the warps of a block do not finish together",
         string.format("in %d of %d blocks the warps report 2 or more completion values", split, multi))
  table.sort(lanes0, function(x, y) return x[1] < y[1] end)
  for i, l in ipairs(lanes0) do lanes0[i] = l[2] end
  measured[shape] = lanes0
  c:eq(lanes0, ex.warp_lanes(n, ws), shape .. ": active lanes per warp of block 0 (consecutive ids fill each warp)")
  if n % ws ~= 0 then ex.lane_picture("       block 0's warps: # active lane, . idle", lanes0, ws) end
  local lanes, used = #active * ws, stats.sum(active)
  local idle = (lanes - used) / lanes
  c:near(idle, idle_expected(n), 1e-12, string.format("%s: idle lanes from active-lane counts = "
         .. "(warps x %d - threads) / (warps x %d)", shape, ws, ws))
  summary[#summary + 1] = {shape, n, #active // nblocks, lanes // nblocks, (lanes - used) // nblocks,
                           string.format("%.1f %%", 100 * idle)}

  -- The book's printout: per block, the completion clock of each thread, one row per y.
  local vals = {}
  for _, r in ipairs(recs) do
    if r.blk < p.show then
      vals[r.blk] = vals[r.blk] or {}
      vals[r.blk][r.tid + 1] = r.clock
    end
  end
  for blk = 0, math.min(p.show, nblocks) - 1 do
    local v, width = vals[blk], #tostring(stats.max(vals[blk]))
    print(string.format("\n%s block %d on SM %d: completion clocks (cycles after the SM's first), slice z = 0",
                        shape, blk, recs[blk * n + 1].sm))
    for y = 0, d[2] - 1 do
      local row = {}
      for x = 1, d[1] do row[x] = string.format("%" .. width .. "d", v[y * d[1] + x]) end
      print("  " .. table.concat(row, " "))
    end
    if blk == 0 then
      report.heatmap(v, {cols = d[1], title = shape .. " block 0 as a heatmap (row y, column x)",
                         legend = "cycles"})
    end
  end
  if p.save then
    print("saved " .. report.save("results/clocks_" .. shape .. ".csv", recs,
                                  {columns = {"blk", "tid", "sm", "slot", "lane", "clock"}}))
  end
end
report.table(summary, {title = "lanes per block, counted from the warps the hardware formed",
                       columns = {"block", "threads", "warps", "lanes", "idle lanes", "idle"}})
if measured["14x8"] then
  print("The book reads a 14x8 block as warps of 28 threads (two rows each). The hardware fills warps\n"
        .. "with consecutive ids instead: measured lanes per warp " .. table.concat(measured["14x8"], ", ")
        .. "; the waste is the same 16 of 128.")
end
c:summary()
