-- lib_svg.lua: report.svg_heatmap, report.heatmap{svg=} and report.svg_lines write
-- standalone, well-formed SVG: escaped text, one cell per value with the viridis ends,
-- log axes spaced by powers, broken lines at missing values, named errors.
-- Depends on: warplab.report, warplab.test; writes files under /tmp.
local t = require "warplab.test"
local report = require "warplab.report"

local base = os.tmpname()
os.remove(base)
local written = {}
local function path(name)
  local p = base .. "-" .. name
  written[#written + 1] = p
  return p
end

local function read(p)
  local f = assert(io.open(p, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- Well-formed enough: every tag closed in order, every "<" starts a tag, every "&"
-- starts an entity. Returns true or false and what is wrong.
local function well_formed(s)
  local stack = {}
  for slash, name, rest in s:gmatch("<(/?)([%w:%-]+)([^>]*)>") do
    if slash == "/" then
      local top = table.remove(stack)
      if top ~= name then return false, "</" .. name .. "> closes <" .. tostring(top) .. ">" end
    elseif rest:sub(-1) ~= "/" then
      stack[#stack + 1] = name
    end
  end
  if #stack > 0 then return false, "<" .. stack[#stack] .. "> never closed" end
  if s:find("<[^/%w]") then return false, "stray <" end
  if s:find("&[^#%w]") or s:find("&%w+[^%w;]") then return false, "stray &" end
  return true
end

local function count(s, pattern)
  local n = 0
  for _ in s:gmatch(pattern) do n = n + 1 end
  return n
end

t.case("svg heatmap: standalone, escaped title, one cell per value, viridis ends", function()
  local grid = {{1, 2, 3}, {4, nil, 6}}
  local p = report.svg_heatmap(grid, path("h.svg"), {title = "a < b & \"c\"", legend = "cycles",
                                                    xlabel = "lane", ylabel = "warp"})
  local s = read(p)
  assert(s:find('^<svg xmlns="http://www.w3.org/2000/svg"'), s:sub(1, 80))
  assert(s:find("</svg>\n$"))
  assert(well_formed(s))
  assert(s:find(">a &lt; b &amp; &quot;c&quot;</text>", 1, true), "escaped title")
  for _, text in ipairs({">cycles<", ">lane<", ">warp<"}) do assert(s:find(text, 1, true), text) end
  t.eq(count(s, '<rect [^>]*><title>'), 6, "one rectangle per cell")
  assert(s:find('fill="#440154"><title>[0][0] 1</title>', 1, true), "lowest value is dark purple")
  assert(s:find('fill="#fde725"><title>[1][2] 6</title>', 1, true), "highest value is yellow")
  assert(s:find('fill="#d9d9d9"><title>[1][1] no data</title>', 1, true), "missing cell is grey")
end)

t.case("svg heatmap: opts.origin and named labels change the indices shown", function()
  local s = read(report.svg_heatmap({{5}}, path("o.svg"), {origin = 1}))
  assert(s:find("<title>[1][1] 5</title>", 1, true))
  s = read(report.svg_heatmap({{5}}, path("n.svg"), {labels = {rows = {"w0"}, cols = {"l0"}}}))
  assert(s:find("<title>[w0][l0] 5</title>", 1, true))
  assert(s:find(">w0</text>", 1, true) and s:find(">l0</text>", 1, true))
end)

t.case("heatmap{svg=} writes the same file as svg_heatmap", function()
  local grid = {{0, 1}, {2, 3}}
  local a = path("a.svg")
  report.heatmap(grid, {title = "same", svg = a, print = false})
  local b = report.svg_heatmap(grid, path("b.svg"), {title = "same"})
  t.eq(read(a), read(b))
end)

t.case("svg heatmap: errors name the problem", function()
  t.checkerror("report.svg_heatmap: path is nil, expected a string", report.svg_heatmap, {{1}})
  t.checkerror("report.svg_heatmap: cell [1][2] is a boolean", report.svg_heatmap, {{1, true}}, path("x.svg"))
end)

t.case("svg lines: legend, axis labels, one path and one marker per point", function()
  local series = {
    {name = "v1 <tree>", x = {32, 64, 128, 256}, y = {1.0, 2.0, 3.0, 4.0}},
    {name = "v2", x = {32, 64, 128, 256}, y = {2.0, 2.5, 3.5, 3.75}},
  }
  local p = report.svg_lines(series, path("l.svg"), {title = "GB/s by block", xlabel = "block",
                                                   ylabel = "GB/s", logx = 2})
  local s = read(p)
  assert(s:find("^<svg") and well_formed(s))
  for _, text in ipairs({">GB/s by block<", ">block<", ">GB/s<", ">v1 &lt;tree&gt;<", ">v2<"}) do
    assert(s:find(text, 1, true), text)
  end
  t.eq(count(s, "<path "), 2)
  t.eq(count(s, "<circle "), 8)
  -- log2 x axis: 32, 64, 128, 256 are equally spaced, and ticks are labelled as powers of 2
  local cx = {}
  for x in s:gmatch('<circle cx="([%d.]+)"') do cx[#cx + 1] = tonumber(x) end
  assert(math.abs((cx[2] - cx[1]) - (cx[4] - cx[3])) < 0.02, "equal spacing on log axis")
  for _, tick in ipairs({">32<", ">64<", ">128<", ">256<"}) do assert(s:find(tick, 1, true), tick) end
end)

t.case("svg lines: a missing value breaks the line into two pieces", function()
  local s = read(report.svg_lines({{name = "gap", y = {1, 2, 0 / 0, 4, 5}}}, path("g.svg")))
  local d = s:match('<path d="([^"]*)"')
  t.eq(count(d, "M"), 2)
  t.eq(count(d, "L"), 2)
  t.eq(count(s, "<circle "), 4)
end)

t.case("svg lines: a bare series, default names and linear ticks", function()
  local s = read(report.svg_lines({x = {0, 1, 2}, y = {0, 0.5, 1}}, path("b.svg")))
  assert(s:find(">series 1<", 1, true))
  for _, tick in ipairs({">0.0<", ">0.5<", ">1.0<", ">2.0<"}) do assert(s:find(tick, 1, true), tick) end
end)

t.case("svg lines: no points gives empty axes saying so", function()
  local s = read(report.svg_lines({{name = "none", y = {}}}, path("e.svg")))
  assert(s:find(">(no data)<", 1, true) and well_formed(s))
end)

t.case("svg lines: bad input is named by series and index", function()
  t.checkerror("report.svg_lines: v1 has x[1] = 0, which a log axis cannot show", report.svg_lines,
               {{name = "v1", x = {0, 1}, y = {1, 2}}}, path("x.svg"), {logx = true})
  t.checkerror("report.svg_lines: v1 has y[2] = -1, which a log axis cannot show", report.svg_lines,
               {{name = "v1", y = {1, -1}}}, path("x.svg"), {logy = true})
  t.checkerror("report.svg_lines: v1 has y[2] = a string, expected a number", report.svg_lines,
               {{name = "v1", y = {1, "2"}}}, path("x.svg"))
  t.checkerror("report.svg_lines: series 2 needs y = {numbers}", report.svg_lines,
               {{y = {1}}, {x = {1}}}, path("x.svg"))
  t.checkerror("report.svg_lines: v1 has x[2] = nil, expected a finite number", report.svg_lines,
               {{name = "v1", x = {1}, y = {1, 2}}}, path("x.svg"))
  t.checkerror("report.svg_lines: path is a table, expected a string", report.svg_lines, {}, {})
end)

t.case("the well-formedness check itself catches broken markup", function()
  assert(not well_formed("<svg><g></svg>"))
  assert(not well_formed("<svg>a < b</svg>"))
  assert(not well_formed("<svg>a & b</svg>"))
  assert(well_formed('<svg><rect x="1"/><text>a &amp; b</text></svg>'))
end)

-- XML 1.0 allows no C0 control character but tab, newline and return, and an SVG file is
-- UTF-8: a label with an escape sequence or a Latin-1 byte made a file browsers refuse.
local function valid_text(s)
  if not utf8.len(s) then return false, "not UTF-8" end
  local bad = s:find("[%z\1-\8\11\12\14-\31]")
  if bad then return false, string.format("control character 0x%02x at byte %d", s:byte(bad), bad) end
  return true
end

t.case("labels with control characters or bytes that are not UTF-8 still make valid XML", function()
  local odd = {"esc \27[31mred\27[0m", "nul \0 byte", "caf\233", "lone \255\254", "cut \195", "bell \7"}
  local files = {
    report.svg_heatmap({{1, 2}, {3, 4}}, path("odd_h.svg"), {title = odd[1], legend = odd[2], xlabel = odd[3],
                       ylabel = odd[4], labels = {rows = {odd[5], odd[6]}, cols = {odd[1], odd[3]}}}),
    report.svg_lines({{name = odd[1], y = {1, 2}}, {name = odd[3], y = {2, 1}}}, path("odd_l.svg"),
                     {title = odd[4], xlabel = odd[5], ylabel = odd[6]}),
    report.svg_bars({{label = odd[1], value = 1}, {label = odd[4], value = 2}}, path("odd_b.svg"),
                    {title = odd[3], lines = {{label = odd[2], value = 1.5}}}),
    require("warplab.timeline").svg({{name = odd[1], spans = {{kind = odd[3], t0 = 0, t1 = 1}}}}, path("odd_t.svg"),
                                    {title = odd[4]}),
  }
  for _, p in ipairs(files) do
    local s = read(p)
    local ok, why = valid_text(s)
    assert(ok, p .. ": " .. tostring(why))
    assert(well_formed(s), p)
  end
  local s = read(files[1])
  assert(s:find("esc \226\144\155[31mred", 1, true), "ESC shown as its picture, U+241B")
  assert(s:find("caf\239\191\189", 1, true), "a Latin-1 byte as U+FFFD")
end)

t.case("svg.num: two decimals at most; a number past 1e15 in six digits, not 300", function()
  local svg = require "warplab.svg"
  t.eq(svg.num(1.5), "1.5")
  t.eq(svg.num(-0.001), "0")
  t.eq(svg.num(2.0), "2")
  t.eq(svg.num(1e308), "1e+308")
  t.eq(svg.num(-123456789012345678), "-1.23457e+17")
  assert(#svg.num(1e300) < 12, svg.num(1e300))
end)

t.case("cleanup", function()
  for _, p in ipairs(written) do os.remove(p) end
end)

t.run{exit = true}
