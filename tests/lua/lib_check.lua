-- lib_check.lua: warplab.check: the exact evidence lines of that/eq/near/within, counts,
-- the summary line, totals across checkers and the exit code, and misuse errors.
-- Depends on: warplab.check, warplab.test.
local t = require "warplab.test"
local check = require "warplab.check"

-- A checker whose output lands in a list instead of stdout.
local function capture(name)
  local lines = {}
  local c = check.new(name, {out = function(l) lines[#lines + 1] = l end})
  return c, lines
end

t.case("that: condition, what, evidence", function()
  check.reset()
  local c, lines = capture("x")
  t.eq(c:that(true, "lanes agree", "32 of 32"), true)
  t.eq(c:that(nil, "no evidence"), false)
  t.eq(c:that(1, "truthy number"), true)
  t.eq(lines, {"  ok   lanes agree  (32 of 32)", "  FAIL no evidence", "  ok   truthy number"})
  t.eq({c.passed, c.failed}, {2, 1})
end)

t.case("eq: scalars and tables, with where they differ", function()
  local c, lines = capture("eq")
  c:eq(256, 256, "one id per thread")
  c:eq(31, 32, "lanes")
  c:eq("a", "b", "name")
  c:eq({1, 2, {3}}, {1, 2, {3}}, "nested")
  c:eq({1, 2, {3}}, {1, 2, {4}}, "nested diff")
  c:eq({1, 2, 3}, {1, 2}, "extra entry")
  t.eq(lines, {
    "  ok   one id per thread  (got 256)",
    "  FAIL lanes  (expected 32, got 31)",
    '  FAIL name  (expected "b", got "a")',
    "  ok   nested  (a table of 3 entries, all equal)",
    "  FAIL nested diff  (at [3][1]: expected 4, got 3)",
    "  FAIL extra entry  (at [3]: expected nil, got 3)",
  })
end)

t.case("near: relative tolerance, zero expected, NaN and non-numbers fail", function()
  local c, lines = capture("near")
  t.eq(c:near(3.1416, 3.14159265, 1e-4, "pi"), true)
  t.eq(c:near(3.2, 3.14159265, 1e-4, "pi rough"), false)
  t.eq(c:near(1e-9, 0, 1e-6, "zero"), true)
  t.eq(c:near(0 / 0, 1, 0.5, "nan"), false)
  t.eq(c:near(nil, 1, 0.5, "missing"), false)
  t.eq(lines, {
    "  ok   pi  (got 3.1416, off by 2.34e-06 relative)",
    "  FAIL pi rough  (expected 3.14159265 within 0.0001 relative, got 3.2, off by 0.0186 relative)",
    "  ok   zero  (got 1e-09, off by 1e-09)",
    "  FAIL nan  (expected 1 within 0.5 relative, got nan, off by nan relative)",
    "  FAIL missing  (expected 1 within 0.5 relative, got nil)",
  })
end)

t.case("within: inclusive range", function()
  local c, lines = capture("within")
  c:within(12.5, 0, 12.5, "waste %")
  c:within(13, 0, 12.5, "too much")
  c:within("x", 0, 1, "not a number")
  t.eq(lines, {"  ok   waste %  (got 12.5, in 0..12.5)", "  FAIL too much  (expected 0..12.5, got 13)",
               '  FAIL not a number  (expected 0..1, got "x")'})
end)

t.case("summary line and result; unnamed checks are numbered", function()
  local c, lines = capture("clock")
  c:that(true)
  c:that(false)
  t.eq(c:summary(), false)
  t.eq(lines, {"  ok   check 1", "  FAIL check 2", "clock: 1 passed, 1 failed"})
  local d, dl = capture("empty")
  t.eq(d:summary(), true)
  t.eq(dl, {"empty: 0 passed, 0 failed"})
end)

t.case("totals, all_ok and exit_code across checkers; reset forgets", function()
  check.reset()
  t.eq({check.totals()}, {0, 0})
  t.eq(check.all_ok(), true)
  t.eq(check.exit_code(), 0)
  local a = capture("a")
  local b = capture("b")
  a:that(true)
  b:that(true)
  t.eq(check.exit_code(), 0)
  b:eq(1, 2)
  t.eq({check.totals()}, {2, 1})
  t.eq(check.all_ok(), false)
  t.eq(check.exit_code(), 1)
  check.reset()
  t.eq(check.exit_code(), 0)
end)

t.case("a checker made before reset no longer counts; check.new keeps nothing per checker", function()
  check.reset()
  local old = capture("old")
  check.reset()
  old:that(false)
  t.eq({check.totals()}, {0, 0})
  t.eq(old.failed, 1)
  -- A long session (a REPL) makes many checkers: the library holds none of them.
  collectgarbage()
  collectgarbage()
  local before = collectgarbage("count")
  for _ = 1, 20000 do check.new("n", {out = function() end}):that(true) end
  collectgarbage()
  collectgarbage()
  assert(collectgarbage("count") - before < 100, string.format("%.0f kB kept", collectgarbage("count") - before))
  t.eq({check.totals()}, {20000, 0})
  check.reset()
end)

t.case("default output goes through print", function()
  local got = {}
  local saved = print
  print = function(s) got[#got + 1] = s end -- restored below
  local ok, err = pcall(function()
    local c = check.new("p")
    c:that(true, "printed")
  end)
  print = saved
  check.reset()
  assert(ok, err)
  t.eq(got, {"  ok   printed"})
end)

t.case("misuse raises at the caller's line", function()
  local c = capture("m")
  t.checkerror("check.new: expected a name (string), got nil", check.new)
  t.checkerror("check:near: rel_tol must be a number, got nil", c.near, c, 1, 1)
  t.checkerror("check:within: hi must be a number, got a string", c.within, c, 1, 0, "2")
  local line = debug.getinfo(1, "l").currentline + 1
  local ok, msg = pcall(function() c:near(1, "x", 0.1) end)
  assert(not ok)
  t.eq(msg:match("lib_check%.lua:(%d+): check:near: the expected value must be a number"), tostring(line))
  check.reset()
end)

t.run{exit = true}
