-- lib_cycles.lua: deep equality (warplab.check's c:eq, warplab.test's t.eq, util.deep_equal)
-- on tables that contain themselves: the same table is equal at once, two cycles of the
-- same shape are equal, a difference inside a cycle is found with its path, and none of
-- it walks on without end (each case runs under an instruction budget: a walk that
-- recursed into the cycle took a minute and 20 GB before "stack overflow").
-- Depends on: warplab.check, warplab.test, warplab.util.
local t = require "warplab.test"
local check = require "warplab.check"
local util = require "warplab.util"

-- f(...) with at most `n` Lua instructions (a count hook raises past them).
local function within(n, f, ...)
  debug.sethook(function() error("still comparing after " .. n .. " instructions", 2) end, "", n)
  local r = table.pack(pcall(f, ...))
  debug.sethook()
  if not r[1] then error(r[2], 2) end
  return table.unpack(r, 2, r.n)
end

local function self_table()
  local x = {n = 1}
  x.t = x
  return x
end

t.case("c:eq of a table that contains itself with itself: equal at once", function()
  local lines = {}
  local c = check.new("cycle", {out = function(l) lines[#lines + 1] = l end})
  local x = self_table()
  t.eq(within(1e5, c.eq, c, x, x, "same table"), true)
  t.eq(lines, {"  ok   same table  (a table of 2 entries, all equal)"})
  local nan = {0 / 0}
  t.eq(within(1e5, c.eq, c, nan, nan, "same table with NaN"), true, "the same object, whatever it holds")
end)

t.case("two cycles of the same shape are equal; a difference inside one is found", function()
  t.eq(within(1e5, util.deep_equal, self_table(), self_table()), true)
  local a, b = {1, {2}}, {1, {2}}
  a[3], b[3] = a, b
  a[2].up, b[2].up = a, b
  t.eq(within(1e5, util.deep_equal, a, b), true, "nested cycles")
  local x, y = self_table(), self_table()
  y.n = 2
  t.eq({within(1e5, util.deep_equal, x, y)}, {false, ".n", 1, 2})
  local p, q = {}, {}
  p.next, q.next = {v = 1, back = p}, {v = 1, back = q}
  p.next.next, q.next.next = p, {v = 3}
  t.eq({within(1e5, util.deep_equal, p, q)}, {false, ".next.next.v", nil, 3}, "where the cycles part")
end)

t.case("t.eq and c:eq on cycles: no error, and a failure names the place", function()
  within(1e5, t.eq, self_table(), self_table())
  local x, y = self_table(), self_table()
  y.t = {n = 1}
  within(1e5, t.checkerror, "(at .t.t: expected nil, got {", t.eq, x, y)
  local lines = {}
  local c = check.new("cycles", {out = function(l) lines[#lines + 1] = l end})
  t.eq(within(1e5, c.eq, c, self_table(), self_table(), "two cycles"), true)
  t.eq(within(1e5, c.eq, c, x, y, "one is a cycle"), false)
  t.eq(lines[2], "  FAIL one is a cycle  (at [\"t\"][\"t\"]: expected nil, got a table of 2 entries)")
end)

t.case("a table shared by many entries is compared once", function()
  local shared = {}
  for i = 1, 200 do shared[i] = i end
  local a, b = {}, {}
  for i = 1, 200 do a[i], b[i] = shared, shared end
  t.eq(within(1e5, util.deep_equal, a, b), true, "the same object: nothing to walk")
  local copy = {}
  for i = 1, 200 do copy[i] = i end
  for i = 1, 200 do b[i] = copy end
  t.eq(within(2e5, util.deep_equal, a, b), true, "a pair of tables met again counts once")
end)

t.case("cleanup: the failed checks above were the test's, not the run's", function()
  check.reset()
end)

t.run{exit = true}
