-- vote.lua: warp vote and shuffle intrinsics, checked lane by lane against a CPU model.
-- Shows:  __ballot_sync, __all_sync, __any_sync, __activemask, __match_any_sync and
--         __shfl_sync/_up/_down/_xor (widths 32, 8, 4) on known patterns, over all lanes,
--         over the even lanes only, and over a mask computed at run time.
-- Expect: every result equals lua/warplab/warpmodel.lua's prediction; lanes outside an
--         op's mask keep the sentinel; a shuffle that would leave its `width` segment
--         returns the lane's own value (that is the rule, not an error).
-- Run:    warplab run examples/warps/vote.lua        (-p seed=7, -p save=true)
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local model = require "warplab.warpmodel"
local p = params{seed = 1, save = false}

local dev = cuda.device()
print(dev)
local m = assert(cuda.compile("warps/vote_shuffle.cu"))
local k = m.vote_shuffle
print(k)

-- Op order of VoteOp in vote_shuffle.cu, and what each one computes.
local OPS = {"ballot(v&1)", "all(v&1)", "any(v%8==0)", "activemask in if(v%3==0)",
             "match_any(v&3)", "shfl(src)", "shfl_up", "shfl_down", "shfl_xor",
             "even: ballot(v&1)", "even: all(v&1)", "even: any(v%8==0)", "even: shfl_xor 2",
             "even: shfl_down 2", "leader broadcast"}
local EVEN, WARPS, SENTINEL, THRESHOLD = 0x55555555, 4, 0xdeadbeef, 0x80000000
-- Shuffle parameters per launch: src = (lane * mul + add) & 31, delta, xor mask, width.
local CASES = {
  {mul = 1, add = 1, delta = 1, xor = 1, width = 32},  -- rotate by one, neighbours
  {mul = 7, add = 3, delta = 5, xor = 19, width = 32}, -- a permutation of the lanes
  {mul = 1, add = 11, delta = 2, xor = 4, width = 8},  -- src 11 wraps to 3 in each 8-lane segment
  {mul = 3, add = 0, delta = 3, xor = 8, width = 8},   -- xor 8: earlier segment read, later = own
  {mul = 5, add = 2, delta = 1, xor = 3, width = 4},
}
print(string.format("plan: %d launches of %d warps x %d ops; data: warp 0 all odd, warp 1 all"
                    .. " multiples of 8, warps 2-3 random (seed %d)", #CASES, WARPS, #OPS, p.seed))
if not dev.live then
  print("no GPU here (" .. dev.source .. "): the kernel compiled; the launches and checks need one")
  require("warplab.experiment").skipped(p.save and {"results/vote_sources.svg", "results/vote.csv"})
  return
end

local c = check.new("vote")
c:eq(dev.attr.warp_size, 32, "warp size is 32 (the masks below are 32-bit)")
-- Known patterns in warps 0 and 1, random values in warps 2 and 3.
math.randomseed(p.seed)
local v = {}
for w = 0, WARPS - 1 do
  v[w] = {}
  for lane = 0, 31 do
    v[w][lane + 1] = (w == 0) and (2 * lane + 1) or (w == 1) and (8 * lane)
                     or math.random(0, 0xffffffff)
  end
end
local flat = {}
for w = 0, WARPS - 1 do table.move(v[w], 1, 32, w * 32 + 1, flat) end
local vin <close> = cuda.array("u32", WARPS * 32):set(flat)
local out <close> = cuda.array("u32", WARPS * 32 * #OPS)

-- The model's answer for op `op` (1-based) of warp values `x`: a list by lane, nil
-- where the lane does not take part (its sentinel must survive).
local function expected(op, x, cs)
  local odd, zero8, key, over = {}, {}, {}, {}
  for i = 1, 32 do
    odd[i], zero8[i], key[i], over[i] = x[i] & 1 == 1, x[i] & 7 == 0, x[i] & 3, x[i] > THRESHOLD
  end
  local function each(mask, val)
    local r = {}
    for lane = 0, 31 do if (mask >> lane) & 1 == 1 then r[lane + 1] = val end end
    return r
  end
  local lead = model.ballot(over)
  if op == 1 then return each(model.FULL, model.ballot(odd)) end
  if op == 2 then return each(model.FULL, model.all(odd)) end
  if op == 3 then return each(model.FULL, model.any(zero8)) end
  if op == 4 then
    local took = 0
    for lane = 0, 31 do if x[lane + 1] % 3 == 0 then took = took | (1 << lane) end end
    return each(took, took)
  end
  if op == 5 then return model.match_any(key) end
  if op == 6 then
    local r = {}
    for lane = 0, 31 do
      r[lane + 1] = x[model.shfl_source(lane, "idx", (lane * cs.mul + cs.add) & 31, cs.width) + 1]
    end
    return r
  end
  if op == 7 then return model.shfl(x, "up", cs.delta, cs.width) end
  if op == 8 then return model.shfl(x, "down", cs.delta, cs.width) end
  if op == 9 then return model.shfl(x, "xor", cs.xor, cs.width) end
  if op == 10 then return each(EVEN, model.ballot(odd, EVEN)) end
  if op == 11 then return each(EVEN, model.all(odd, EVEN)) end
  if op == 12 then return each(EVEN, model.any(zero8, EVEN)) end
  if op == 13 then return model.shfl(x, "xor", 2, 32, EVEN) end
  if op == 14 then return model.shfl(x, "down", 2, 32, EVEN) end
  if op == 15 then return each(lead, lead ~= 0 and x[model.lowest(lead) + 1] or nil) end
end

local bad, exact_active, active_lanes, last = {}, 0, 0, nil
for op = 1, #OPS do bad[op] = {n = 0} end
for ci, cs in ipairs(CASES) do
  out:fill(SENTINEL)
  k:launch(1, WARPS * 32, vin, out, cs.mul, cs.add, cs.delta, cs.xor, cs.width, THRESHOLD)
  last = out:get()
  for w = 0, WARPS - 1 do
    for op = 1, #OPS do
      local want = expected(op, v[w], cs)
      for lane = 0, 31 do
        local g, e = last[(w * #OPS + op - 1) * 32 + lane + 1], want[lane + 1] or SENTINEL
        local ok = g == e
        if op == 4 and e ~= SENTINEL then
          -- __activemask() promises the calling lane and the lanes executing with it: a
          -- subset of the branch's lanes. All of them is typical, not promised.
          ok = (g >> lane) & 1 == 1 and g & ~e == 0
          active_lanes = active_lanes + 1
          if g == e then exact_active = exact_active + 1 end
        end
        if not ok then
          bad[op].n = bad[op].n + 1
          bad[op].first = bad[op].first or
              string.format("case %d warp %d lane %d: got 0x%08x, model 0x%08x", ci, w, lane, g, e)
        end
      end
    end
  end
end

for op, name in ipairs(OPS) do
  c:that(bad[op].n == 0, name .. " matches the model",
         bad[op].first or (#CASES * WARPS * 32 .. " lanes compared"))
end
print(string.format("activemask inside the branch was exactly the branch's lanes for %d of %d lanes",
                    exact_active, active_lanes))

-- Evidence: which lane each shuffle read, for warp 2 (random values, so distinct) of the
-- last case (width 4). Read it as: row = op, column = lane, colour = source lane.
local cs, where = CASES[#CASES], {}
for i, x in ipairs(v[2]) do where[x] = i - 1 end
local rows, names = {}, {}
for _, op in ipairs{6, 7, 8, 9, 13, 14} do
  local r = {}
  for lane = 0, 31 do r[lane + 1] = where[last[(2 * #OPS + op - 1) * 32 + lane + 1]] end
  rows[#rows + 1], names[#names + 1] = r, OPS[op]
end
report.heatmap(rows, {title = string.format("source lane of each shuffle (warp 2, width %d, delta %d,"
               .. " xor %d); '??' = lane took no part", cs.width, cs.delta, cs.xor),
               labels = {rows = names}, legend = "source lane", min = 0, max = 31,
               svg = p.save and "results/vote_sources.svg" or nil})
local tbl = {}
for l = 1, 32 do
  tbl[l] = {l - 1, string.format("%08x", v[2][l]), rows[1][l], rows[2][l], rows[3][l], rows[4][l]}
end
report.table({table.unpack(tbl, 1, 16)}, {title = "lanes 0-15 of the map above",
             columns = {"lane", "v", "shfl src", "up src", "down src", "xor src"}})
if p.save then
  report.save("results/vote.csv", tbl, {columns = {"lane", "v", "shfl", "up", "down", "xor"}})
end
c:summary()
