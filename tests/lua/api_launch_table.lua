-- api_launch_table.lua: the launch table k{...} is read two ways (bind/launch_args.cpp):
-- the usual plain table {grid = n, block = n, args = {...}} in one pass over its entries,
-- anything else field by field in the fields' order. Both must agree: every table here is
-- launched as it is and through a proxy whose __index supplies the same fields (always
-- the ordered reader), and the two outcomes (nil, or the same error) must be equal; a few
-- also against their exact message, against k:check, and against the positional form.
-- Offline a valid launch stops at "no CUDA device"; live it runs. Offline and live.
local t = require "warplab.test"

local m = assert(cuda.compile{source = [[
__global__ void k2(int* p, int n) { if (p && n < 0) p[0] = n; }
__global__ void k0() {}
]]})
local k2, k0 = m.k2, m.k0
local y, x = cuda.array("i32", 32), cuda.array("f32", 32)

-- The outcome of one launch: "ok" or its error message (one call site for both forms, so
-- the script position the message starts with is the same).
local function outcome(k, tbl)
  local ok, err = pcall(k, tbl)
  return ok and "ok" or err
end
local function proxy(tbl) return setmetatable({}, {__index = tbl}) end
local function same(k, tbl)
  local plain, ordered = outcome(k, tbl), outcome(k, proxy(tbl))
  t.eq(plain, ordered)
  return plain
end
local function contains(got, want)
  if not got:find(want, 1, true) then error(string.format("%q does not contain %q", got, want), 2) end
end
local NO_GPU = cuda.device().live and "ok" or "no CUDA device"

t.case("valid tables: the one-pass and the ordered reader launch alike", function()
  for _, tbl in ipairs{
    {grid = 1, block = 32, args = {y, 32}},
    {grid = 2, block = 64, args = table.pack(nil, 3)},
    {grid = "2", block = 32.0, args = {y, 32}},                  -- integral values of other types
    {grid = {2, 2}, block = {16, 2}, args = {y, 1}},             -- lists: the ordered reader
    {grid = 1, block = 32, args = {y, 32}, blocks = 4, [1] = 9}, -- unknown keys are ignored
    {grid = 1, block = 32, shared = 1024, args = {y, 32}},
    {grid = 1, block = 32, cooperative = false, args = {y, 32}},
  } do
    contains(same(k2, tbl), NO_GPU)
  end
  contains(same(k0, {grid = 1, block = 32}), NO_GPU)
  contains(same(k0, {grid = 1, block = 32, args = {}}), NO_GPU)
end)

t.case("each broken rule: the same first error either way", function()
  local cases = {
    {{block = 32, args = {y, 32}}, "launch table needs grid ="},
    {{grid = 1, args = {y, 32}}, "launch table needs block ="},
    {{grid = 0, block = 32, args = {y, 32}}, "grid 0x1x1 has a zero dimension"},
    {{grid = 1, block = 2048, args = {y, 32}}, "k2: block dimension x = 2048 exceeds max_block_dim_x"},
    {{grid = 1.5, block = 32}, "grid must be an integer >= 0 or a list of 1 to 3 of them (got 1.5)"},
    {{grid = "x", block = "y"}, "grid must be an integer"},       -- two broken fields: grid's first
    {{grid = 2 ^ 40, block = 32}, "grid must be an integer"},
    {{grid = 1, block = {32, 1, 1, 1}}, "block must have 1 to 3 dimensions, got 4"},
    {{grid = 1, block = 32, shared = -1}, "shared must be a byte count >= 0, got -1"},
    {{grid = 1, block = 32, stream = 5}, "stream must be a cuda.stream() or nil, got number"},
    {{grid = 3, block = 32, cluster = 2, args = {y, 32}}, "is not a multiple of cluster dimension x = 2"},
    {{grid = 1, block = 32, args = 5}, "args must be a list"},
    {{grid = 1, block = 32, args = {y}}, "k2 expects 2 arguments (k2(int*, int)), got 1"},
    {{grid = 1, block = 32, args = table.pack(y, 32, nil)}, "got 3"},
    {{grid = 1, block = 32, args = {x, 32}}, "argument 1 (int*) of k2: an f32 array cannot be passed as int*"},
    {{grid = 1, block = 32, args = {y, 2 ^ 31}}, "is out of range (32-bit signed: -2147483648..2147483647)"},
    {{grid = 0, block = 32, args = 5}, "args must be a list"},  -- the table is read before the rules apply
  }
  for _, c in ipairs(cases) do contains(same(k2, c[1]), c[2]) end
end)

t.case("the table form, k:check and the positional form read a configuration alike", function()
  local why = select(2, k2:check{grid = 1, block = 2048})
  contains(outcome(k2, {grid = 1, block = 2048, args = {y, 32}}), why)
  t.eq(select(2, pcall(k2.launch, k2, 1, 2048, y, 32)):match("k2: .*"),
       outcome(k2, {grid = 1, block = 2048, args = {y, 32}}):match("k2: .*"))
  t.eq({k2:check{grid = 1, block = 32}}, {true})
  t.eq({k2:check(proxy{grid = 1, block = 32})}, {true})
end)

t.case("a table changed between launches is read again", function()
  local tbl = {grid = 1, block = 32, args = {y, 32}}
  contains(outcome(k2, tbl), NO_GPU)
  tbl.block = 4096
  contains(outcome(k2, tbl), "block dimension x = 4096 exceeds max_block_dim_x")
  tbl.block, tbl.shared = 32, 1 << 30
  contains(outcome(k2, tbl), "shared")
  tbl.shared, tbl.args[2] = nil, 2 ^ 40
  contains(outcome(k2, tbl), "is out of range")
end)

t.case("k:check with args checks them as a launch would: count, types, ranges", function()
  t.eq(k2:check{grid = 1, block = 32, args = {y, 4}}, true)
  local ok, why = k2:check{grid = 1, block = 32, args = {nil, nil, 2^40}}
  t.eq(ok, false)
  contains(why, "expects 2 arguments")
  ok, why = k2:check{grid = 1, block = 32, args = {y, 2^40}}
  t.eq(ok, false)
  contains(why, "1099511627776 is out of range")
  ok, why = k2:check{grid = 1, block = 32, args = {y, "four"}}
  t.eq(ok, false)
  contains(why, "argument 2")
  ok, why = k2:check{grid = 1, block = 32, args = table.pack(nil, 3)}
  t.eq(ok, true, why)  -- a nil pointer is a null pointer
  -- without args only the configuration is checked (as before)
  t.eq(k2:check{grid = 1, block = 32}, true)
  -- a broken configuration is named first
  ok, why = k2:check{grid = 1, block = 4096, args = {nil, nil, nil}}
  t.eq(ok, false)
  contains(why, "4096")
end)

t.run()
