-- coalescing.lua: global memory is read in 32-byte sectors: consecutive floats use every byte fetched, strided and random reads waste most.
-- Shows:  read_strided and read_random (kernels_src/memory/access.cu) read the same number
--         of floats (`reads`: 4-byte loads, at least twice the L2 cache in all) at a
--         stride of 1, 2, 4, 8, 16 and 32 floats and at random indices, next to a
--         streaming read (float4 loads) of the same bytes, measured in the same run.
--         GB/s counts the bytes asked for; "sector GB/s" what the sectors moved.
-- Expect: stride 1 at >= 60 % of the streaming read; the GB/s never rises with the
--         stride; stride 1 >= 4x stride 32 (the sector rule says 8x: a warp at stride 32
--         uses 4 of each 32 bytes fetched); random no faster than 1.25x the slowest stride.
--         The hardware counters agree: global sectors per load request = the model (4 at
--         stride 1, doubling to 32 at stride 8, 32 beyond), random the worst (~32); so does
--         the strided loads' line: its sectors are the model's times their ideal (4).
-- Run:    warplab run examples/memory/coalescing.lua [-p reads=0] [-p block=256] [-p reps=10] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local bw = require "warplab.bandwidth"
local mem = require "warplab.memory"
local progress = require "warplab.progress"
local hw = require "warplab.counters"
local lw = require "warplab.lines"
local p = params{reads = 0, block = 256, reps = 10, seed = 7, save = false}

local dev = cuda.device()
local ws = dev.attr.warp_size
local STRIDES, MAX_STRIDE = {1, 2, 4, 8, 16, 32}, 32
-- reads: a power of two with 4 * reads >= 2 x L2, so no pattern is served from the L2.
local reads = p.reads > 0 and p.reads or mem.pow2_at_least(2 * dev.attr.l2_cache_size // 4)
if reads & (reads - 1) ~= 0 or reads * MAX_STRIDE > 1 << 32 then
  error(string.format("reads %d: needs a power of two <= 2^27 (random indices are masked into %d x reads floats)",
                      reads, MAX_STRIDE), 0)
end
local footprint = 4 * reads * MAX_STRIDE
if not dev.unknown.total_memory and footprint > dev.memory // 2 then
  error(string.format("reads %d: stride %d spans %s, more than half of the device's %s; use -p reads=%d",
                      reads, MAX_STRIDE, mem.bytes_name(footprint), mem.bytes_name(dev.memory),
                      mem.pow2_at_least(dev.memory // 8 // (4 * MAX_STRIDE))), 0)
end

local m = assert(cuda.compile{file = "memory/access.cu", lineinfo = true}) -- lineinfo: for the per-line witness
local ks, kr = m.read_strided, m.read_random
local c = check.new("coalescing")

-- The compiler's view: 4-byte loads, one per float asked for.
local function body(k)
  local from = m.ptx:find(".entry " .. k.mangled .. "(", 1, true)
  return m.ptx:sub(from, (m.ptx:find("\n}\n", from, true) or #m.ptx))
end
local function count(s, pat) return select(2, s:gsub(pat, "")) end
local srows = {}
for i, k in ipairs{ks, kr} do
  local b, occ = body(k), k:occupancy{block = p.block}
  srows[i] = {k.name:match("^[%w_]+"), k.regs, occ.blocks_per_sm, string.format("%.0f %%", 100 * occ.occupancy),
              count(b, "ld%.global[%.%w]-%.[uf]32"), count(b, "ld%.global[%.%w]-%.v%d")}
end
report.table(srows, {title = "the kernels on " .. dev.name .. " (" .. m.arch .. ", block " .. p.block .. ")",
                     columns = {"kernel", "regs", "blocks/SM", "occupancy", "4-byte loads in PTX", "vector loads"}})
c:that(srows[1][5] >= 4 and srows[1][6] == 0 and srows[2][5] >= 4 and srows[2][6] == 0,
       "every read is one 4-byte load (ld.global, no vector loads): the sector rule applies per lane",
       string.format("%d and %d 4-byte loads", srows[1][5], srows[2][5]))

-- The sector model: what each pattern should cost, before anything runs.
local pats = {}
for _, s in ipairs(STRIDES) do
  pats[#pats + 1] = {name = s == 1 and "stride 1 (coalesced)" or ("stride " .. s), stride = s,
                     sectors = mem.sectors(s, ws), useful = mem.useful(s, ws)}
end
pats[#pats + 1] = {name = "random", random = true, sectors = ws, useful = mem.useful(MAX_STRIDE, ws)}
local prow = {}
for i, pt in ipairs(pats) do
  prow[i] = {pt.name, pt.random and "-" or 4 * pt.stride, pt.sectors, string.format("%.1f %%", 100 * pt.useful),
             string.format("%.3g", pt.useful / pats[1].useful)}
end
local pcols = {"pattern", "bytes apart", "sectors per warp load", "bytes used", "GB/s vs stride 1"}
report.table(prow, {title = string.format("the %d-byte sector model: %d lanes, %s read (%s) per pattern",
                    mem.SECTOR, ws, mem.bytes_name(4 * reads), reads .. " floats"), columns = pcols})
if p.save then
  print("saved " .. report.save("results/coalescing_predicted.csv", prow, {columns = pcols}))
  local sbars = {}
  for i, pt in ipairs(pats) do sbars[i] = {label = pt.name, value = pt.sectors} end
  print("saved " .. report.svg_bars(sbars, "results/coalescing_predicted.svg", {title = "predicted " .. mem.SECTOR
        .. "-byte sectors per warp load (" .. ws .. " lanes)", xlabel = "sectors per warp load", format = "%d"}))
end
local claims = {"global_ld_sectors_per_request = the model's sectors per warp load for each stride (within 2 %)",
                "random: at least 90 % of " .. ws .. " sectors per request, and no fewer than any stride"}
local lclaims = {"the strided loads' line (bits ^= bits4(x[i * stride], ...)): global sectors = the model's sectors per "
                 .. "warp load / " .. (4 * ws // mem.SECTOR) .. " x their ideal, exactly (1, 2, 4, 8, 8, 8)"}
if ex.offline(dev, "measuring the patterns", p.save and {"results/coalescing.svg", "results/coalescing.csv"}) then
  hw.witness(claims)
  lw.witness(lclaims)
  return c:summary()
end

local grid = dev.attr.multiprocessor_count * ks:occupancy{block = p.block}.blocks_per_sm
local x <close> = cuda.array("f32", reads * MAX_STRIDE):zero()
local sink <close> = cuda.array("u32", 1):zero()
local stream = bw.read(x:view(1, reads), {reps = p.reps})
local rows, bars, bar = {}, {}, progress.new(#pats, "patterns")
for i, pt in ipairs(pats) do
  local st
  if pt.random then
    st = kr:bench{grid = grid, block = p.block, args = {x, reads, reads * MAX_STRIDE - 1, p.seed, sink},
                  warmup = 2, reps = p.reps}
  else
    st = ks:bench{grid = grid, block = p.block, args = {x, reads, pt.stride, sink}, warmup = 2, reps = p.reps}
  end
  pt.ms, pt.gbs = st.median, bw.gbs(4 * reads, st.median)
  rows[i] = {pt.name, pt.ms, pt.gbs, bw.pct(pt.gbs, stream.gbs), pt.gbs / pt.useful,
             string.format("%.2f x", pats[1].gbs / pt.gbs)}
  bars[i] = {label = pt.name, value = pt.gbs}
  bar:step()
end
bar:done()
local cols = {"pattern", "ms", "GB/s", "% of streaming read", "sector GB/s", "slower than stride 1"}
report.table(rows, {title = string.format("%d floats (%s asked for) per pattern, grid %d x %d; streaming read %.0f GB/s",
                    reads, mem.bytes_name(4 * reads), grid, p.block, stream.gbs), columns = cols,
                    format = {ms = "%.3f", ["GB/s"] = "%.0f", ["sector GB/s"] = "%.0f"}})

local s1, s32, rnd = pats[1], pats[#STRIDES], pats[#pats]
c:that(s1.gbs >= 0.6 * stream.gbs, "stride 1 reads at >= 60 % of the streaming read (4-byte loads, coalesced)",
       string.format("%.0f GB/s of %.0f", s1.gbs, stream.gbs))
local rises = {}
for i = 2, #STRIDES do
  if pats[i].gbs > 1.15 * pats[i - 1].gbs then rises[#rises + 1] = pats[i].name end
end
c:that(#rises == 0, "the GB/s never rises with the stride (within 15 %): a longer stride never uses sectors better",
       #rises > 0 and ("rises at " .. table.concat(rises, ", ")) or "")
local want = 0.5 * s1.useful / s32.useful -- half the model's factor: room for stride 1's own shortfall
c:that(s1.gbs >= want * s32.gbs, string.format("stride 1 >= %gx stride 32 (the model says %gx: 32-byte sectors, 4 bytes used of each)",
       want, s1.useful / s32.useful), string.format("%.2f x", s1.gbs / s32.gbs))
local slowest = math.huge
for i = 1, #STRIDES do slowest = math.min(slowest, pats[i].gbs) end
c:that(rnd.gbs <= 1.25 * slowest, "random reads are the slowest pattern (or within 25 % of the slowest stride)",
       string.format("random %.0f GB/s, slowest stride %.0f GB/s", rnd.gbs, slowest))
-- The second witness: one more launch of each pattern, counted (one replay pass: sectors
-- and requests of the loads alone).
if hw.witness(claims) then
  local rows = hw.each(pats, function(pt)
    if pt.random then kr{grid = grid, block = p.block, args = {x, reads, reads * MAX_STRIDE - 1, p.seed, sink}}
    else ks{grid = grid, block = p.block, args = {x, reads, pt.stride, sink}} end
  end, {"global_ld_sectors_per_request"})
  local most = 0
  for i, pt in ipairs(pats) do
    pt.spr = rows[i].global_ld_sectors_per_request
    if not pt.random then
      most = math.max(most, pt.spr)
      c:near(pt.spr, pt.sectors, 0.02, pt.name .. ": the counters see " .. pt.sectors .. " sectors per warp load")
    end
  end
  c:that(rnd.spr >= 0.9 * ws and rnd.spr >= 0.98 * most, "random: the most sectors per warp load (~" .. ws .. ")",
         string.format("%.2f sectors per request; the strides' most %.2f", rnd.spr, most))
end
-- The third witness, at the line: each stride once more (every thread one pass), by line.
if lw.witness(lclaims) then
  local strided = {table.unpack(pats, 1, #STRIDES)}
  local rows = lw.each(strided, function(pt) ks{grid = grid, block = p.block, args = {x, 4 * grid * p.block, pt.stride,
                       sink}} end, "global")
  for i, pt in ipairs(strided) do
    local r = lw.find(rows[i], "bits4(x[i * stride]")
    c:near(r and r.global_sectors / r.global_ideal or 0, pt.sectors / (4 * ws // mem.SECTOR), 0.001,
           pt.name .. ": the load line fetches " .. pt.sectors .. " sectors for each " .. (4 * ws // mem.SECTOR) .. " ideal")
  end
end
if p.save then
  print("saved " .. report.svg_bars(bars, "results/coalescing.svg", {title = mem.bytes_name(4 * reads)
        .. " of floats read on " .. dev.name, xlabel = "GB/s asked for", format = "%.0f",
        lines = {{label = "streaming read", value = stream.gbs}}}))
  print("saved " .. report.save("results/coalescing.csv", rows, {columns = cols}))
end
c:summary()
