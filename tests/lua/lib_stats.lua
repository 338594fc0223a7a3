-- lib_stats.lua: warplab.stats on known samples: min/max/mean/median, sample standard
-- deviation (and its precision on large close values), interpolated percentiles,
-- summary, and the errors for empty or non-numeric samples; sums past 64-bit integers and
-- means, medians and deviations of samples near the largest float.
-- Depends on: warplab.stats, warplab.test.
local t = require "warplab.test"
local stats = require "warplab.stats"

local function near(a, b, tol)
  if math.abs(a - b) > (tol or 1e-12) * math.max(1, math.abs(b)) then
    error(string.format("expected %.17g, got %.17g", b, a), 2)
  end
end

local S = {2, 4, 4, 4, 5, 5, 7, 9} -- mean 5, squared deviations sum to 32

t.case("min, max, sum, mean", function()
  t.eq(stats.min({3, -1, 2}), -1)
  t.eq(stats.max({3, -1, 2}), 3)
  t.eq(math.type(stats.min({3, 1})), "integer", "integers stay integers")
  t.eq(stats.sum(S), 40)
  t.eq(stats.mean(S), 5.0)
  t.eq(stats.mean({1, 2}), 1.5)
end)

t.case("median of odd and even counts, input left unsorted", function()
  local odd = {9, 1, 5}
  t.eq(stats.median(odd), 5)
  t.eq(odd, {9, 1, 5}, "the caller's list is not sorted in place")
  t.eq(stats.median({4, 1, 3, 2}), 2.5)
  t.eq(stats.median({7}), 7)
end)

t.case("stdev is the sample standard deviation (n - 1)", function()
  near(stats.stdev(S), math.sqrt(32 / 7))
  t.eq(stats.stdev({42}), 0.0)
  t.eq(stats.stdev({3, 3, 3}), 0.0)
end)

t.case("stdev keeps precision on large, close values", function()
  -- {4, 7, 13, 16} has mean 10, squared deviations 36 + 9 + 9 + 36 = 90, stdev sqrt(30).
  -- Shifted by 1e9 a sum-of-squares formula loses every digit; Welford's does not.
  local big = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16}
  near(stats.stdev(big), math.sqrt(30), 1e-9)
end)

t.case("percentile interpolates linearly between ranks", function()
  local s = {1, 2, 3, 4, 5}
  t.eq(stats.percentile(s, 0), 1)
  t.eq(stats.percentile(s, 100), 5)
  t.eq(stats.percentile(s, 25), 2.0)
  t.eq(stats.percentile({1, 2, 3, 4}, 25), 1.75)
  near(stats.percentile({10, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 90), 9.1)
  t.eq(stats.percentile({5}, 99), 5)
  t.eq(stats.percentile({4, 1, 3, 2}, 50), stats.median({4, 1, 3, 2}))
end)

t.case("summary has every figure at once", function()
  local s = stats.summary(S)
  t.eq(s.n, 8)
  t.eq(s.min, 2)
  t.eq(s.max, 9)
  t.eq(s.mean, 5.0)
  t.eq(s.median, 4.5)
  near(s.stdev, math.sqrt(32 / 7))
  local keys = {}
  for k in pairs(s) do keys[#keys + 1] = k end
  table.sort(keys)
  t.eq(keys, {"max", "mean", "median", "min", "n", "stdev"})
end)

t.case("errors name the function and the bad entry", function()
  t.checkerror("stats.mean: the sample is empty", stats.mean, {})
  t.checkerror("stats.median: sample 2 is string, expected a number", stats.median, {1, "2"})
  t.checkerror("stats.max: sample 3 is NaN", stats.max, {1, 2, 0 / 0})
  t.checkerror("stats.summary: expected a list of numbers, got nil", stats.summary, nil)
  t.checkerror("stats.percentile: p must be a number from 0 to 100, got 101", stats.percentile, {1}, 101)
  t.checkerror("stats.percentile: p must be a number from 0 to 100, got nil", stats.percentile, {1})
  local line = debug.getinfo(1, "l").currentline + 1
  local ok, msg = pcall(function() local m = stats.stdev({}); return m end)
  assert(not ok)
  t.eq(msg:match("lib_stats%.lua:(%d+):"), tostring(line), "error names the script line")
end)

t.case("integer sums past 2^63 become floats instead of wrapping around", function()
  local s = stats.sum({math.maxinteger, 1})
  t.eq(math.type(s), "float")
  t.eq(s, 2.0 ^ 63, "maxinteger + 1, not mininteger")
  t.eq(stats.sum({math.mininteger, -1}), -(2.0 ^ 63))
  t.eq(stats.sum({math.maxinteger, 1, -1}), 2.0 ^ 63 - 1 + 1, "a float once past the range")
  t.eq(math.type(stats.sum({1, 2, 3})), "integer", "in range: still an integer")
  t.eq(stats.mean({math.maxinteger, math.maxinteger}), 2.0 ^ 63)
end)

t.case("means, medians and deviations of samples near the largest float stay finite", function()
  t.eq(stats.mean({1e308, 1e308}), 1e308, "the sum overflows, the mean does not")
  t.eq(stats.mean({-1e308, -1e308, -1e308}), -1e308)
  t.eq(stats.mean({-1e308, 1e308}), 0.0)
  t.eq(stats.sum({1e308, 1e308, -1e308}), 1e308, "the sum is in range, a partial sum is not")
  t.eq(stats.sum({1e308, 1e308}), math.huge, "a sum out of range is inf")
  t.eq(stats.median({-1e308, 1e308}), 0.0)
  t.eq(stats.percentile({-1e308, 1e308}, 25), -5e307)
  near(stats.stdev({1e308, -1e308}), math.sqrt(2) * 1e308, 1e-12)
  local s = stats.summary({1e308, 1e308, 1e308})
  t.eq({s.mean, s.median, s.stdev}, {1e308, 1e308, 0.0})
  near(stats.stdev({2, 4, 4, 4, 5, 5, 7, 9}), math.sqrt(32 / 7), 1e-15)
end)

t.run{exit = true}
