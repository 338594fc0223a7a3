-- ids.lua: thread, warp and lane IDs of any 1-3-D block and grid, checked against the hardware.
-- Shows:  threads of a block are numbered row-major (x fastest) and the hardware cuts
--         each block into warps of warpSize (32) consecutive threads (%laneid, %warpid):
--         blocks of 28 threads (14x2, 28x1, 7x4) leave 4 lanes of their warp idle; 66
--         threads make 3 warps, the last with 2 active lanes. The book's warpID = gid >> 5,
--         laneID = gid & 31 use the grid-wide id, so they match %laneid only when the
--         block size is a multiple of 32 (or the grid has one block).
-- Expect: every check passes; tables and pictures show each shape's warps and idle lanes.
-- Run:    warplab run examples/warps/ids.lua -p block=14x2 -p grid=2x1 [-p rows=40] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local p = params{block = "14x2", grid = "2x1", rows = 32, save = false}

local dev = cuda.device()
local ws = dev.attr.warp_size
local k = assert(cuda.compile("warps/thread_ids.cu")).thread_ids
print(k)
-- Record fields of thread_ids.cu (u32 each, 0-based): keep in sync with its enum.
local TX, TY, TZ, BX, BY, BZ, TIB, BIG, GID, WARP_F, LANE_F = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
local HW_LANE, SLOT, SM, FIELDS = 13, 14, 15, 16

-- The book's shapes (32-thread blocks of figure 7-4, 28-thread ones of figure 7-5, the
-- 66-thread block of the second source) plus the one asked for with -p block.
local shapes, grid = {"32x1", "16x2", "8x4", "28x1", "14x2", "7x4", "66"}, params.dims(p.grid)
local function key(d) return d[3] > 1 and table.concat(d, "x") or (d[1] .. "x" .. d[2]) end
local mine = key(params.dims(p.block))
local seen = {}
for i, s in ipairs(shapes) do shapes[i] = key(params.dims(s)); seen[shapes[i]] = true end
if not seen[mine] then shapes[#shapes + 1] = mine end

-- Prediction: ceil(n / warpSize) warps, all full but the last (offline too).
local pred = {}
for _, s in ipairs(shapes) do
  local d = params.dims(s)
  local n = d[1] * d[2] * d[3]
  local lanes = ex.warp_lanes(n, ws)
  pred[#pred + 1] = {s, n, k:occupancy{block = n}.warps_per_block, table.concat(lanes, ","), #lanes * ws - n}
end
local pcols = {"block", "threads", "warps", "active lanes per warp", "idle lanes"}
report.table(pred, {title = string.format("warps per block (warpSize = %d), grid %s", ws, key(grid)), columns = pcols})
if p.save then
  print("saved " .. report.save("results/ids_predicted.csv", pred, {columns = pcols}))
  local lanes, names = {}, {} -- one row per warp of each shape: its lanes' thread index, idle lanes hatched
  for _, s in ipairs(shapes) do
    local d = params.dims(s)
    for w, active in ipairs(ex.warp_lanes(d[1] * d[2] * d[3], ws)) do
      local row = {}
      for l = 1, ws do row[l] = l <= active and (w - 1) * ws + l - 1 end
      lanes[#lanes + 1], names[#names + 1] = row, s .. " warp " .. (w - 1)
    end
  end
  print("saved " .. report.svg_heatmap(lanes, "results/ids_predicted.svg", {title = "lanes of each warp (warpSize = "
        .. ws .. ")", labels = {rows = names}, xlabel = "lane", legend = "thread in block", excluded = "idle lane"}))
end
if ex.offline(dev, "reading the IDs each thread gets", p.save and {"results/ids.csv"}) then return end

-- One shape over the grid: per-thread records (0-based fields), linear ids from threadIdx
-- (row-major and the y-fastest alternative), warps as the hardware formed them (%warpid).
local function analyse(shape)
  local b = params.dims(shape)
  local n, nb = b[1] * b[2] * b[3], grid[1] * grid[2] * grid[3]
  local out <close> = cuda.array("u32", n * nb * FIELDS):fill(0xFFFFFFFF)
  k:launch(grid, b, out, n * nb)
  local raw, recs = out:get(), {}
  for t = 0, n * nb - 1 do recs[t + 1] = table.move(raw, t * FIELDS + 1, (t + 1) * FIELDS, 0, {}) end
  local a = {shape = shape, n = n, nb = nb, missing = 0, row_bad = 0, col_bad = 0, gid_bad = 0,
             warps_bad = 0, lanes = {}, recs = recs, b = b}
  for _, r in ipairs(recs) do
    if r[TX] == 0xFFFFFFFF then a.missing = a.missing + 1 else
      r.lin = r[TX] + r[TY] * b[1] + r[TZ] * b[1] * b[2]
      if r[HW_LANE] ~= r.lin % ws then a.row_bad = a.row_bad + 1 end
      if r[HW_LANE] ~= (r[TY] + r[TX] * b[2] + r[TZ] * b[1] * b[2]) % ws then a.col_bad = a.col_bad + 1 end
      if r[LANE_F] ~= r[HW_LANE] then a.gid_bad = a.gid_bad + 1 end
    end
  end
  if a.missing > 0 then return a end
  local warps = ex.group(recs, function(r) return r[BIG] * 4096 + r[SLOT] end)
  local by_block = {}
  for _, w in pairs(warps) do
    table.sort(w, function(x, y) return x.lin < y.lin end)
    local base = w[1].lin
    -- One warp: ids base..base+#w-1, base a multiple of warpSize, lanes 0..#w-1 in order.
    local ok = base % ws == 0 and #w <= ws
    for i, r in ipairs(w) do
      ok = ok and r.lin == base + i - 1 and r[HW_LANE] == i - 1
      r.warp = base // ws
    end
    if not ok then a.warps_bad = a.warps_bad + 1 end
    by_block[w[1][BIG]] = (by_block[w[1][BIG]] or 0) + 1
    if w[1][BIG] == 0 then a.lanes[base // ws + 1] = #w end
  end
  for blk = 0, nb - 1 do
    if by_block[blk] ~= (n + ws - 1) // ws then a.warps_bad = a.warps_bad + 1 end
  end
  return a
end

local c = check.new("ids")
local res, mism, got_lanes, want_lanes, gid_rule = {}, {}, {}, {}, {}
local all = {missing = 0, row_bad = 0, warps_bad = 0}
for _, s in ipairs(shapes) do
  local a = analyse(s)
  res[s] = a
  for f in pairs(all) do all[f] = all[f] + a[f] end
  if a.col_bad > 0 then mism[#mism + 1] = string.format("%s: %d/%d", s, a.col_bad, a.n * a.nb) end
  got_lanes[s], want_lanes[s] = a.lanes, ex.warp_lanes(a.n, ws)
  gid_rule[s] = {matches = a.gid_bad == 0, expected = a.n % ws == 0 or a.nb == 1}
end
c:that(all.missing == 0, "every thread of every shape wrote its record", all.missing .. " missing")
c:that(all.row_bad == 0, "%laneid = (x + y*bx + z*bx*by) % warpSize: ids are row-major, x fastest",
       all.row_bad .. " threads differ; y-fastest numbering would differ for "
       .. (#mism > 0 and table.concat(mism, ", ") or "none"))
c:that(all.warps_bad == 0, "each hardware warp (%warpid) = warpSize consecutive ids of one block, lanes in order",
       all.warps_bad .. " warps or blocks differ")
c:eq(got_lanes, want_lanes, "active lanes per warp: full warps, the remainder in the last one")
local idle28 = {}
for _, s in ipairs{"28x1", "14x2", "7x4"} do idle28[#idle28 + 1] = #res[s].lanes * ws - res[s].n end
c:eq(idle28, {ws - 28, ws - 28, ws - 28}, "28-thread blocks (28x1, 14x2, 7x4) leave " .. ws - 28 .. " lanes idle")
c:eq(res["66x1"].lanes, {ws, ws, 66 - 2 * ws}, "66 threads: 3 warps, the last with " .. 66 - 2 * ws .. " active lanes")
local rule_ok = true
for _, g in pairs(gid_rule) do rule_ok = rule_ok and g.matches == g.expected end
c:that(rule_ok, "gid & 31 = %laneid exactly when threads per block % 32 == 0 (or one block)",
       string.format("for %s: gid & 31 differs from %%laneid in %d of %d threads", mine, res[mine].gid_bad,
                     res[mine].n * res[mine].nb))
if all.missing > 0 then return c:summary() end

-- Pictures: idle lanes of every shape that is not a multiple of warpSize.
for _, s in ipairs(shapes) do
  local a = res[s]
  if a.n % ws ~= 0 then
    ex.lane_picture(string.format("\nblock %s (%d threads): lanes of each warp, # active, . idle", s, a.n),
                    a.lanes, ws)
  end
end

-- The shape asked for: the warp of each thread laid out as the block, its %laneid as a
-- heatmap, and the per-thread table around the first block boundary.
local a = res[mine]
local layout, lanes, names = {}, {}, {}
for _, r in ipairs(a.recs) do
  if r[BIG] == 0 then -- rows: y within z, slices stacked
    local row = r[TZ] * a.b[2] + r[TY] + 1
    layout[row], lanes[row] = layout[row] or {}, lanes[row] or {}
    layout[row][r[TX] + 1], lanes[row][r[TX] + 1] = string.format("%x", r.warp % 16), r[HW_LANE]
    names[row] = string.format("z%d y%d", r[TZ], r[TY])
  end
end
print(string.format("\nblock (0,0,0) of %s: the warp (hex) of each thread, one row per (z, y), column x", mine))
for row = 1, #layout do print(string.format("  %-6s %s", names[row], table.concat(layout[row], " "))) end
report.heatmap(lanes, {title = "%laneid of each thread (row (z, y), column x)", legend = "lane",
                       labels = {rows = names}})
local rows = {}
for i = 1, math.min(p.rows, #a.recs) do
  local r = a.recs[i]
  rows[i] = {string.format("%d,%d,%d", r[TX], r[TY], r[TZ]), string.format("%d,%d,%d", r[BX], r[BY], r[BZ]),
             r[TIB], r[GID], r[WARP_F], r[LANE_F], r.warp, r[HW_LANE], r[SM]}
end
report.table(rows, {title = "first " .. #rows .. " threads of " .. mine .. " over grid " .. key(grid),
  columns = {"threadIdx", "blockIdx", "tid in block", "gid", "gid>>5", "gid&31", "hw warp", "%laneid", "SM"}})
if a.nb > 1 and a.n % 32 ~= 0 then
  print(string.format("A new block starts a new warp at lane 0: the second block's first thread has gid %d,\n"
    .. "so gid & 31 = %d while %%laneid = 0.", a.n, a.n % 32))
end
print(string.format("Per block, warp = tid / warpSize and lane = tid %% warpSize; the book's >> 5 and & 31\n"
  .. "hard-code warpSize = 32 (dev.attr.warp_size = %d here) and hold grid-wide only for whole warps.", ws))
if p.save then
  local names = {"tx", "ty", "tz", "bx", "by", "bz", "tid", "block", "gid", "gid_warp", "gid_lane", "warp",
                 "lane", "hw_lane", "warp_slot", "sm"}
  local out = {}
  for i, r in ipairs(a.recs) do out[i] = table.move(r, 0, FIELDS - 1, 1, {}) end
  print("saved " .. report.save("results/ids.csv", out, {columns = names}))
end
c:summary()
