-- banks.lua: shared memory has 32 banks: lanes reading words 32 apart queue up at one bank, 32 in turn; lanes reading one word share it.
-- Shows:  bank_cycles (kernels_src/memory/banks.cu): one block of `block` threads, each
--         lane chasing pointers through shared memory from word lane * stride (4
--         independent chains per thread, so the shared-memory pipe sets the pace, not
--         latency), timed with clock64 around the loop. Strides 1, 2, 4, 8, 16, 32, the
--         padded 33, and every lane on one word (broadcast).
-- Expect: cycles per warp access ~ ways x the stride-1 cost, ways = gcd(stride, 32):
--         stride 32 costs 16..40x stride 1 (32x ideal); each doubling of the stride from
--         1 to 32 costs >= 1.3x more (2x ideal); broadcast and stride 33 within 1.5x of stride 1.
--         The hardware counters agree: ways - 1 bank conflicts per shared load (0, 1, 3,
--         7, 15, 31; 0 for stride 33 and the broadcast), ways wavefronts per load; and so
--         do the per-line counts: the chase's load line is ways-way, every other line 1-way.
-- Run:    warplab run examples/memory/banks.lua [-p block=512] [-p iters=256] [-p reps=5] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local mem = require "warplab.memory"
local progress = require "warplab.progress"
local hw = require "warplab.counters"
local lw = require "warplab.lines"
local p = params{block = 512, iters = 256, reps = 5, save = false}

local CHAINS, UNROLL = 4, 8 -- as compiled below (WL_CHAINS, WL_UNROLL in banks.cu)
local dev = cuda.device()
local ws = dev.attr.warp_size
if p.block % ws ~= 0 or p.block < ws or p.block > dev.attr.max_threads_per_block then
  error(string.format("block %d: needs a multiple of %d up to %d", p.block, ws, dev.attr.max_threads_per_block), 0)
end
local m = assert(cuda.compile{file = "memory/banks.cu", defines = {WL_CHAINS = CHAINS, WL_UNROLL = UNROLL}, lineinfo = true})
local k = m.bank_cycles
local c = check.new("banks")

-- The compiler's view: the timed loop is CHAINS x UNROLL shared loads, each one LDS in
-- SASS (ptxas maps ld.shared.u32 one to one), between two clock64 reads.
local from = m.ptx:find(".entry " .. k.mangled .. "(", 1, true)
local body = m.ptx:sub(from, m.ptx:find("\n}\n", from, true))
local lds = select(2, body:gsub("ld%.shared%.u32", ""))
local clocks = select(2, body:gsub("%%clock64", ""))
report.table({{k.regs, k.shared_bytes, lds, clocks, k:occupancy{block = p.block}.blocks_per_sm}},
             {title = "bank_cycles on " .. dev.name .. " (" .. m.arch .. ", block " .. p.block .. ")",
              columns = {"regs", "shared B", "ld.shared.u32", "clock64 reads", "blocks/SM"}})
c:eq(lds, CHAINS * UNROLL, "the timed loop is " .. CHAINS .. " chains x " .. UNROLL
     .. " unrolled ld.shared.u32, none dropped or merged")
c:eq(clocks, 2, "two clock64 reads around it")

local pats = {}
for _, s in ipairs{1, 2, 4, 8, 16, 32} do pats[#pats + 1] = {name = "stride " .. s, stride = s} end
pats[#pats + 1] = {name = "stride 33 (padded)", stride = 33}
pats[#pats + 1] = {name = "broadcast (one word)", stride = 0}
local prow = {}
for i, pt in ipairs(pats) do
  pt.ways = mem.bank_ways(pt.stride, ws)
  prow[i] = {pt.name, pt.stride, pt.ways}
end
local pcols = {"pattern", "stride (words)", "ways"}
if p.save then
  print("saved " .. report.save("results/banks_predicted.csv", prow, {columns = pcols}))
  local wbars = {}
  for i, pt in ipairs(pats) do wbars[i] = {label = pt.name, value = pt.ways} end
  print("saved " .. report.svg_bars(wbars, "results/banks_predicted.svg", {title = "predicted words one bank serves "
        .. "per warp access (" .. mem.BANKS .. " banks)", xlabel = "ways (1: no conflict)", format = "%d"}))
end
local claims = {"shared_ld_conflicts_per_request = ways - 1 for each pattern (within 5 %): "
                .. "0, 1, 3, 7, 15, 31 for strides 1..32, 0 for stride 33 and the broadcast",
                "shared_ld_wavefronts_per_request = ways (within 5 %)"}
local lclaims = {"the chase's load line (off[k] = *reinterpret_cast...) is ways-way: shared wavefronts = ways x "
                 .. "their ideal (within 1 %); every other line that touches shared memory 1-way"}
if ex.offline(dev, "timing the accesses", p.save and {"results/banks.svg", "results/banks.csv"}) then
  report.table(prow, {title = "predicted: words one bank serves per warp access (" .. mem.BANKS .. " banks of "
                      .. mem.BANK_WIDTH .. " bytes)", columns = pcols})
  hw.witness(claims)
  lw.witness(lclaims)
  return c:summary()
end

local warps = p.block // ws
local cycles <close> = cuda.array("u64", 2 * warps)
local sink <close> = cuda.array("u32", 1):zero()
local accesses = warps * p.iters * UNROLL * CHAINS -- warp-wide shared loads per launch
local function run(stride)
  local per = {}
  for r = 1, p.reps do
    k{grid = 1, block = p.block, args = {stride, p.iters, 0, cycles, sink}}
    local t = cycles:get()
    local t0, t1 = math.huge, 0
    for w = 0, warps - 1 do t0, t1 = math.min(t0, t[2 * w + 1]), math.max(t1, t[2 * w + 2]) end
    per[r] = (t1 - t0) / accesses
  end
  table.sort(per)
  return per[(#per + 1) // 2]
end
run(1) -- warm-up: module load, clocks up
local rows, bar = {}, progress.new(#pats, "strides")
for i, pt in ipairs(pats) do
  pt.cyc = run(pt.stride)
  rows[i] = {pt.name, pt.ways, pt.cyc, mem.BANKS * mem.BANK_WIDTH / pt.cyc}
  bar:step()
end
bar:done()
local base = pats[1].cyc
for i, pt in ipairs(pats) do rows[i][5], rows[i][6] = pt.cyc / base, pt.ways end
local cols = {"pattern", "ways", "cycles/access", "bytes/cycle", "x stride 1", "predicted x"}
report.table(rows, {title = string.format("one block of %d threads, %d warp-wide loads per launch, median of %d launches",
                    p.block, accesses, p.reps), columns = cols,
                    format = {["cycles/access"] = "%.2f", ["bytes/cycle"] = "%.1f", ["x stride 1"] = "%.2f"}})

local by = {}
for _, pt in ipairs(pats) do by[pt.name] = pt end
local r32 = by["stride 32"].cyc / base
c:within(r32, 16, 40, "stride 32 costs about 32x stride 1 (32 words in one bank, served in turn)")
local slow = {}
for i = 2, 6 do
  if pats[i].cyc < 1.3 * pats[i - 1].cyc then slow[#slow + 1] = pats[i].name end
end
c:that(#slow == 0, "each doubling of the stride from 1 to 32 costs >= 1.3x more (2x ideal)",
       #slow > 0 and ("not at " .. table.concat(slow, ", ")) or "")
local rb, r33 = by["broadcast (one word)"].cyc / base, by["stride 33 (padded)"].cyc / base
c:within(rb, 1 / 1.5, 1.5, "a broadcast (32 lanes, one word) costs like stride 1")
c:within(r33, 1 / 1.5, 1.5, "stride 33 (a row padded by one word) costs like stride 1: no conflict")
-- The second witness: the same launch of each pattern once more, counted. The timed loop
-- is the kernel's only shared loads (the fill before it only stores), so its conflicts
-- per load are the pattern's.
if hw.witness(claims) then
  local rows = hw.each(pats, function(pt) k{grid = 1, block = p.block, args = {pt.stride, p.iters, 0, cycles, sink}} end,
                       {"shared_ld_conflicts_per_request", "shared_ld_wavefronts_per_request"})
  for i, pt in ipairs(pats) do
    c:near(rows[i].shared_ld_conflicts_per_request, pt.ways - 1, 0.05, pt.name .. ": the counters see "
           .. (pt.ways - 1) .. " bank conflicts per shared load")
    c:near(rows[i].shared_ld_wavefronts_per_request, pt.ways, 0.05, pt.name .. ": " .. pt.ways .. " wavefronts per load")
  end
end
-- The third witness, at the line (the module has its line table: lineinfo): each pattern once more.
if lw.witness(lclaims) then
  local rows = lw.each(pats, function(pt) k{grid = 1, block = p.block, args = {pt.stride, 4, 0, cycles, sink}} end,
                       "shared")
  for i, pt in ipairs(pats) do
    local r = lw.find(rows[i], "off[k] = *reinterpret_cast")
    c:near(r and r.shared_way or 0, pt.ways, 0.01, pt.name .. ": the load line is " .. pt.ways .. "-way")
    c:near(lw.most(rows[i], "shared_way", r) or 1, 1, 0.01, pt.name .. ": every other shared-memory line is 1-way")
  end
end
if p.save then
  local bars = {}
  for i, pt in ipairs(pats) do bars[i] = {label = pt.name, value = pt.cyc} end
  print("saved " .. report.svg_bars(bars, "results/banks.svg", {title = "shared-memory cycles per warp access on "
        .. dev.name, xlabel = "cycles per access", format = "%.2f"}))
  print("saved " .. report.save("results/banks.csv", rows, {columns = cols}))
end
c:summary()
