-- lib_counters.lua: warplab.counters.witness: where nothing can be counted (no GPU) it
-- prints each claim and why not, and returns false; where counters can be counted (the
-- GPU machine runs the lib tests too) it prints nothing and returns true. Misuse raises.
-- The counting itself is tested live by api_counters.lua and the examples that use it.
-- Depends on: warplab.test, warplab.counters, the `cuda` global.
local t = require "warplab.test"
local hw = require "warplab.counters"

t.case("witness: the claims and why they are not counted, false (or nothing and true)", function()
  local lines, real = {}, print
  print = function(s) lines[#lines + 1] = s end -- restored below
  local ok, got = pcall(hw.witness, {"conflicts = 31", "sectors = 4"})
  print = real
  assert(ok, got)
  if cuda.counters_available() then
    t.eq({got, #lines}, {true, 0})
    return
  end
  t.eq(got, false)
  t.eq({lines[1], lines[2], lines[3]}, {"\nhardware counters would check, as a second witness:", "  conflicts = 31",
                                        "  sectors = 4"})
  assert(lines[4]:find("^not counted here: hardware counters need a GPU"), lines[4])
end)

t.case("misuse raises", function()
  t.checkerror("counters.witness: expected a list of claims", hw.witness, "x")
  t.checkerror("counters.each: expected a list, a function", hw.each, {}, nil, "shared")
end)

t.run{exit = true}
