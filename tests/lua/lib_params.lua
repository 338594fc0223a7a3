-- lib_params.lua: warplab.params: defaults, -p overrides (WARPLAB_PARAMS) coerced by the
-- default's type, the errors for unknown keys and bad values (with the script line),
-- undeclared reads, params.dims and params.describe.
-- Depends on: warplab.params, warplab.test.
local t = require "warplab.test"
local params = require "warplab.params"

local saved = rawget(_G, "WARPLAB_PARAMS")

-- Declare `decl` as if `warplab run` had been given -p key=value for each of `overrides`.
local function with(overrides, decl)
  rawset(_G, "WARPLAB_PARAMS", overrides)
  local ok, p = pcall(params, decl)
  rawset(_G, "WARPLAB_PARAMS", saved)
  if not ok then error(p, 0) end
  return p
end

local DECL = {n = 1 << 24, block = 256, dims = "16x8", name = "x", flag = false, ratio = 1.0}

t.case("defaults when nothing is overridden", function()
  local p = with(nil, DECL)
  t.eq({p.n, p.block, p.dims, p.name, p.flag, p.ratio}, {16777216, 256, "16x8", "x", false, 1.0})
  p = with({}, DECL)
  t.eq(p.block, 256)
end)

t.case("integers: decimal, hex, shifts and integral exponents", function()
  for text, want in pairs({["128"] = 128, ["0x100"] = 256, ["1<<20"] = 1048576, ["1 << 4"] = 16,
                           ["1e6"] = 1000000, [" 64 "] = 64, ["-3"] = -3}) do
    local p = with({block = text}, DECL)
    t.eq(p.block, want, text)
    t.eq(math.type(p.block), "integer", text)
  end
end)

t.case("numbers, booleans and strings", function()
  local p = with({ratio = "0.25", flag = "yes", name = " spaced "}, DECL)
  t.eq(p.ratio, 0.25)
  t.eq(p.flag, true)
  t.eq(p.name, " spaced ", "strings are taken as given")
  t.eq(math.type(with({ratio = "2"}, DECL).ratio), "float", "a number default keeps floats")
  for text, want in pairs({["true"] = true, ["1"] = true, YES = true, on = true,
                           ["false"] = false, ["0"] = false, No = false, off = false}) do
    t.eq(with({flag = text}, DECL).flag, want, text)
  end
end)

t.case("an override for an undeclared key names it and the declared keys", function()
  t.checkerror("params: unknown parameter 'blok' given with -p (did you mean 'block'?); "
               .. "this script declares: block, dims, flag, n, name, ratio", with, {blok = "1"}, DECL)
  t.checkerror("params: unknown parameter 'zzz' given with -p; this script declares: a", with,
               {zzz = "1"}, {a = 1})
  t.checkerror("this script declares: none", with, {x = "1"}, {})
end)

t.case("a bad value names key, value and expected type", function()
  t.checkerror("params: -p block=2.5: expected an integer, like the default 256", with, {block = "2.5"}, DECL)
  t.checkerror("params: -p block=abc: expected an integer", with, {block = "abc"}, DECL)
  t.checkerror("params: -p block=1<<99: expected an integer", with, {block = "1<<99"}, DECL)
  t.checkerror("params: -p ratio=fast: expected a number, like the default 1.0", with, {ratio = "fast"}, DECL)
  t.checkerror("params: -p flag=maybe: expected a boolean (true/false, 1/0, yes/no, on/off)", with,
               {flag = "maybe"}, DECL)
end)

t.case("errors point at the line that declares the parameters", function()
  rawset(_G, "WARPLAB_PARAMS", {block = "x"})
  local line = debug.getinfo(1, "l").currentline + 1
  local ok, msg = pcall(function() local p = params{block = 1}; return p end)
  rawset(_G, "WARPLAB_PARAMS", saved)
  assert(not ok)
  t.eq(tostring(msg):match("lib_params%.lua:(%d+):"), tostring(line))
  t.eq(type(msg) == "table" and msg.exit, 4)  -- `warplab run` exits 4 for a bad -p
end)

t.case("declarations are checked", function()
  t.checkerror("params: expected a table of defaults, like params{block = 256}, got string", params, "x")
  t.checkerror("params: 'f' has a table default; parameters are integers, numbers, booleans or strings",
               params, {f = {}})
  t.checkerror("params: parameter names are strings, got integer 1", params, {5})
end)

t.case("reading an undeclared parameter is an error, not nil", function()
  local p = with(nil, {block = 256, n = 1})
  t.checkerror("params: 'blocks' is not a declared parameter (declared: block, n)", function() return p.blocks end)
end)

t.case("tostring lists the values", function()
  t.eq(tostring(with({n = "4"}, {n = 1, s = "a", f = true})), 'params{f=true, n=4, s="a"}')
end)

t.case("describe shows type and value, and the default where -p changed it", function()
  local p = with({block = "128"}, {block = 256, name = "x", ratio = 0.5})
  t.eq(params.describe(p), table.concat({
    "parameters (override with -p key=value):",
    "  block  integer  128  (default 256)",
    "  name   string   x",
    "  ratio  number   0.5",
  }, "\n"))
  t.eq(params.describe({}), "parameters (override with -p key=value):\n  (none)")
  t.eq(params.describe({on = false}), "parameters (override with -p key=value):\n  on  boolean  false")
end)

t.case("dims parses 1 to 3 sizes and pads with 1", function()
  t.eq(params.dims("14x2"), {14, 2, 1})
  t.eq(params.dims("8X8x4"), {8, 8, 4})
  t.eq(params.dims("256"), {256, 1, 1})
  t.eq(params.dims(32), {32, 1, 1})
  t.eq(params.dims({16, 8}), {16, 8, 1})
  t.eq(math.type(params.dims("2x2")[1]), "integer")
end)

t.case("dims rejects what is not a size", function()
  for _, bad in ipairs({"16x0", "1x2x3x4", "", "16xa", "x8", "2.5", -1, 0, {}, {1, 2, 3, 4}}) do
    t.checkerror("is not a size: expected 1 to 3 positive integers joined by x, like 256, 16x8 or 8x8x4",
                 params.dims, bad)
  end
  t.checkerror("params.dims: '16xa' is not a size", params.dims, "16xa")
end)

t.run{exit = true}
