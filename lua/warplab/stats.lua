-- warplab/stats.lua: descriptive statistics over a list of numbers (timings, counts).
-- Every function checks its sample (a non-empty list of numbers, no NaN) and names the
-- offending entry; percentiles interpolate linearly between ranks, as numpy's default.
-- Depends on: the Lua 5.4 standard library only.
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

function stats.sum(samples)
  local n = check(samples, "sum")
  local s = 0
  for i = 1, n do s = s + samples[i] end
  return s
end

-- The mean is always a float (starting the sum at 0.0), even for integer samples.
function stats.mean(samples)
  local n = check(samples, "mean")
  local s = 0.0
  for i = 1, n do s = s + samples[i] end
  return s / n
end

-- Interpolated p-th percentile of a sorted list: rank h = (n - 1) * p / 100 between
-- the entries around it (p = 0 is the minimum, 50 the median, 100 the maximum).
local function percentile_sorted(s, n, p)
  local h = (n - 1) * p / 100
  local lo = math.floor(h)
  local a, b = s[lo + 1], s[math.min(lo + 2, n)]
  return a + (h - lo) * (b - a)
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
  local mean, m2 = 0.0, 0.0
  for i = 1, n do
    local d = samples[i] - mean
    mean = mean + d / i
    m2 = m2 + d * (samples[i] - mean)
  end
  return math.sqrt(m2 / (n - 1))
end

function stats.stdev(samples)
  local n = check(samples, "stdev")
  return stdev(samples, n)
end

-- Everything at once: {min, max, mean, median, stdev, n}, sorting only once.
function stats.summary(samples)
  local n = check(samples, "summary")
  local s = sorted_copy(samples, n)
  local sum = 0.0
  for i = 1, n do sum = sum + s[i] end
  return {
    min = s[1], max = s[n], mean = sum / n, median = percentile_sorted(s, n, 50),
    stdev = stdev(samples, n), n = n,
  }
end

return stats
