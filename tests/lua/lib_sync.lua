-- lib_sync.lua: the pure parts of warplab.sync: inversions (against a brute-force count on
-- random permutations, sorted and reversed lists, ties), first_order, ns text.
-- Depends on: warplab.sync, warplab.test (no GPU, no cuda module).
local t = require "warplab.test"
local sync = require "warplab.sync"

local function brute(list)
  local n = 0
  for i = 1, #list do
    for j = i + 1, #list do if list[i] > list[j] then n = n + 1 end end
  end
  return n
end

t.case("inversions: the edge cases", function()
  t.eq(sync.inversions({}), 0)
  t.eq(sync.inversions({7}), 0)
  t.eq(sync.inversions({0, 1, 2, 3, 4}), 0)
  t.eq(sync.inversions({4, 3, 2, 1, 0}), 10)
  t.eq(sync.inversions({1, 0}), 1)
  t.eq(sync.inversions({2, 2, 2}), 0) -- ties are not inversions
  t.eq(sync.inversions({3, 1, 2}), 2)
  t.checkerror("sync.inversions: expected a list of numbers", sync.inversions, 5)
end)

t.case("inversions: equal to a brute-force count", function()
  math.randomseed(11)
  for _, n in ipairs{2, 3, 5, 8, 13, 31, 64, 100, 257} do
    local list = {}
    for i = 1, n do list[i] = i - 1 end
    for i = n, 2, -1 do
      local j = math.random(1, i)
      list[i], list[j] = list[j], list[i]
    end
    t.eq(sync.inversions(list), brute(list), "permutation of " .. n)
    local with_ties = {}
    for i = 1, n do with_ties[i] = math.random(0, 5) end
    t.eq(sync.inversions(with_ties), brute(with_ties), "ties, n = " .. n)
  end
end)

t.case("inversions leave the list alone", function()
  local list = {3, 1, 2}
  sync.inversions(list)
  t.eq(list, {3, 1, 2})
end)

t.case("first_order: first appearances in order", function()
  t.eq(sync.first_order({5, 2, 5, 9, 2, 0, 9}), {5, 2, 9, 0})
  t.eq(sync.first_order({}), {})
end)

t.case("ns: the unit follows the size", function()
  t.eq(sync.ns(12.34), "12.3 ns")
  t.eq(sync.ns(4560), "4.56 us")
  t.eq(sync.ns(1.2e6), "1.20 ms")
  t.eq(sync.ns(3.4e9), "3.40 s")
  t.eq(sync.ns(1e308), "1e+299 s", "three digits, no 300-digit number")
  t.eq(sync.ns(-4560), "-4.56 us", "a negative duration keeps its unit")
  t.eq(sync.ns(-2), "-2.0 ns")
  t.eq(sync.ns(0.25), "0.2 ns")
  t.eq(sync.ns(7), "7.0 ns")
  t.eq(sync.ns(0 / 0), "nan ns")
  t.eq(sync.ns(math.huge), "inf ns")
  t.eq(sync.ns(-math.huge), "-inf ns")
  t.checkerror("sync.ns: v is a duration in nanoseconds, got nil", sync.ns, nil)
  t.checkerror("sync.ns: v is a duration in nanoseconds, got a string", sync.ns, "12")
end)

t.run{exit = true}
