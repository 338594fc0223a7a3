-- lib_experiment.lua: the pure parts of warplab.experiment on hand-made data: grouping,
-- Spearman rank correlation (ties, constant input), clustering by gaps, the overlap count
-- that turns block intervals into "blocks at once", the per-SM summary, the timeline
-- and arrival order; and their argument errors.
-- Depends on: warplab.experiment, warplab.test (no GPU, no cuda module).
local t = require "warplab.test"
local ex = require "warplab.experiment"

local function near(a, b)
  if math.abs(a - b) > 1e-12 then error(string.format("expected %.17g, got %.17g", b, a), 2) end
end

t.case("group keeps list order inside a group and sorts the keys", function()
  local g, keys = ex.group({5, 2, 7, 4, 9}, function(v) return v % 2 end)
  t.eq(keys, {0, 1})
  t.eq(g[1], {5, 7, 9})
  t.eq(g[0], {2, 4})
  t.checkerror("expected a list and a key function", ex.group, {1}, "not a function")
end)

t.case("spearman: monotone, reversed, ties, constant", function()
  near(ex.spearman({1, 2, 3, 4}, {10, 20, 25, 100}), 1)
  near(ex.spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1)
  -- x ranks 1, 2.5, 2.5, 4 against y ranks 1..4: 4.5 / sqrt(4.5 * 5).
  near(ex.spearman({1, 2, 2, 3}, {1, 2, 3, 4}), 4.5 / math.sqrt(4.5 * 5))
  t.eq(ex.spearman({3, 3, 3}, {1, 2, 3}), 0)
  t.checkerror("two lists of the same length >= 2", ex.spearman, {1, 2}, {1})
end)

t.case("clusters cut where neighbours are more than gap apart", function()
  local c = ex.clusters({1005, 0, 3, 1000, 2, 2001}, 10)
  t.eq(#c, 3)
  t.eq({c[1].lo, c[1].hi, c[1].n}, {0, 3, 3})
  t.eq({c[2].lo, c[2].hi, c[2].n}, {1000, 1005, 2})
  t.eq({c[3].lo, c[3].hi, c[3].n}, {2001, 2001, 1})
  t.eq(#ex.clusters({}, 1), 0)
end)

t.case("max_overlap: a start at another's stop does not overlap it", function()
  t.eq(ex.max_overlap({{0, 10}, {10, 20}, {20, 30}}), 1)
  t.eq(ex.max_overlap({{0, 10}, {5, 15}, {9, 20}, {15, 16}}), 3)
  t.eq(ex.max_overlap({}), 0)
end)

t.case("residency_summary, timeline and out_of_order on two SMs", function()
  -- SM 4 holds two blocks at once, then one; SM 7 one at a time.
  local recs = {
    {block = 0, sm = 4, start = 0, stop = 100, ticket = 1},
    {block = 1, sm = 7, start = 0, stop = 100, ticket = 0},
    {block = 2, sm = 4, start = 10, stop = 110, ticket = 2},
    {block = 3, sm = 4, start = 100, stop = 200, ticket = 3},
    {block = 4, sm = 7, start = 100, stop = 200, ticket = 4},
  }
  local s = ex.residency_summary(recs)
  t.eq({s.sms, s.max, s.min, s.at_max}, {2, 2, 1, 1})
  t.eq(s.per_sm, {[4] = 2, [7] = 1})
  t.eq(s.sm_list, {4, 7})
  -- 4 slices of 50: middles at 25, 75, 125, 175.
  t.eq(ex.timeline(recs, {4, 7}, 4), {{2, 2, 1, 1}, {1, 1, 1, 1}})
  local moved, order = ex.out_of_order(recs)
  t.eq(moved, 2)
  t.eq({order[1].block, order[2].block, order[5].block}, {1, 0, 4})
end)

t.case("offline says so only for a profile", function()
  local said = {}
  local saved = print
  print = function(s) said[#said + 1] = s end -- luacheck: ignore
  local live = ex.offline({live = true, source = "device 0"}, "x")
  local off = ex.offline({live = false, source = "profile h200"}, "timing blocks")
  print = saved -- luacheck: ignore
  t.eq({live, off, #said}, {false, true, 1})
  assert(said[1]:find("no GPU here (profile h200): timing blocks needs one", 1, true), said[1])
end)

t.case("offline with -p save=true names the files it did not write", function()
  local said = {}
  local saved = print
  print = function(s) said[#said + 1] = s end -- luacheck: ignore
  ex.offline({live = false, source = "profile h100"}, "timing", {"results/a.csv", "results/a.svg"})
  ex.offline({live = false, source = "profile h100"}, "timing", false) -- without -p save=true
  ex.offline({live = true, source = "device 0"}, "timing", {"results/a.csv"})
  print = saved -- luacheck: ignore
  t.eq(#said, 3)
  t.eq(said[2], "-p save=true: not written without a GPU (they hold measurements): results/a.csv, results/a.svg")
end)

t.run{exit = true}
