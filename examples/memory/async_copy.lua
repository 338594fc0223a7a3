-- async_copy.lua: global to shared memory four ways: through registers, cp.async, a bulk copy, a TMA tensor copy; one issuing thread suffices for the bulk ones.
-- Shows:  the kernels of async_copy.cu move `bytes` (at least 4x the L2) into shared memory
--         in `tile`-byte tiles through a ring of two buffers, one block per SM, at 32 and
--         512 threads per block: copy_registers (16-byte loads and stores, one in flight
--         per thread), copy_cp_async (cp.async through <cuda/pipeline>: sm_80), copy_bulk
--         (one thread, one cp.async.bulk per tile on an mbarrier: sm_90) and copy_tma (one
--         thread, one TMA copy of a box of a cuda.tensor_map: sm_90). Each way first runs
--         once summing every word it landed (checked against the closed form), then is
--         timed with one word read per thread; GB/s against the memory's peak (clock x bus).
-- Expect: bulk and TMA at 32 threads >= 70 % of the peak and within 20 % of themselves at
--         512; registers at 32 threads <= a tenth of bulk, and >= 6x faster at 512;
--         cp.async at 32 threads >= 4x registers (an H200: 88 %, 1 %, 4 %, 11x, 7x). The counters: each way reads its bytes
--         from DRAM once (within 10 %).
-- Run:    warplab run examples/memory/async_copy.lua [-p tile=32768] [-p bytes=0] [-p reps=10] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local bw = require "warplab.bandwidth"
local mem = require "warplab.memory"
local sync = require "warplab.sync"
local hw = require "warplab.counters"
local p = params{tile = 32768, bytes = 0, reps = 10, save = false}

if p.tile % 1024 ~= 0 or p.tile < 1024 or p.tile > 256 * 1024 then
  warplab.raise("parameter", "params: -p tile=" .. p.tile .. ": a multiple of 1024 bytes (256 u32 per TMA row), 1 to 256 rows", 0)
end
for _, r in ipairs{{"reps", 1, 1000}, {"bytes", 0, 1 << 40}} do
  if p[r[1]] < r[2] or p[r[1]] > r[3] then
    warplab.raise("parameter", string.format("params: -p %s=%d: give %d to %d", r[1], p[r[1]], r[2], r[3]), 0)
  end
end
if p.bytes > 0 and p.bytes < p.tile then
  warplab.raise("parameter", "params: -p bytes=" .. p.bytes .. ": at least one tile (" .. p.tile .. " bytes)", 0)
end

local dev = cuda.device()
local sms = dev.attr.multiprocessor_count -- before the compile: a profile without it stops here
local c = check.new("async_copy")
-- bytes: at least 4x the L2 (256 MiB when the profile does not know the L2).
local l2 = not dev.unknown.l2_cache_size and dev.attr.l2_cache_size or 0
local bytes = p.bytes > 0 and p.bytes or math.max(256 << 20, mem.pow2_at_least(4 * l2))
local tiles, rows = bytes // p.tile, p.tile // 1024
bytes = tiles * p.tile
local m = assert(cuda.compile("memory/async_copy.cu"))
-- The memory's peak in GB/s: clock x bus width x 2 (double data rate), when the device says them.
local known = not (dev.unknown.memory_clock_rate or dev.unknown.global_memory_bus_width)
local peak = known and 2 * dev.attr.memory_clock_rate * 1e3 * dev.attr.global_memory_bus_width / 8 / 1e9 or 0/0
local x <close> = cuda.array("u32", bytes // 4)
-- The TMA's view of x: a 2-D tensor of 256-word rows, copied a box of `rows` rows at a time.
local map = cuda.tensor_map(x, {dims = {256, bytes // 1024}, box = {256, rows}})
local ways = {
  {"registers", m.copy_registers, x, nil, function(t) return t * 16 end},
  {"cp.async", m.copy_cp_async, x, sync.needs(dev, 8, 0, "cp.async"), function() return 2 * p.tile end},
  {"bulk copy", m.copy_bulk, x, sync.needs(dev, 9, 0, "bulk copies"), function() return 2 * p.tile end},
  {"TMA tensor copy", m.copy_tma, map, sync.needs(dev, 9, 0, "TMA tensor copies"), function() return 2 * p.tile end},
}
local THREADS = {32, 512}
local sum <close> = cuda.array("u32", 1)
local status <close> = cuda.array("u32", 1)
local function launch(w, t, verify)
  return {grid = sms, block = t, shared = 2 * p.tile + 1024, args = {w[3], tiles, p.tile, verify, sum, status}}
end
local rows_plan = {}
for _, w in ipairs(ways) do
  for _, t in ipairs(THREADS) do
    local ok, why = w[2]:check(launch(w, t, 0))
    rows_plan[#rows_plan + 1] = {w[1], t, mem.bytes_name(w[5](t)), w[4] or (ok and "ok" or why)}
    c:that(w[4] ~= nil or ok, w[1] .. " at " .. t .. " threads passes validation", ok and "" or why)
  end
end
report.table(rows_plan, {title = string.format("%s in %d tiles of %s, grid %d (1 per SM) on %s (%s); peak %.0f GB/s",
             mem.bytes_name(bytes), tiles, mem.bytes_name(p.tile), sms, dev.name, m.arch, peak),
             columns = {"way", "threads", "in flight per SM", "validation"}})
for _, w in ipairs(ways) do if w[4] then print(w[4]) end end
print("tensor map: " .. tostring(map))
local claims = {"dram_read_bytes of each way's launch = the bytes copied (within 10 %): every byte read once"}
if ex.offline(dev, "copying the tiles", p.save and {"results/async_copy.csv"}) then
  hw.witness(claims)
  return c:summary()
end

x:iota()
local n = bytes // 4
local want = (n * (n - 1) // 2) & 0xffffffff -- the sum of 0 .. n-1, mod 2^32
local res = {}
for _, w in ipairs(ways) do
  for _, t in ipairs(THREADS) do
    if not w[4] then
      sum:zero(); status:zero()
      w[2](launch(w, t, 1))
      c:that(sum[1] == want and status[1] == 0, string.format("%s at %d threads lands every word (sum checked)", w[1], t),
             string.format("sum %d, expected %d; %d waits timed out", sum[1], want, status[1]))
      local cfg = launch(w, t, 0)
      cfg.warmup, cfg.reps = 2, p.reps
      local st = w[2]:bench(cfg)
      res[#res + 1] = {way = w[1], threads = t, ms = st.median, gbs = bw.gbs(bytes, st.median),
                       peak = bw.pct(bw.gbs(bytes, st.median), peak), name = w[1] .. "@" .. t}
    end
  end
end
report.table(res, {title = "global -> shared, " .. mem.bytes_name(bytes) .. ", one block per SM",
                   columns = {"way", "threads", "ms", "gbs", "peak"}, format = {ms = "%.3f", gbs = "%.0f"}})
local g = {}
for _, r in ipairs(res) do g[r.name] = r.gbs end
local function gb(name) return g[name] or 0 end
local function show(...) local t = {} for i, k in ipairs{...} do t[i] = string.format("%s %.0f GB/s", k, gb(k)) end return table.concat(t, ", ") end
if gb("bulk copy@32") > 0 and peak == peak then -- (a live GPU always knows its peak)
  c:that(gb("bulk copy@32") >= 0.7 * peak, "one thread issuing bulk copies reaches >= 70 % of the peak", show("bulk copy@32"))
  c:that(gb("bulk copy@32") >= 0.8 * gb("bulk copy@512"), "bulk copies: 32 threads within 20 % of 512", show("bulk copy@32", "bulk copy@512"))
  c:that(gb("TMA tensor copy@32") >= 0.7 * peak, "one thread issuing TMA copies reaches >= 70 % of the peak", show("TMA tensor copy@32"))
  c:that(gb("TMA tensor copy@32") >= 0.8 * gb("TMA tensor copy@512"), "TMA: 32 threads within 20 % of 512",
         show("TMA tensor copy@32", "TMA tensor copy@512"))
  c:that(gb("registers@32") <= 0.1 * gb("bulk copy@32"), "through registers, 32 threads move <= a tenth of a bulk copy",
         show("registers@32", "bulk copy@32"))
end
c:that(gb("registers@512") >= 6 * gb("registers@32"), "through registers, 512 threads move >= 6x what 32 do",
       show("registers@32", "registers@512"))
if gb("cp.async@32") > 0 then
  c:that(gb("cp.async@32") >= 4 * gb("registers@32"), "cp.async with 32 threads moves >= 4x registers with 32",
         show("cp.async@32", "registers@32"))
end
-- The second witness: each way at 32 threads once more, counted: DRAM bytes read.
if hw.witness(claims) then
  local list = {}
  for _, w in ipairs(ways) do if not w[4] then list[#list + 1] = w end end
  local rows = hw.each(list, function(w) w[2](launch(w, 32, 0)) end, {"dram_read_bytes"})
  for i, w in ipairs(list) do
    c:near(rows[i].dram_read_bytes, bytes, 0.1, w[1] .. ": DRAM bytes read = the bytes copied")
  end
end
if p.save then print("saved " .. report.save("results/async_copy.csv", res, {columns = {"way", "threads", "ms", "gbs"}})) end
c:summary()
