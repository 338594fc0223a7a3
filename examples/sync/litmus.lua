-- litmus.lua: the memory model by litmus tests: MP, SB, LB, IRIW, CoRR and the last-block ticket, each with no fence, fences, release/acquire and seq_cst, between blocks and between warps, with and without stress.
-- Shows:  litmus (kernels_src/sync/litmus.cu) runs `iters` iterations of every instance at
--         once (all testing threads of a cooperative grid: 2 blocks per SM, `testers`
--         per block), the threads' roles and the locations shuffled each iteration, and
--         counts each outcome of the registers. Every test runs each of its variants in both
--         placements (threads in different blocks; in different warps of one block), first
--         plain, then with `stress` (the other half of each block hammering a scratch buffer,
--         the testers touching it a random 0-3 times first). The model (warplab.litmus)
--         says for each cell whether the weak outcome is forbidden.
-- Expect: no forbidden outcome in any cell (millions of runs each); every run counted once;
--         weak outcomes the model allows are reported as measured (they may be 0 here: the
--         doc says which appeared on the GPUs measured).
-- Run:    warplab run examples/sync/litmus.lua [-p iters=200] [-p tests=MP,SB] [-p stress=16] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local litmus = require "warplab.litmus"
local p = params{iters = 200, testers = 256, stress = 16, seed = 1, tests = "all", save = false}
for _, r in ipairs{{"iters", 1, 1 << 20}, {"testers", 128, 512}, {"stress", 0, 1 << 20}} do
  if p[r[1]] < r[2] or p[r[1]] > r[3] then
    warplab.raise("parameter", string.format("params: -p %s=%d: give %d to %d", r[1], p[r[1]], r[2], r[3]), 0)
  end
end
if p.testers & (p.testers - 1) ~= 0 then
  warplab.raise("parameter", "params: -p testers=" .. p.testers .. ": a power of two (128, 256, 512)", 0)
end
-- The tests asked for, before anything compiles: a name no test has is the command line's error.
local tests = {}
for name in (p.tests == "all" and "MP,SB,LB,IRIW,CoRR,TICKET" or p.tests):gmatch("[^,%s]+") do
  tests[#tests + 1] = litmus.find(name) or
    warplab.raise("parameter", "params: -p tests=" .. p.tests .. ": no test '" .. name .. "' (MP, SB, LB, IRIW, CoRR, TICKET)", 0)
end
if #tests == 0 then warplab.raise("parameter", "params: -p tests='" .. p.tests .. "' names no test (MP, SB, LB, IRIW, CoRR, TICKET)", 0) end

local dev = cuda.device()
local sms = dev.attr.multiprocessor_count -- before the compile: a profile without it stops here
local m = assert(cuda.compile("sync/litmus.cu"))
local k = m.litmus
local c = check.new("litmus")
local block = 2 * p.testers
local per_sm = math.min(2, k:occupancy{block = block}.blocks_per_sm)
local grid = sms * per_sm
grid = grid - grid % 4 -- the block placement splits the grid in 2 or 4 groups
-- The plan: every cell, the model's verdict, and how many runs it gets.
local plan = {}
for _, t in ipairs(tests) do
  local runs = grid * p.testers // t.roles * p.iters
  for _, v in ipairs(t.variants) do
    for pl = 0, 1 do
      local forbid, why = litmus.forbidden(t, v, pl)
      plan[#plan + 1] = {test = t, v = v, pl = pl, forbid = forbid, why = why, runs = runs}
    end
  end
end
local prow = {}
for _, e in ipairs(plan) do
  prow[#prow + 1] = {e.test.name, litmus.VARIANTS[e.v], litmus.PLACEMENTS[e.pl], e.forbid and "FORBIDDEN" or "allowed", e.why}
end
report.table(prow, {title = "the PTX model's verdict on each weak outcome", columns = {"test", "variant", "placement", "weak outcome", "why"}})
for _, t in ipairs(tests) do print(string.format("  %-6s %s; weak: %s", t.name, t.program, t.weak_text)) end
local ok, why = k:check{grid = grid, block = block, cooperative = true}
c:that(ok, string.format("the cooperative grid (%d blocks of %d threads) passes validation", grid, block), ok and "" or why)
c:that(plan[1].runs >= 1e6, "each cell gets millions of runs", string.format("%d runs per 2-thread cell", plan[1].runs))
if ex.offline(dev, "running the litmus tests", p.save and {"results/litmus.csv"}) then return c:summary() end

local slots = 1
while slots < grid * p.testers // 2 do slots = slots * 2 end
local STRIDE, WORDS = 32, 4096
local loc <close> = cuda.array("u32", slots * 2 * STRIDE):zero()
local res <close> = cuda.array("u32", 4 * grid * p.testers // 2):zero()
local scratch <close> = cuda.array("u32", WORDS):zero()
local hist <close> = cuda.array("u64", 16)
local rows, bad, miscounted, seed = {}, {}, {}, p.seed
for _, e in ipairs(plan) do
  for _, stress in ipairs{0, p.stress} do
    hist:zero()
    seed = seed + 1
    k{grid = grid, block = block, cooperative = true,
      args = {e.test.id, e.v, e.pl, stress, p.iters, seed, loc, slots, STRIDE, res, scratch, WORDS, hist}}
    local h, total = hist:get(), 0
    for o = 1, 16 do total = total + h[o] end
    local weak = h[e.test.weak + 1]
    local cell = string.format("%s %s %s%s", e.test.name, litmus.VARIANTS[e.v], litmus.PLACEMENTS[e.pl], stress > 0 and " +stress" or "")
    if total ~= e.runs then miscounted[#miscounted + 1] = cell .. ": " .. total end
    if e.forbid and weak > 0 then bad[#bad + 1] = cell .. ": " .. weak end
    local seen = {}
    for o = 0, (1 << e.test.regs) - 1 do
      if h[o + 1] > 0 then seen[#seen + 1] = string.format("%s:%d", o, h[o + 1]) end
    end
    rows[#rows + 1] = {test = e.test.name, variant = litmus.VARIANTS[e.v], placement = litmus.PLACEMENTS[e.pl],
                       stress = stress > 0 and "yes" or "no", model = e.forbid and "forbidden" or "allowed",
                       runs = total, weak = weak, outcomes = table.concat(seen, " ")}
  end
end
report.table(rows, {title = "outcome counts (outcome = the registers as bits, r0 the lowest: count)",
                    columns = {"test", "variant", "placement", "stress", "model", "runs", "weak", "outcomes"}})
c:that(#miscounted == 0, "every run counted exactly once (instances x iterations per cell)", table.concat(miscounted, "; "))
local fewest, most = math.huge, 0
for _, e in ipairs(plan) do fewest, most = math.min(fewest, e.runs), math.max(most, e.runs) end
c:that(#bad == 0, string.format("no forbidden outcome in any of %d cells", 2 * #plan), #bad > 0 and table.concat(bad, "; ")
       or string.format("%d to %d runs per cell", fewest, most))
local weak_seen = {}
for _, r in ipairs(rows) do
  if r.model == "allowed" and r.weak > 0 then weak_seen[#weak_seen + 1] = string.format("%s %s %s%s: %d", r.test, r.variant,
    r.placement, r.stress == "yes" and " +stress" or "", r.weak) end
end
print("weak outcomes the model allows, seen here: " .. (#weak_seen > 0 and table.concat(weak_seen, "; ") or "none"))
if p.save then
  print("saved " .. report.save("results/litmus.csv", rows,
        {columns = {"test", "variant", "placement", "stress", "model", "runs", "weak", "outcomes"}}))
end
c:summary()
