-- lib_pictures.lua: what the pictures promise a reader: a heatmap shows excluded cells
-- (false: "cannot launch") apart from every value and from missing ones, in the terminal
-- and in the SVG, with a key; numeric column labels (block sizes) are ticked at round
-- multiples; a line chart starts its y axis at zero unless told (ymin) and labels both axes.
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

local function count(s, pattern)
  local n = 0
  for _ in s:gmatch(pattern) do n = n + 1 end
  return n
end

-- The texts of <text> elements, in order.
local function texts(s)
  local out = {}
  for body in s:gmatch("<text[^>]*>([^<]*)</text>") do out[#out + 1] = body end
  return out
end

local function has(list, v)
  for _, x in ipairs(list) do if x == v then return true end end
  return false
end

t.case("heatmap: a false cell is excluded, not 0: its own mark and legend entry", function()
  local s = report.heatmap({{0, 50, false}, {100, nil, false}}, {color = false, print = false, excluded = "cannot launch"})
  local rows = {}
  for line in s:gmatch("[^\n]+") do rows[#rows + 1] = line end
  t.eq(rows[1], "  ++//", "0 %, 50 %, excluded") -- the ramp's first character is a space
  t.eq(rows[2], "@@??//", "100 %, no data, excluded")
  assert(rows[3]:find("?? = no data", 1, true), rows[3])
  assert(rows[3]:find("// = cannot launch", 1, true), rows[3])
  assert(rows[3]:find("^0 "), "the scale comes from the numbers only: " .. rows[3])
  local colored = report.heatmap({{1, false}}, {color = true, print = false})
  assert(colored:find("\27[0m//", 1, true), "excluded cells drop the colour")
  assert(colored:find("// = excluded", 1, true), "default label")
  t.checkerror("opts.excluded is an integer, expected a string", report.heatmap, {{false}}, {excluded = 1})
end)

t.case("svg heatmap: excluded cells hatched, with a key; a real 0 keeps its colour", function()
  local s = read(report.svg_heatmap({{0, false}, {100, nil}}, path("x.svg"), {min = 0, max = 100, excluded = "cannot launch"}))
  t.eq(count(s, '<pattern id="wl%-excluded"'), 1, "the hatch is defined once")
  assert(s:find('fill="url(#wl-excluded)"><title>[0][1] cannot launch</title>', 1, true), "hatched cell")
  assert(s:find('fill="#440154"><title>[0][0] 0</title>', 1, true), "0 is the scale's low colour")
  assert(s:find('fill="#d9d9d9"><title>[1][1] no data</title>', 1, true), "missing stays grey")
  assert(s:find('<rect [^>]*fill="url%(#wl%-excluded%)" stroke="#333"/>'), "the key's swatch")
  assert(has(texts(s), "cannot launch"), "the key's text")
  local plain = read(report.svg_heatmap({{0, 1}}, path("p.svg")))
  assert(not plain:find("wl-excluded", 1, true), "no hatch without excluded cells")
end)

t.case("svg heatmap: block-size columns ticked at round multiples, with an x label", function()
  local sizes = {}
  for b = 32, 1024, 32 do sizes[#sizes + 1] = b end
  local row = {}
  for i = 1, #sizes do row[i] = i end
  local s = read(report.svg_heatmap({row}, path("t.svg"), {labels = {rows = {"v"}, cols = sizes},
                                                         xlabel = "threads per block"}))
  local shown = texts(s)
  for _, b in ipairs({128, 256, 384, 512, 640, 768, 896, 1024}) do assert(has(shown, tostring(b)), "tick " .. b) end
  for _, b in ipairs({32, 192, 352}) do assert(not has(shown, tostring(b)), "no tick at " .. b) end
  assert(has(shown, "threads per block"), "x label")
  -- lanes 0..31 (default labels): every fifth, from 0
  s = read(report.svg_heatmap({row}, path("l.svg")))
  shown = texts(s)
  for _, l in ipairs({0, 5, 10, 30}) do assert(has(shown, tostring(l)), "lane tick " .. l) end
  assert(not has(shown, "3"), "no tick at lane 3")
end)

-- The y pixel of each marker, in order.
local function marker_ys(s)
  local ys = {}
  for y in s:gmatch('<circle cx="[%d.]+" cy="([%d.]+)"') do ys[#ys + 1] = tonumber(y) end
  return ys
end

t.case("svg lines: the y axis starts at zero unless ymin says otherwise", function()
  local series = {name = "GB/s", x = {1, 2, 3}, y = {50, 55, 60}}
  local s = read(report.svg_lines(series, path("z.svg")))
  assert(has(texts(s), "0"), "a tick at 0")
  local ys = marker_ys(s)
  local zoomed = read(report.svg_lines(series, path("y.svg"), {ymin = 50}))
  local zs = marker_ys(zoomed)
  -- From zero, 50 and 60 lie a sixth of the height apart; from 50, the whole height.
  assert(4 * (ys[1] - ys[3]) < zs[1] - zs[3], "50 and 60 look close, as they are")
  assert(not has(texts(zoomed), "0"), "ymin = 50: no tick at 0")
  assert(has(texts(zoomed), "50"), "ymin = 50: the axis starts there")
  local below = read(report.svg_lines({name = "d", y = {-2, 1}}, path("n.svg")))
  assert(has(texts(below), "0.0") and has(texts(below), "-2.0"), "negative data: the axis holds both")
  t.checkerror("opts.ymin is a string, expected a finite number", report.svg_lines, series, path("e.svg"), {ymin = "a"})
  t.checkerror("expected a finite number > 0 (the y axis is logarithmic)", report.svg_lines, series,
               path("e.svg"), {ymin = 0, logy = true})
  local clipped = read(report.svg_lines(series, path("c.svg"), {ymin = 52}))
  t.eq(#marker_ys(clipped), 2, "a point below ymin gets no marker")
  assert(clipped:find('clip-path="url(#wl-plot)"', 1, true), "and its line is clipped at the frame")
end)

t.case("svg lines: both axes are labelled, by default too", function()
  local s = read(report.svg_lines({name = "GB/s", x = {1, 2}, y = {1, 2}}, path("a.svg")))
  assert(has(texts(s), "x") and has(texts(s), "GB/s"), "x, and the one series' name on y")
  s = read(report.svg_lines({{name = "a", y = {1, 2}}, {name = "b", y = {2, 1}}}, path("b.svg")))
  assert(has(texts(s), "y"), "several series: y")
  s = read(report.svg_lines({name = "a", y = {1, 2}}, path("c.svg"), {xlabel = "block", ylabel = "ms"}))
  assert(has(texts(s), "block") and has(texts(s), "ms") and not has(texts(s), "x"), "given labels win")
end)

t.case("cleanup", function()
  for _, p in ipairs(written) do os.remove(p) end
end)

t.run{exit = true}
