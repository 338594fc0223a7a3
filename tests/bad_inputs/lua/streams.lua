-- streams.lua: cuda.stream, cuda.event, cuda.synchronize and cuda.bench offline, with and
-- without bad arguments: each says in one sentence that it needs a GPU (or what is wrong
-- with the argument), and the params helpers of the Lua library take bad values the same.
local cases = require "support.cases"
local params = require "warplab.params"

local errs = {}
for i = 1, cases.nvalues do
  local v = cases.values[i]
  errs[#errs + 1] = {"cuda.stream(values[" .. i .. "])", "", function() return cuda.stream(v) end}
  errs[#errs + 1] = {"cuda.event(values[" .. i .. "])", "", function() return cuda.event(v) end}
  errs[#errs + 1] = {"cuda.bench(values[" .. i .. "])", "", function() return cuda.bench(v, v) end}
  errs[#errs + 1] = {"cuda.synchronize(values[" .. i .. "])", "", function() return cuda.synchronize(v) end}
end
cases.errors(errs)

cases.errors{
  {"cuda.stream offline", "no CUDA device: cuda.stream needs a GPU (working from profile 'h100')", function() return cuda.stream() end},
  {"cuda.stream{non_blocking} offline", "needs a GPU", function() return cuda.stream{non_blocking = true} end},
  {"cuda.event offline", "no CUDA device: cuda.event needs a GPU", function() return cuda.event() end},
  {"cuda.synchronize offline", "no CUDA device: cuda.synchronize needs a GPU", function() return cuda.synchronize() end},
  {"cuda.bench offline", "no CUDA device: cuda.bench needs a GPU", function() return cuda.bench(function() end) end},
  {"cuda.bench{warmup = nan}", "cuda.bench: warmup must be an integer from 0 to 1000000, got", function() return cuda.bench(function() end, {warmup = 0 / 0}) end},
  {"cuda.bench{reps = -1}", "reps", function() return cuda.bench(function() end, {reps = -1}) end},
  {"cuda.bench{reps = 2^40}", "reps", function() return cuda.bench(function() end, {reps = 2 ^ 40}) end},
  {"params(5)", "params: expected a table of defaults, like params{block = 256}, got integer", function() return params(5) end},
  {"params{[1] = 2}", "params: parameter names are strings, got integer 1", function() return params{2} end},
  {"params{f = {}}", "params: 'f' has a table default", function() return params{f = {}} end},
  {"params{f = print}", "params: 'f' has a function default", function() return params{f = print} end},
  {"p.undeclared", "params: 'blocks' is not a declared parameter (declared: block)", function() return params{block = 1}.blocks end},
  {"params.dims('0x1')", "params.dims: '0x1' is not a size", function() return params.dims("0x1") end},
  {"params.dims('16xa')", "is not a size", function() return params.dims("16xa") end},
  {"params.dims('')", "is not a size", function() return params.dims("") end},
  {"params.dims('1x1x1x1')", "is not a size", function() return params.dims("1x1x1x1") end},
  {"params.dims(nan)", "is not a size", function() return params.dims(0 / 0) end},
  {"params.dims(1.5)", "is not a size", function() return params.dims(1.5) end},
  {"params.dims(-4)", "is not a size", function() return params.dims(-4) end},
  {"params.dims({})", "is not a size", function() return params.dims({}) end},
  {"params.dims(nil)", "is not a size", function() return params.dims(nil) end},
  {"params.describe(5)", "params.describe: expected a table, got integer", function() return params.describe(5) end},
}

cases.fine{
  {"params.dims at the edges", function()
    cases.eq(params.dims("16X8"), {16, 8, 1})
    cases.eq(params.dims(2 ^ 40), {1 << 40, 1, 1})
    cases.eq(params.dims({1.0, 2}), {1, 2, 1})
  end},
}
cases.run()
