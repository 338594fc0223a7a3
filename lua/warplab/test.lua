-- warplab/test.lua: the runner for tests/lua: t.case("name", fn) registers, t.run()
-- runs every case, prints each failure with its message and the closing line
-- "N passed, N failed". t.checkerror and t.eq are the assertions tests need most.
-- Depends on: the Lua 5.4 standard library (debug for failure locations).
local THIS_FILE = debug.getinfo(1, "S").short_src

-- Value text for assertion messages: strings quoted, so "1" and 1 differ visibly;
-- tables written out ({1, 2, x = 3}), cut short past 200 characters.
local function show(v, depth)
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) ~= "table" or (depth or 0) > 3 then return tostring(v) end
  local parts, n = {}, #v
  for i = 1, n do parts[#parts + 1] = show(v[i], (depth or 0) + 1) end
  local keys = {}
  for k in pairs(v) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local key = (type(k) == "string" and k:match("^[%a_][%w_]*$")) and k or ("[" .. show(k) .. "]")
    parts[#parts + 1] = key .. " = " .. show(v[k], (depth or 0) + 1)
  end
  local s = "{" .. table.concat(parts, ", ") .. "}"
  if #s > 200 then s = s:sub(1, 197) .. "..." end
  return s
end

-- Deep equality, shared with warplab.check: util.deep_equal (paths like "[4].name").
local deep_equal = require("warplab.util").deep_equal

-- An assert() message has no position; give it the test line that raised it: the
-- first Lua frame outside this file, above the error() / assert() call.
local function locate(msg)
  msg = tostring(msg)
  if msg:find("^[^\n]-:%d+: ") then return msg end
  for level = 2, 40 do
    local info = debug.getinfo(level, "Sl")
    if not info then break end
    if info.currentline > 0 and info.short_src ~= THIS_FILE then
      return info.short_src .. ":" .. info.currentline .. ": " .. msg
    end
  end
  return msg
end

local function new_runner()
  local t = {}
  local cases = {}

  -- t.case(name, fn): register a case; cases run in registration order.
  function t.case(name, fn)
    if type(name) ~= "string" then
      error("test.case: name must be a string, got " .. type(name), 2)
    end
    if type(fn) ~= "function" then error("test.case: '" .. name .. "' needs a function", 2) end
    cases[#cases + 1] = {name = name, fn = fn}
  end

  -- t.checkerror(substring, f, ...): f(...) must raise an error whose text contains
  -- `substring` (plain find, no patterns). Returns the error text.
  function t.checkerror(substring, f, ...)
    if type(substring) ~= "string" then
      error("test.checkerror: the expected message must be a string, got " .. type(substring), 2)
    end
    local ok, err = pcall(f, ...)
    if ok then
      error(string.format("expected an error containing %q, but the call succeeded", substring), 2)
    end
    local msg = tostring(err)
    if not msg:find(substring, 1, true) then
      error(string.format("expected an error containing %q, got: %s", substring, msg), 2)
    end
    return msg
  end

  -- t.eq(got, want [, what]): equality (tables entry by entry) or an error saying both.
  function t.eq(got, want, what)
    local ok, where, x, y = deep_equal(got, want)
    if not ok then
      local msg = string.format("%sexpected %s, got %s", what and (what .. ": ") or "",
                                show(want), show(got))
      -- For tables, also say where they first differ: long values are cut short above.
      if where ~= "" then
        msg = msg .. string.format(" (at %s: expected %s, got %s)", where, show(y), show(x))
      end
      error(msg, 2)
    end
  end

  -- t.run([{out = function(line), exit = true, verbose = true}]) -> ok, passed, failed.
  -- With exit = true a failure ends the process with status 1.
  function t.run(opts)
    opts = opts or {}
    local out = opts.out or print
    local passed, failed = 0, 0
    local todo = cases
    cases = {} -- a second run() starts empty, so files sharing one state do not re-run
    for _, c in ipairs(todo) do
      local ok, err = xpcall(c.fn, locate)
      if ok then
        passed = passed + 1
        if opts.verbose then out("ok   " .. c.name) end
      else
        failed = failed + 1
        out("FAIL " .. c.name .. ": " .. err)
      end
    end
    out(string.format("%d passed, %d failed", passed, failed))
    -- Only a failure ends the process: on success the script simply finishes, so a host
    -- such as `warplab run` gets to clean up and decide the exit status itself.
    if opts.exit and failed > 0 then os.exit(1) end
    return failed == 0, passed, failed
  end

  -- t.new() -> an independent runner (for testing the runner itself).
  t.new = new_runner
  return t
end

return new_runner()
