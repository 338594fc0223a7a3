-- lib_reduce.lua: the pure parts of warplab.reduce (the rounding factor gamma, the levels
-- of the vectorized per-thread sum, sizes by name, Lua's reference sums) and the bar
-- charts report.svg_bars writes (warplab.bars): counts, escaping, reference lines, errors.
-- Depends on: warplab.reduce, warplab.report, warplab.test (no GPU, no cuda module).
local t = require "warplab.test"
local reduce = require "warplab.reduce"
local report = require "warplab.report"

t.case("gamma: L u / (1 - L u), none once it would reach 1", function()
  t.eq(reduce.gamma(0), 0.0)
  t.eq(reduce.gamma(1), 2.0 ^ -24 / (1 - 2.0 ^ -24))
  t.eq(reduce.gamma(10, 2.0 ^ -53), 10 * 2.0 ^ -53 / (1 - 10 * 2.0 ^ -53))
  t.eq(reduce.gamma(1 << 23), math.huge) -- L u = 1/2: gamma = 1, no better than sum|x|
  assert(reduce.gamma((1 << 23) - 1) < 1)
end)

t.case("thread_levels mirrors thread_sum4: accumulator adds, combine, head and tail", function()
  -- 4 threads, U = 1: n = 64 -> 16 float4 -> 4 per thread: 4 + 1 + 2 + 0 + 2.
  t.eq(reduce.thread_levels(64, 4, 1), 9)
  -- One element: one (partial) float4 counted, ceil(1 / 4) = 1 per accumulator.
  t.eq(reduce.thread_levels(1, 256, 4), 1 + 4 + 2 + 3 + 2)
  -- 2^28 floats over 132 x 5 x 256 threads, U = 4: 398 float4 each, ceil(398 / 4) = 100.
  t.eq(reduce.thread_levels(1 << 28, 132 * 5 * 256, 4), 100 + 4 + 2 + 3 + 2)
  -- The same loads into one accumulator: 100 iterations x 4 adds; into two: x 2.
  t.eq(reduce.thread_levels(1 << 28, 132 * 5 * 256, 4, 1), 400 + 4 + 2 + 0 + 2)
  t.eq(reduce.thread_levels(1 << 28, 132 * 5 * 256, 4, 2), 200 + 4 + 2 + 1 + 2)
end)

t.case("size_name: powers of two and their small neighbours", function()
  t.eq(reduce.size_name(1 << 28), "2^28")
  t.eq(reduce.size_name((1 << 20) + 7), "2^20 + 7")
  t.eq(reduce.size_name(1000), "1000")
  t.eq(reduce.size_name(33), "33")
  t.eq(reduce.SIZES, {1, 31, 32, 33, 1000, (1 << 20) + 7, 1 << 24, 1 << 28})
end)

t.case("lua_sum: sum, absolute sum and the double bound", function()
  local s = reduce.lua_sum({1.5, -2.5, 4})
  t.eq(s.sum, 3.0)
  t.eq(s.abs, 8.0)
  t.eq(s.err, reduce.gamma(3, 2.0 ^ -53) * 8)
  t.eq(reduce.lua_sum({7, 8}).sum, 15) -- integers stay integers (exact u32 references)
  t.eq(math.type(reduce.lua_sum({7, 8}).sum), "integer")
end)

t.case("the versions: names, kernels and kinds for every ladder step", function()
  local kinds = {}
  for _, v in ipairs(reduce.versions) do
    assert(type(v.name) == "string" and v.kernel:match("^[%w_]+$"), v.name)
    kinds[v.kind] = (kinds[v.kind] or 0) + 1
  end
  t.eq(#reduce.versions, 13)
  t.eq(kinds, {tree = 8, vec4 = 1, last = 1, coop = 1, atomic = 1, int = 1})
end)

local function read(p)
  local f = assert(io.open(p, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

t.case("svg_bars: one bar per value, escaped labels, reference lines", function()
  local path = os.tmpname()
  local got = report.svg_bars({{label = "a < b", value = 10}, {label = "c & d", value = 25.5}}, path,
                              {title = "GB/s", lines = {{label = "read", value = 30}}, format = "%.1f"})
  t.eq(got, path)
  local s = read(path)
  os.remove(path)
  assert(s:find("^<svg "), "starts with <svg")
  assert(s:find("</svg>\n$"), "ends with </svg>")
  local rects = 0
  for _ in s:gmatch("<rect [^>]*><title>") do rects = rects + 1 end
  t.eq(rects, 2)
  assert(s:find("a &lt; b", 1, true) and s:find("c &amp; d", 1, true), "labels escaped")
  assert(s:find(">25.5<", 1, true), "the value at the bar's end")
  assert(s:find("stroke-dasharray", 1, true) and s:find("read 30.0", 1, true), "the reference line")
end)

t.case("svg_bars: bad input names the entry", function()
  local path = os.tmpname()
  os.remove(path)
  t.checkerror("bars[2] needs a label and a finite value >= 0", report.svg_bars,
               {{label = "a", value = 1}, {label = "b", value = -1}}, path)
  t.checkerror("opts.lines[1] needs a label", report.svg_bars, {{label = "a", value = 1}}, path,
               {lines = {{value = 2}}})
  t.checkerror("path is an integer, expected a string", report.svg_bars, {}, 42)
end)

t.run{exit = true}
