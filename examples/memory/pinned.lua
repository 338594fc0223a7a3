-- pinned.lua: host<->device copies from page-locked (pinned) host memory run faster than from pageable memory, which the driver must stage.
-- Shows:  a:copy(h) (host to device) and h:copy(a) (device to host) between a cuda.array
--         and a cuda.host_array, pinned (cuMemHostAlloc) or pageable (pinned = false),
--         for 4 KiB .. 256 MiB, timed with device events (cuda.bench). Pageable copies
--         go through the driver's own pinned staging buffers: a CPU copy per chunk on
--         top of the DMA. Small copies are bound by the per-copy latency, large ones by
--         the host link.
-- Expect: the bytes arrive intact every way; at 64 MiB and above, pinned >= 1.2x the
--         pageable GB/s in both directions (docs/experiments-memory.md says why 1.2).
-- Run:    warplab run examples/memory/pinned.lua [-p min_kib=4] [-p max_mib=256] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local progress = require "warplab.progress"
local ex = require "warplab.experiment"
local bw = require "warplab.bandwidth"
local mem = require "warplab.memory"
local p = params{min_kib = 4, max_mib = 256, from_mib = 64, save = false}

local dev = cuda.device()
local lo, hi = p.min_kib * 1024, p.max_mib * 1024 * 1024
if lo < 4 or hi < lo or (not dev.unknown.total_memory and hi > dev.memory // 4) then
  error(string.format("sizes %s .. %s: need 4 B <= min_kib * 1 KiB <= max_mib * 1 MiB <= a quarter of the device's %s",
                      mem.bytes_name(lo), mem.bytes_name(hi), mem.bytes_name(dev.memory)), 0)
end
local sizes = mem.sizes(lo, hi, 4)
local c = check.new("pinned")
-- Fewer repetitions for big copies: about 64 MiB moved per size and direction (>= 3 reps).
local function reps_for(bytes) return math.max(3, math.min(50, (64 << 20) // bytes)) end
local plan = {}
for i, b in ipairs(sizes) do plan[i] = {mem.bytes_name(b), b, reps_for(b)} end
report.table(plan, {title = "the copies: both directions, pinned and pageable host memory",
                    columns = {"size", "bytes", "reps"}})

-- Pageable host arrays need no GPU: the element API works offline too.
local probe <close> = cuda.host_array("u32", 4, {pinned = false}):iota(1)
c:eq(probe:get(), {1, 2, 3, 4}, "a pageable host array works without a GPU")
if ex.offline(dev, "copying", p.save and {"results/pinned.svg", "results/pinned.csv"}) then return c:summary() end

local n = hi // 4
local d <close> = cuda.array("u32", n)
local pin <close> = cuda.host_array("u32", n)
local page <close> = cuda.host_array("u32", n, {pinned = false})
c:that(pin.pinned and not page.pinned, "the two host arrays are what they say", tostring(pin) .. ", " .. tostring(page))

-- Intact every way: pinned -> device -> pageable -> device -> pinned, spot-checked.
pin:iota(1)
d:copy(pin)
page:copy(d)
d:zero():copy(page)
pin:zero():copy(d)
local at, bad = {1, 2, n // 3, n // 2 + 1, n - 1, n}, {}
for _, i in ipairs(at) do
  if page[i] ~= i or pin[i] ~= i then bad[#bad + 1] = i end
end
c:that(#bad == 0, "the bytes arrive intact: pinned -> device -> pageable -> device -> pinned",
       #bad > 0 and ("wrong at " .. table.concat(bad, ", ")) or (#at .. " elements of " .. mem.bytes_name(hi) .. " checked"))

local rows, series, bar = {}, {}, progress.new(#sizes * 4, "copies")
local names = {"H2D pinned", "H2D pageable", "D2H pinned", "D2H pageable"}
for j, name in ipairs(names) do series[j] = {name = name, x = {}, y = {}} end
for i, b in ipairs(sizes) do
  local m = b // 4
  local dv, pv, gv = d:view(1, m), pin:view(1, m), page:view(1, m)
  local fns = {function() dv:copy(pv) end, function() dv:copy(gv) end,
               function() pv:copy(dv) end, function() gv:copy(dv) end}
  local row = {mem.bytes_name(b)}
  for j, fn in ipairs(fns) do
    local st = cuda.bench(fn, {warmup = 1, reps = reps_for(b)})
    local gbs = bw.gbs(b, st.median)
    row[j + 1] = gbs
    series[j].x[i], series[j].y[i] = b, gbs
    bar:step()
  end
  row[6], row[7] = string.format("%.2f x", row[2] / row[3]), string.format("%.2f x", row[4] / row[5])
  rows[i] = {b = b, row = row}
end
bar:done()
local trows = {}
for i, r in ipairs(rows) do trows[i] = r.row end
local cols = {"size", "H2D pinned GB/s", "H2D pageable GB/s", "D2H pinned GB/s", "D2H pageable GB/s",
              "H2D pinned/pageable", "D2H pinned/pageable"}
report.table(trows, {title = "host <-> device copies on " .. dev.name .. " (GB/s = 10^9 bytes/s, median)",
                     columns = cols, format = {[2] = "%.2f", [3] = "%.2f", [4] = "%.2f", [5] = "%.2f"}})
local from = p.from_mib << 20
for _, r in ipairs(rows) do
  if r.b >= from then
    local h2d, d2h = r.row[2] / r.row[3], r.row[4] / r.row[5]
    c:that(h2d >= 1.2, r.row[1] .. " host to device: pinned >= 1.2x pageable",
           string.format("%.1f against %.1f GB/s: %.2f x", r.row[2], r.row[3], h2d))
    c:that(d2h >= 1.2, r.row[1] .. " device to host: pinned >= 1.2x pageable",
           string.format("%.1f against %.1f GB/s: %.2f x", r.row[4], r.row[5], d2h))
  end
end
if p.save then
  print("saved " .. report.svg_lines(series, "results/pinned.svg", {title = "host <-> device copies on " .. dev.name,
        xlabel = "bytes", ylabel = "GB/s", logx = 2}))
  print("saved " .. report.save("results/pinned.csv", trows, {columns = cols}))
end
c:summary()
