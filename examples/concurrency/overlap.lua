-- overlap.lua: copies on streams overlap kernels: with pinned memory, 4 streams pipeline copy-in, compute and copy-out; pageable memory cannot.
-- Shows:  `mib` MiB of floats in `chunks` chunks, each copied in (a:copy(h, {stream = s})),
--         worked on by scale_rounds (kernels_src/concurrency/overlap.cu, its rounds set so a
--         chunk's kernel takes about as long as its copy) and copied out, over 1, 2 and 4
--         non-blocking streams, chunk i on stream i % S; timed with events, best of `reps`.
--         Then the same with pageable host memory, which a copy on a stream refuses (the
--         driver would stage it synchronously anyway), copied without a stream.
-- Expect: the results are right; 4 streams finish in <= 0.7x the time of 1 (ideal 1/3:
--         the two copy engines and the SMs each busy on another chunk); pageable memory
--         with 4 streams takes >= 0.85x the time of 1 stream (nothing overlaps).
-- Run:    warplab run examples/concurrency/overlap.lua [-p mib=64] [-p chunks=16] [-p reps=3] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local tl = require "warplab.timeline"
local p = params{mib = 64, chunks = 16, reps = 3, save = false}

local dev = cuda.device()
local n = p.mib * (1 << 20) // 4
if p.chunks < 4 or n % p.chunks ~= 0 or p.mib < 1 then
  error(string.format("mib %d, chunks %d: needs chunks >= 4 dividing the %d floats", p.mib, p.chunks, n), 0)
end
local chunk = n // p.chunks
local k = assert(cuda.compile("concurrency/overlap.cu")).scale_rounds
local c = check.new("overlap")
local S = {1, 2, 4}
local plan = {}
for i, s in ipairs(S) do plan[i] = {s, p.chunks, chunk * 4 / 2^20, "H2D -> scale_rounds -> D2H"} end
report.table(plan, {title = "the pipeline: chunk i on stream i % streams", columns = {"streams", "chunks", "MiB a chunk", "per chunk"}})
local grid, block = 4 * (dev.unknown.multiprocessor_count and 1 or dev.sm_count), 256 -- sm_86: no SM count
c:that(k:check{grid = grid, block = block}, "scale_rounds' launch passes the checks (offline too)")
if ex.offline(dev, "timing copies and kernels on streams", p.save and {"results/overlap.svg", "results/overlap.csv"}) then
  print("it would check: the results; 4 streams <= 0.7x the time of 1 (pinned); pageable >= 0.85x (no overlap)")
  return c:summary()
end

local h_in <close> = cuda.host_array("f32", n):random{seed = 7}
local h_out <close> = cuda.host_array("f32", n)
local d_in <close> = cuda.array("f32", n)
local d_out <close> = cuda.array("f32", n)
local streams = {}
for i = 1, 4 do streams[i] = cuda.stream{non_blocking = true} end

-- Rounds so that one chunk's kernel takes about as long as its copy in (two measurements).
local s1 = streams[1]
local function ms(fn) return cuda.bench(fn, {warmup = 2, reps = 5, stream = s1}).median end
local din1, dout1, hin1 = d_in:view(1, chunk), d_out:view(1, chunk), h_in:view(1, chunk)
local copy_ms = ms(function() din1:copy(hin1, {stream = s1}) end)
local rounds = 256
for _ = 1, 2 do
  local k_ms = ms(function() k{grid = grid, block = block, stream = s1, args = {din1, dout1, chunk, rounds}} end)
  rounds = math.max(1, math.floor(rounds * copy_ms / k_ms + 0.5))
end

-- One pipeline over `ns` streams: four events a chunk (before its copy in, kernel, copy
-- out, and after), the wall time from t0 to the last event, and the spans.
local ev, t0 = {}, cuda.event()
for i = 1, 4 * p.chunks do ev[i] = cuda.event() end
local function pipeline(ns, hin, hout, pinned)
  t0:record()
  for ci = 0, p.chunks - 1 do
    local s = streams[ci % ns + 1]
    local first = ci * chunk + 1
    local dv_in, dv_out, hv_in, hv_out = d_in:view(first, chunk), d_out:view(first, chunk), hin:view(first, chunk),
      hout:view(first, chunk)
    local e = 4 * ci
    ev[e + 1]:record(s)
    if pinned then dv_in:copy(hv_in, {stream = s}) else dv_in:copy(hv_in) end
    ev[e + 2]:record(s)
    k{grid = grid, block = block, stream = s, args = {dv_in, dv_out, chunk, rounds}}
    ev[e + 3]:record(s)
    if pinned then hv_out:copy(dv_out, {stream = s}) else s:synchronize(); hv_out:copy(dv_out) end
    ev[e + 4]:record(s)
  end
  for i = 1, ns do streams[i]:synchronize() end
  local wall, rows, kinds = 0, {}, {"H2D", "kernel", "D2H"}
  for i = 1, ns do rows[i] = {name = "stream " .. i, spans = {}} end
  local last = {}  -- each kind runs one at a time: a span starts when the previous one of its kind ended
  local ops = {}
  for ci = 0, p.chunks - 1 do
    for j = 1, 3 do
      ops[#ops + 1] = {row = rows[ci % ns + 1], kind = kinds[j], a = t0:elapsed(ev[4 * ci + j]), b = t0:elapsed(ev[4 * ci + j + 1])}
    end
    wall = math.max(wall, t0:elapsed(ev[4 * ci + 4]))
  end
  table.sort(ops, function(x, y) return x.b < y.b end)
  for _, o in ipairs(ops) do
    local start = math.max(o.a, last[o.kind] or o.a)
    last[o.kind] = o.b
    table.insert(o.row.spans, {t0 = math.min(start, o.b), t1 = o.b, kind = o.kind})
  end
  return wall, rows
end

local function f32(x) return (string.unpack("f", string.pack("f", x))) end
local function best(ns, hin, hout, pinned)
  local w, rows = math.huge, nil
  for _ = 1, p.reps do
    hout:zero()
    local t, r = pipeline(ns, hin, hout, pinned)
    if t < w then w, rows = t, r end
  end
  return w, rows
end

local rows, pictures = {}, {}
for i, ns in ipairs(S) do
  local w, r = best(ns, h_in, h_out, true)
  rows[i] = {"pinned", ns, w, 0, tl.concurrency(r)}
  pictures[ns] = r
end
local bad = 0
for _, i in ipairs{1, 2, chunk, chunk + 1, n // 2, n} do
  local want = h_in[i]
  for _ = 1, rounds do want = f32(want * 0.5 + 0.25) end
  if h_out[i] ~= want then bad = bad + 1 end
end
c:that(bad == 0, "the pipeline's results are scale_rounds of the input (" .. rounds .. " rounds)", bad .. " of 6 samples wrong")
local ok, why = pcall(function() d_in:view(1, chunk):copy(cuda.host_array("f32", chunk, {pinned = false}), {stream = s1}) end)
c:that(not ok and tostring(why):find("needs pinned host memory", 1, true) ~= nil,
       "a pageable host array on a stream is refused with a sentence", tostring(why))

local page_in <close> = cuda.host_array("f32", n, {pinned = false}):copy(h_in)
local page_out <close> = cuda.host_array("f32", n, {pinned = false})
for _, ns in ipairs{1, 4} do
  local w, r = best(ns, page_in, page_out, false)
  rows[#rows + 1] = {"pageable", ns, w, 0, tl.concurrency(r)}
end
for _, r in ipairs(rows) do r[4] = rows[r[1] == "pinned" and 1 or 4][3] / r[3] end
report.table(rows, {title = string.format("%d MiB in %d chunks on %s: wall ms, best of %d (rounds %d: kernel ~ copy of a chunk, %.3f ms)",
                                          p.mib, p.chunks, dev.name, p.reps, rounds, copy_ms),
                    columns = {"host memory", "streams", "ms", "speed-up", "streams busy at once"},
                    format = {ms = "%.3f", ["speed-up"] = "%.2f x", ["streams busy at once"] = "%.2f"}})
tl.text(pictures[1], {title = "1 stream (H2D #, kernel =, D2H +):"})
tl.text(pictures[4], {title = "4 streams:"})
c:that(rows[3][3] <= 0.7 * rows[1][3], "4 streams finish in <= 0.7x the time of 1 (pinned memory)",
       string.format("%.3f against %.3f ms: %.2fx", rows[3][3], rows[1][3], rows[3][3] / rows[1][3]))
c:that(rows[5][3] >= 0.85 * rows[4][3], "pageable memory does not overlap: 4 streams take >= 0.85x the time of 1",
       string.format("%.3f against %.3f ms: %.2fx", rows[5][3], rows[4][3], rows[5][3] / rows[4][3]))
if p.save then
  print("saved " .. tl.svg(pictures[4], "results/overlap.svg", {title = "4 streams on " .. dev.name .. ": copy in, kernel, copy out"}))
  print("saved " .. report.save("results/overlap.csv", rows, {columns = {"memory", "streams", "ms", "speedup", "concurrency"}}))
end
for i = 1, 4 do streams[i]:free() end
c:summary()
