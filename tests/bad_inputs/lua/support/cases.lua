-- support/cases.lua: table-driven bad-input cases for tests/bad_inputs/lua/*.lua, on top
-- of warplab.test. cases.errors{{what, substring, fn}, ...}: fn() must raise an error
-- containing `substring`, as one line (a sentence, not a dump). cases.fine{{what, fn}}:
-- fn() must not raise (what bad input must still allow). cases.survives{...}: fn() may
-- raise or not, and a raise must be one line of text; for sweeps. cases.run() at the end.
local t = require "warplab.test"
local cases = {}

local function one_line(what, msg)
  if type(msg) ~= "string" then error(what .. ": the error is a " .. type(msg) .. ", not a sentence", 3) end
  if msg:find("\n") then error(what .. ": the error has more than one line: " .. msg, 3) end
  if msg == "" then error(what .. ": the error is empty", 3) end
end

function cases.errors(list)
  for _, c in ipairs(list) do
    t.case(c[1], function()
      local msg = t.checkerror(c[2], c[3])
      one_line(c[1], msg)
    end)
  end
end

function cases.fine(list)
  for _, c in ipairs(list) do t.case(c[1], c[2]) end
end

function cases.survives(list)
  for _, c in ipairs(list) do
    t.case(c[1], function()
      local ok, err = pcall(c[2])
      if not ok then one_line(c[1], err) end
    end)
  end
end

-- The values a sweep passes where something else belongs.
cases.values = {nil, false, true, 0, -1, 1.5, 0/0, math.huge, -math.huge, 2^40, 2^63, math.mininteger,
                math.maxinteger, "", "x", "\0", {}, {1, 2, 3, 4}, print, coroutine.create(print)}
cases.nvalues = 20  -- #values is unreliable with a nil first

cases.run = t.run
cases.eq = t.eq
cases.checkerror = t.checkerror
return cases
