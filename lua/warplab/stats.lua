-- warplab/stats.lua: descriptive statistics over a list of numbers (timings, counts).
-- Every function checks its sample (a non-empty list of numbers, no NaN) and names the
-- offending entry; percentiles interpolate linearly between ranks, as numpy's default.
-- Depends on: warplab.util (errors at the script's line).
local util = require "warplab.util"
local stats = {}

-- Raise at the script's line: level 3 = check (1) -> stats function (2) -> caller (3).
-- NaN is refused rather than skipped: it compares false with everything, so it would
-- land anywhere in a sort and silently shift medians and percentiles.
local function check(samples, who)
  if type(samples) ~= "table" then
    error(string.format("stats.%s: expected a list of numbers, got %s", who, type(samples)), 3)
  end
  local n = #samples
  if n == 0 then error("stats." .. who .. ": the sample is empty", 3) end
  for i = 1, n do
    local v = samples[i]
    if type(v) ~= "number" then
      error(string.format("stats.%s: sample %d is %s, expected a number", who, i, type(v)), 3)
    end
    if v ~= v then error(string.format("stats.%s: sample %d is NaN", who, i), 3) end
  end
  return n
end

-- Order statistics sort a copy: the caller's list (often in launch order) stays as is.
local function sorted_copy(samples, n)
  local s = table.move(samples, 1, n, 1, {})
  table.sort(s)
  return s
end

function stats.min(samples)
  local n = check(samples, "min")
  local m = samples[1]
  for i = 2, n do
    if samples[i] < m then m = samples[i] end
  end
  return m
end

function stats.max(samples)
  local n = check(samples, "max")
  local m = samples[1]
  for i = 2, n do
    if samples[i] > m then m = samples[i] end
  end
  return m
end

-- The sum of integers is an integer while it fits in 64 bits; past that, a float (Lua's
-- integers would wrap around: maxinteger + 1 is mininteger). A float sum that overflows
-- with every sample finite is summed again in halves, then doubled: inf only when the
-- true sum is out of range.
local function total(samples, n)
  local s, ints = 0, true
  for i = 1, n do
    local v = samples[i]
    if ints and math.type(v) == "integer" and not ((v > 0 and s > math.maxinteger - v)
                                                   or (v < 0 and s < math.mininteger - v)) then
      s = s + v
    else
      if ints then s, ints = s + 0.0, false end
      s = s + v
    end
  end
  if s == math.huge or s == -math.huge then
    local h = 0.0
    for i = 1, n do h = h + samples[i] / 2 end
    if h ~= math.huge and h ~= -math.huge and h == h then s = h * 2 end
  end
  return s
end

function stats.sum(samples)
  return total(samples, check(samples, "sum"))
end

-- The mean is always a float, even for integer samples. A sum past the largest float
-- (two samples of 1e308) is taken as the sum of samples / n, which cannot overflow.
local function mean_of(samples, n)
  local s = total(samples, n) / n
  if s == math.huge or s == -math.huge then
    s = 0.0
    for i = 1, n do s = s + samples[i] / n end
  end
  return s + 0.0
end

function stats.mean(samples)
  return mean_of(samples, check(samples, "mean"))
end

-- Interpolated p-th percentile of a sorted list: rank h = (n - 1) * p / 100 between
-- the entries around it (p = 0 is the minimum, 50 the median, 100 the maximum).
local function percentile_sorted(s, n, p)
  local h = (n - 1) * p / 100
  local lo = math.floor(h)
  local a, b = s[lo + 1], s[math.min(lo + 2, n)]
  if h == lo then return a end
  local f = h - lo
  local d = b - a
  if d == math.huge or d == -math.huge then return a * (1 - f) + b * f end -- -1e308 .. 1e308
  return a + f * d
end

-- p outside 0..100 is a misuse (a fraction like 0.95 passed by mistake would silently
-- give a value near the minimum), so it raises.
function stats.percentile(samples, p)
  local n = check(samples, "percentile")
  if type(p) ~= "number" or p ~= p or p < 0 or p > 100 then
    error("stats.percentile: p must be a number from 0 to 100, got " .. tostring(p), 2)
  end
  return percentile_sorted(sorted_copy(samples, n), n, p)
end

function stats.median(samples)
  local n = check(samples, "median")
  return percentile_sorted(sorted_copy(samples, n), n, 50)
end

-- Sample standard deviation (divides by n - 1); 0 for a single sample. Welford's
-- running update keeps precision when the values are large and close together (clock
-- counts around 2^31, timings that differ in the fifth digit).
local function stdev(samples, n)
  if n < 2 then return 0.0 end
  -- Samples past 2^500 are scaled by a power of two first (exact), so that differences
  -- and squares of values near the largest float do not overflow.
  local big = 0.0
  for i = 1, n do big = math.max(big, math.abs(samples[i])) end
  local scale = 1.0
  if big > 2.0 ^ 500 then scale = 2.0 ^ 600 end
  local mean, m2 = 0.0, 0.0
  for i = 1, n do
    local x = samples[i] / scale
    local d = x - mean
    mean = mean + d / i
    m2 = m2 + d * (x - mean)
  end
  return math.sqrt(m2 / (n - 1)) * scale
end

function stats.stdev(samples)
  local n = check(samples, "stdev")
  return stdev(samples, n)
end

-- Everything at once: {min, max, mean, median, stdev, n}, sorting only once.
function stats.summary(samples)
  local n = check(samples, "summary")
  local s = sorted_copy(samples, n)
  return {
    min = s[1], max = s[n], mean = mean_of(s, n), median = percentile_sorted(s, n, 50),
    stdev = stdev(samples, n), n = n,
  }
end

return util.api("stats", stats)
