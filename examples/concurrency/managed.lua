-- managed.lua: managed memory moves on demand: a GPU's first touch of host-resident pages pays page faults, a prefetch moves them at copy speed, advice keeps them where you say.
-- Shows:  touch (kernels_src/concurrency/managed.cu) over a managed array of `mib` MiB
--         (cuda.array(..., {managed = true})) whose pages start on the host (the host
--         filled it, in place): a first touch (page faults migrate the pages) and a second
--         (they are on the device now); a:prefetch(device) (timed) then a touch; and with
--         a:advise("preferred_location", "host") and a:advise("accessed_by", device) two
--         touches (the GPU works over the host link, the pages stay). GB/s counts each
--         element read and written once; times from events.
-- Expect: every touch adds 1 to every element (read back on the host without a copy);
--         the touch after a prefetch >= 2x faster than a first touch; a second touch
--         >= 2x faster than the first; with the pages kept on the host, the second touch
--         within 1.5x of the first and the device-resident touch >= 2x faster than it.
-- Run:    warplab run examples/concurrency/managed.lua [-p mib=256] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local bw = require "warplab.bandwidth"
local p = params{mib = 256, save = false}

local dev = cuda.device()
local n = p.mib * (1 << 20) // 4
if p.mib < 1 or 2 * p.mib * (1 << 20) > (dev.unknown.total_memory and math.maxinteger or dev.memory) then
  error(string.format("mib %d: needs 1 <= mib and two such arrays in the device's memory", p.mib), 0)
end
local k = assert(cuda.compile("concurrency/managed.cu")).touch
local c = check.new("managed")

-- Offline a managed array is host memory with the same API: filled and read in place.
local probe <close> = cuda.array("f32", 4, {managed = true}):iota(1)
c:eq({probe.managed, probe:get()}, {true, {1, 2, 3, 4}}, "a managed array is read and written on the host in place")
if ex.offline(dev, "migrating pages", p.save and {"results/managed.csv"}) then
  print("it would check: every touch adds 1; prefetch then touch >= 2x a first touch; the second touch >= 2x the first;"
        .. " pages kept on the host: two touches alike, slower than on the device")
  return c:summary()
end
if dev.attr.concurrent_managed_access == 0 then
  print(dev.name .. " has no concurrent managed access: its pages migrate only when a kernel starts; nothing to compare")
  return c:summary()
end

local grid, block = 4 * dev.sm_count, 256
local e0, e1 = cuda.event(), cuda.event()
-- The milliseconds of fn's GPU work, between two events on the default stream.
local function timed(fn)
  e0:record()
  fn()
  e1:record()
  return e0:elapsed(e1)
end
local function touch(a) return timed(function() k:launch(grid, block, a, n) end) end
-- A fresh managed array, filled on the host (its pages there), then `prepare(a)`.
local function fresh(prepare)
  local a = cuda.array("f32", n, {managed = true}):fill(1)
  if prepare then prepare(a) end
  return a
end
local function gbs(ms) return bw.gbs(2 * 4 * n, ms) end
local function intact(a, want)
  for _, i in ipairs{1, 2, n // 2, n} do
    if a[i] ~= want then return false end
  end
  return true
end

local rows = {}
local a = fresh()
local first, second = touch(a), touch(a)
c:that(intact(a, 3), "two touches after a host fill: every element is 3 (read on the host in place)")
a:free()
rows[#rows + 1] = {"first touch: page faults", first, gbs(first)}
rows[#rows + 1] = {"second touch: pages on the device", second, gbs(second)}

a = fresh()
local pf = timed(function() a:prefetch(dev.ordinal) end)
local after = touch(a)
c:that(intact(a, 2), "prefetch then touch: every element is 2")
a:free()
rows[#rows + 1] = {"a:prefetch(device)", pf, bw.gbs(4 * n, pf)}
rows[#rows + 1] = {"touch after the prefetch", after, gbs(after)}

a = fresh(function(x) x:advise("preferred_location", "host"):advise("accessed_by", dev.ordinal) end)
local remote1, remote2 = touch(a), touch(a)
c:that(intact(a, 3), "pages kept on the host: every element is 3")
a:free()
rows[#rows + 1] = {"preferred on the host, 1st touch", remote1, gbs(remote1)}
rows[#rows + 1] = {"preferred on the host, 2nd touch", remote2, gbs(remote2)}

report.table(rows, {title = string.format("%d MiB managed on %s: ms and GB/s (a touch reads and writes each float)", p.mib, dev.name),
                    columns = {"step", "ms", "GB/s"}, format = {ms = "%.3f", ["GB/s"] = "%.1f"}})
c:that(first >= 2 * after, "a first touch is >= 2x slower than the touch after a prefetch",
       string.format("%.3f against %.3f ms", first, after))
c:that(first >= 2 * second, "the second touch is >= 2x faster than the first (the pages moved)",
       string.format("%.3f against %.3f ms", second, first))
c:within(remote2 / remote1, 1 / 1.5, 1.5, "with the pages kept on the host, two touches cost alike (nothing migrates)")
c:that(remote2 >= 2 * second, "work over the host link is >= 2x slower than on device-resident pages",
       string.format("%.3f against %.3f ms", remote2, second))
if p.save then print("saved " .. report.save("results/managed.csv", rows, {columns = {"step", "ms", "GBps"}})) end
c:summary()
