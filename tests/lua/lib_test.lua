-- lib_test.lua: warplab.test, tested with an inner runner (t.new): failure lines with
-- the test's file:line, the closing "N passed, N failed", return values, checkerror and
-- eq messages. The outer runner reports on all of it.
-- Depends on: warplab.test.
local t = require "warplab.test"

-- Run `define(inner)` with a fresh runner; returns its printed lines and run() results.
local function inner_run(define, opts)
  local inner = t.new()
  define(inner)
  local lines = {}
  opts = opts or {}
  opts.out = function(l) lines[#lines + 1] = l end
  local ok, passed, failed = inner.run(opts)
  return lines, ok, passed, failed
end

t.case("all passing: closing line only, ok = true", function()
  local lines, ok, passed, failed = inner_run(function(r)
    r.case("a", function() end)
    r.case("b", function() assert(true) end)
  end)
  t.eq(lines, {"2 passed, 0 failed"})
  t.eq({ok, passed, failed}, {true, 2, 0})
end)

t.case("failures print name, file:line and message, in order", function()
  local here = debug.getinfo(1, "l").currentline
  local lines, ok, passed, failed = inner_run(function(r)
    r.case("assert", function() assert(false, "boom") end)          -- here + 2
    r.case("passes", function() end)
    r.case("runtime", function() local x; return x.field end)       -- here + 4
    r.case("error level 1", function() error("plain") end)           -- here + 5
  end)
  t.eq({ok, passed, failed}, {false, 1, 3})
  local src = debug.getinfo(1, "S").short_src
  t.eq(lines, {
    "FAIL assert: " .. src .. ":" .. (here + 2) .. ": boom",
    "FAIL runtime: " .. src .. ":" .. (here + 4) .. ": attempt to index a nil value (local 'x')",
    "FAIL error level 1: " .. src .. ":" .. (here + 5) .. ": plain",
    "1 passed, 3 failed",
  })
end)

t.case("verbose lists passing cases too", function()
  local lines = inner_run(function(r) r.case("fine", function() end) end, {verbose = true})
  t.eq(lines, {"ok   fine", "1 passed, 0 failed"})
end)

t.case("run() empties the list: a second run finds nothing", function()
  local inner = t.new()
  inner.case("once", function() end)
  local out = {}
  inner.run{out = function(l) out[#out + 1] = l end}
  inner.run{out = function(l) out[#out + 1] = l end}
  t.eq(out, {"1 passed, 0 failed", "0 passed, 0 failed"})
end)

t.case("checkerror: returns the message when the substring is there", function()
  t.eq(t.checkerror("ba", error, "foobar", 0), "foobar")
  t.eq(t.checkerror("a.b", error, "xa.by", 0), "xa.by", "plain find: '.' is not a pattern")
  t.checkerror("a.b", function() t.checkerror("a.b", error, "axb", 0) end)
end)

t.case("checkerror: says what went wrong", function()
  t.checkerror('expected an error containing "needle", but the call succeeded',
               t.checkerror, "needle", function() end)
  t.checkerror('expected an error containing "needle", got: hay',
               t.checkerror, "needle", error, "hay", 0)
  t.checkerror("test.checkerror: the expected message must be a string, got function",
               t.checkerror, print, print)
end)

t.case("checkerror passes extra arguments to f", function()
  t.checkerror("7", function(a, b) error(tostring(a + b), 0) end, 3, 4)
end)

t.case("eq: deep equality and its message", function()
  t.eq({1, {2, x = "y"}}, {1, {2, x = "y"}})
  t.checkerror('sizes: expected {1, 2}, got {1, 3} (at [2]: expected 2, got 3)', t.eq, {1, 3}, {1, 2}, "sizes")
  t.checkerror('(at [1].x: expected "y", got nil)', t.eq, {{}}, {{x = "y"}})
  t.checkerror('expected "1", got 1', t.eq, 1, "1")
  t.checkerror("expected {a = 1}, got {a = 1, b = 2}", t.eq, {a = 1, b = 2}, {a = 1})
end)

t.case("case() checks its arguments", function()
  local r = t.new()
  t.checkerror("test.case: name must be a string, got function", r.case, function() end)
  t.checkerror("test.case: 'x' needs a function", r.case, "x", 1)
end)

t.run{exit = true}
