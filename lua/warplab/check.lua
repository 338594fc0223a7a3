-- warplab/check.lua: experiment assertions that keep going, print their evidence and
-- count: `local c = check.new("clock"); c:eq(#ids, 256, "one id per thread")`.
-- A failed check is a result to report (exit code 1 via check.exit_code), not an error.
-- Depends on: warplab.util (number text), warplab.page (a run's page shows each check);
-- output through the global print by default.
local util = require "warplab.util"
local page = require "warplab.page"

local check = {}
-- Totals over the checkers made since load (or check.reset), counted as each result is
-- recorded: a list of every checker grew with each check.new in a long session (a REPL,
-- watch's standby). `era` tells a checker made before the last reset, whose results no
-- longer count; `born` holds each checker's era without keeping it alive.
local total = {passed = 0, failed = 0}
local era = 0
local born = setmetatable({}, {__mode = "k"})

local Checker = {}
Checker.__index = Checker

-- Values in evidence: exact numbers (a check is about exact values), quoted strings.
local function show(v)
  if type(v) == "number" then return util.repr(v) end
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) == "table" then
    local n = 0
    for _ in pairs(v) do n = n + 1 end
    return "a table of " .. n .. " entries"
  end
  return tostring(v)
end

-- Deep equality (util.deep_equal), paths written with show(): '[3]["x"]'.
local function equal(a, b, where)
  return util.deep_equal(a, b, where, function(k) return "[" .. show(k) .. "]" end)
end

-- check.new(name [, {out = function(line)}]) -> checker; out defaults to print.
function check.new(name, opts)
  if type(name) ~= "string" then
    error("check.new: expected a name (string), got " .. util.kind(name), 2)
  end
  opts = util.options(opts, "check.new")
  local c = setmetatable({name = name, passed = 0, failed = 0, out = opts.out}, Checker)
  born[c] = era
  return c
end

-- Count and print one result: "  ok   what  (evidence)" or "  FAIL what  (evidence)".
local function record(self, ok, what, evidence)
  ok = ok and true or false
  local key = ok and "passed" or "failed"
  self[key] = self[key] + 1
  if born[self] == era then total[key] = total[key] + 1 end
  what = what and tostring(what) or ("check " .. (self.passed + self.failed))
  local line = (ok and "  ok   " or "  FAIL ") .. what
  if evidence ~= nil and evidence ~= "" then line = line .. "  (" .. tostring(evidence) .. ")" end
  if self.out then
    self.out(line)
  elseif not page.emit{kind = "check", ok = ok, what = what, name = self.name, text = line,
                       evidence = (evidence ~= nil and evidence ~= "") and tostring(evidence) or nil} then
    print(line)
  end
  return ok
end

-- c:that(cond, what [, evidence]) -> cond as a boolean.
function Checker:that(cond, what, evidence)
  return record(self, cond, what, evidence)
end

-- c:eq(actual, expected, what): equal values, tables compared entry by entry.
function Checker:eq(a, b, what)
  local ok, where, x, y = equal(a, b, "")
  if ok then
    local evidence = (type(a) == "table") and (show(a) .. ", all equal") or ("got " .. show(a))
    return record(self, true, what, evidence)
  end
  local at = (where ~= "") and ("at " .. where .. ": ") or ""
  return record(self, false, what, string.format("%sexpected %s, got %s", at, show(y), show(x)))
end

local function need_number(v, name, method)
  if type(v) ~= "number" then
    error(string.format("check:%s: %s must be a number, got %s", method, name, util.kind(v)), 3)
  end
end

-- c:near(actual, expected, rel_tol, what): |actual - expected| <= rel_tol * |expected|
-- (when expected is 0: |actual| <= rel_tol). NaN is never near anything.
function Checker:near(a, b, rel_tol, what)
  need_number(b, "the expected value", "near")
  need_number(rel_tol, "rel_tol", "near")
  local want = string.format("expected %s within %s relative", show(b), util.repr(rel_tol))
  if type(a) ~= "number" then
    return record(self, false, what, want .. ", got " .. show(a))
  end
  local diff = math.abs(a - b)
  local ok = (b == 0) and (math.abs(a) <= rel_tol) or (diff <= rel_tol * math.abs(b))
  local off = (b == 0) and string.format("off by %.3g", diff)
                       or string.format("off by %.3g relative", diff / math.abs(b))
  if ok then return record(self, true, what, "got " .. show(a) .. ", " .. off) end
  return record(self, false, what, want .. ", got " .. show(a) .. ", " .. off)
end

-- c:within(x, lo, hi, what): lo <= x <= hi.
function Checker:within(x, lo, hi, what)
  need_number(lo, "lo", "within")
  need_number(hi, "hi", "within")
  local range = show(lo) .. ".." .. show(hi)
  local ok = type(x) == "number" and x >= lo and x <= hi
  if ok then return record(self, true, what, "got " .. show(x) .. ", in " .. range) end
  return record(self, false, what, "expected " .. range .. ", got " .. show(x))
end

-- c:summary() prints "name: N passed, N failed" and returns true when none failed.
function Checker:summary()
  local line = string.format("%s: %d passed, %d failed", self.name, self.passed, self.failed)
  if self.out then
    self.out(line)
  elseif not page.emit{kind = "summary", name = self.name, passed = self.passed, failed = self.failed,
                       text = line} then
    print(line)
  end
  return self.failed == 0
end

function Checker:ok() return self.failed == 0 end

-- Totals over every checker: passed, failed.
function check.totals()
  return total.passed, total.failed
end

function check.all_ok()
  local _, f = check.totals()
  return f == 0
end

-- The process exit code a script run should end with: 0, or 1 when a check failed
-- (docs/exit-codes.md: 1 = "an experiment's check failed").
function check.exit_code()
  return check.all_ok() and 0 or 1
end

-- Forget every checker (a re-run under `warplab watch` starts from zero).
function check.reset()
  total = {passed = 0, failed = 0}
  era = era + 1
end

return util.api("check", check, Checker, "check")
