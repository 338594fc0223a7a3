-- spills.lua: a register cap forces spills to local memory: more blocks fit on an SM, and the kernel still slows down.
-- Shows:  live_values (kernels_src/memory/spill.cu) keeps 96 floats live in every thread
--         and updates each from its neighbour every round. Compiled uncapped and with
--         cuda.compile{max_registers = 128, 96, 64, 48, 32}: registers, the spill loads
--         and stores ptxas reports, local memory per thread, resident blocks per SM; then
--         every build runs the same grid and the same rounds.
-- Expect: no spill bytes and no local memory uncapped; spills at 32 registers (and at
--         every cap below the uncapped count); the kernel at 32 registers is slower than
--         uncapped although more of its blocks fit on an SM. The hardware counters see
--         local-memory loads and stores exactly in the builds that spill; per line, local
--         sectors at the rounds' line at 32 registers, on no line uncapped.
-- Run:    warplab run examples/memory/spills.lua [-p block=256] [-p rounds=100] [-p reps=5] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local hw = require "warplab.counters"
local lw = require "warplab.lines"
local p = params{block = 256, rounds = 100, reps = 5, save = false}

local LIVE = 96
local dev = cuda.device()
local c = check.new("spills")
local caps, builds = {0, 128, 96, 64, 48, 32}, {}
for i, cap in ipairs(caps) do
  local m = assert(cuda.compile{file = "memory/spill.cu", defines = {WL_LIVE = LIVE}, lineinfo = true,
                                max_registers = cap > 0 and cap or nil})
  local k = m.live_values
  -- NVRTC's own compile cache (12.9+) can answer without the ptxas report; then the
  -- spill count is unknown and local memory (from the binary) is the evidence.
  local reported = m.log:find("bytes spill stores", 1, true) ~= nil
  builds[i] = {cap = cap, k = k, reported = reported, spill = reported and k.spill_bytes or nil,
               occ = k:occupancy{block = p.block}}
end
local function rows_of(timed)
  local out = {}
  for i, b in ipairs(builds) do
    out[i] = {b.cap > 0 and b.cap or "none", b.k.regs, b.spill or "not reported", b.k.local_bytes,
              b.occ.blocks_per_sm, string.format("%.0f %%", 100 * b.occ.occupancy),
              timed and b.ms or nil, timed and string.format("%.2f x", b.ms / builds[1].ms) or nil}
  end
  return out
end
local cols = {"max_registers", "regs", "spill B (st + ld)", "local B/thread", "blocks/SM", "occupancy", "ms", "slowdown"}
local function spilled(b) if b.spill then return b.spill > 0 end return b.k.local_bytes > 0 end
local free, capped = builds[1], builds[#builds]
c:that(not spilled(free) and free.k.local_bytes == 0, "uncapped: no spills, no local memory",
       string.format("%d registers, %s spill bytes, %d local bytes", free.k.regs, tostring(free.spill or "?"),
                     free.k.local_bytes))
c:that(spilled(capped), "max_registers = " .. capped.cap .. ": the compiler spills",
       capped.spill and (capped.spill .. " bytes of spill stores and loads per thread")
       or (capped.k.local_bytes .. " local bytes per thread (ptxas report not available)"))
local wrong = {}
for _, b in ipairs(builds) do
  if b.cap > 0 and b.cap < free.k.regs and not spilled(b) then wrong[#wrong + 1] = b.cap end
end
c:that(#wrong == 0, "every cap below the uncapped " .. free.k.regs .. " registers spills",
       #wrong > 0 and ("no spill at " .. table.concat(wrong, ", ")) or "")
if p.save then
  print("saved " .. report.save("results/spills_predicted.csv", rows_of(false), {columns = cols}))
  local lbars = {} -- local memory per thread: from the binary, known even where the ptxas report is not
  for i, b in ipairs(builds) do lbars[i] = {label = "cap " .. (b.cap > 0 and b.cap or "none") .. ": " .. b.k.regs
                                            .. " regs", value = b.k.local_bytes} end
  print("saved " .. report.svg_bars(lbars, "results/spills_predicted.svg", {title = LIVE .. " live floats under a "
        .. "register cap", xlabel = "local memory per thread (bytes)", format = "%d"}))
end
local claims = {"local_ld_requests + local_st_requests > 0 exactly for the builds that spill (here: max_registers "
                .. "below " .. free.k.regs .. "), 0 for the others"}
local lclaims = {"local sectors at the rounds' line (v[j] = 0.5f * (v[j] + v[(j + 1) % WL_LIVE])) at max_registers = 32, "
                 .. "on no line uncapped"}
if ex.offline(dev, "timing the builds", p.save and {"results/spills.svg", "results/spills.csv"}) then
  report.table(rows_of(false), {title = LIVE .. " live floats per thread under a register cap (" .. dev.name
                                .. ", block " .. p.block .. ")", columns = cols})
  hw.witness(claims)
  lw.witness(lclaims)
  return c:summary()
end

-- The same work for every build: a grid that fills every SM twice at the most blocks any build fits.
local most = 0
for _, b in ipairs(builds) do most = math.max(most, b.occ.blocks_per_sm) end
local grid = 2 * most * dev.attr.multiprocessor_count
local x <close> = cuda.array("f32", LIVE):random{seed = 3}
local out <close> = cuda.array("f32", grid * p.block)
local sums = {}
for i, b in ipairs(builds) do
  b.ms = b.k:bench{grid = grid, block = p.block, args = {x, out, p.rounds}, warmup = 1, reps = p.reps}.median
  sums[i] = out[1]
end
local trows = rows_of(true)
report.table(trows, {title = string.format("%d live floats, %d rounds, grid %d x %d: same work for every build",
                     LIVE, p.rounds, grid, p.block), columns = cols, format = {ms = "%.3f"}})
local same = true
for i = 2, #sums do same = same and math.abs(sums[i] - sums[1]) <= 1e-5 * math.abs(sums[1]) end
c:that(same, "every build computes the same sum (spilling changes where values live, not what they are)",
       string.format("thread 0: %.6g", sums[1]))
c:that(capped.ms > free.ms, string.format("max_registers = %d is slower than uncapped, with %d blocks/SM against %d",
       capped.cap, capped.occ.blocks_per_sm, free.occ.blocks_per_sm),
       string.format("%.3f ms vs %.3f ms: %.2f x", capped.ms, free.ms, capped.ms / free.ms))
-- The second witness: each build's launch once more, counted: local-memory traffic
-- exactly where ptxas spilled (live_values has no local array of its own).
if hw.witness(claims) then
  local rows = hw.each(builds, function(b) b.k{grid = grid, block = p.block, args = {x, out, p.rounds}} end, {"local"})
  local wrong_local = {}
  for i, b in ipairs(builds) do
    b.local_requests = rows[i].local_ld_requests + rows[i].local_st_requests
    if (b.local_requests > 0) ~= spilled(b) then wrong_local[#wrong_local + 1] = trows[i][1] end
  end
  c:that(#wrong_local == 0, "local-memory loads and stores exactly in the builds that spill",
         #wrong_local > 0 and ("not so at max_registers " .. table.concat(wrong_local, ", "))
         or string.format("%d local requests uncapped, %d at %d registers", free.local_requests,
                          capped.local_requests, capped.cap))
end
-- The third witness, at the line: the uncapped build and the one at 32 registers once more.
if lw.witness(lclaims) then
  local two = {free, capped}
  local rows = lw.each(two, function(b) b.k{grid = grid, block = p.block, args = {x, out, p.rounds}} end, "local")
  local at = lw.find(rows[2], "v[j] = 0.5f * (v[j] + v[(j + 1)")
  c:that(at and (at.local_sectors or 0) > 0, "max_registers = " .. capped.cap .. ": local sectors at the rounds' line",
         at and tostring(at.local_sectors) or "no such line counted")
  c:eq(lw.most(rows[1], "local_sectors") or 0, 0, "uncapped: no local sectors on any line")
end
if p.save then
  local bars = {}
  for i, b in ipairs(builds) do bars[i] = {label = "max_registers " .. trows[i][1], value = b.ms} end
  print("saved " .. report.svg_bars(bars, "results/spills.svg", {title = LIVE .. " live floats under a register cap on "
        .. dev.name, xlabel = "ms", format = "%.3f"}))
  print("saved " .. report.save("results/spills.csv", trows, {columns = cols}))
end
c:summary()
