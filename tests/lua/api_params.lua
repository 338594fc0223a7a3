-- api_params.lua: `warplab run FILE -p key=value ... args`: -p reaches WARPLAB_PARAMS and
-- require "warplab.params"; the remaining words are the script's arguments (`...` and
-- arg[1..n], arg[0] the script). the offline CTest run passes the run-with line below; gpu-check
-- runs the file bare, and then the defaults must hold.
-- run-with: with-params -p block=128 second -p name=reduce -p check=false third
local t = require "warplab.test"
local params = require "warplab.params"

local given = arg[1] == "with-params"
local varargs = table.pack(...)
local p = params{block = 256, name = "saxpy", check = true, n = 1 << 20}

t.case("script arguments", function()
  assert(arg[0]:find("api_params.lua$"), arg[0])
  if given then
    -- A word after `-p key=value` is an argument again, not a second -p value.
    t.eq(varargs, {"with-params", "second", "third", n = 3})
    t.eq({arg[1], arg[2], arg[3]}, {"with-params", "second", "third"})
  else
    t.eq(varargs.n, 0)
  end
end)

t.case("-p values reach WARPLAB_PARAMS as strings and params{} as typed values", function()
  if given then
    t.eq(WARPLAB_PARAMS, {block = "128", name = "reduce", check = "false"})
    t.eq({p.block, p.name, p.check, p.n}, {128, "reduce", false, 1 << 20})
  else
    t.eq(WARPLAB_PARAMS, {})
    t.eq({p.block, p.name, p.check, p.n}, {256, "saxpy", true, 1 << 20})
  end
end)

t.run{exit = true}
