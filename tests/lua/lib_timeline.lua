-- lib_timeline.lua: warplab.timeline, the per-stream timelines of the concurrency
-- experiments: the busy time of overlapping spans, how many rows ran at once, the text
-- picture (a row per stream, marks where its spans lie), the SVG (a bar per span, labels
-- inside the canvas), and a sentence for every malformed row. No GPU.
local t = require "warplab.test"
local tl = require "warplab.timeline"
local svg = require "warplab.svg"

local rows = {
  {name = "stream 1", spans = {{t0 = 0, t1 = 2, kind = "H2D"}, {t0 = 2, t1 = 4, kind = "kernel"}}},
  {name = "stream 2", spans = {{t0 = 2, t1 = 4, kind = "H2D"}, {t0 = 4, t1 = 6, kind = "kernel"}}},
}

t.case("busy time is the union of the spans", function()
  t.eq(tl.busy({{t0 = 0, t1 = 2}, {t0 = 1, t1 = 3}, {t0 = 5, t1 = 6}}), 4)
  t.eq(tl.busy({{t0 = 3, t1 = 4}, {t0 = 0, t1 = 10}}), 10)  -- one inside another, out of order
  t.eq(tl.busy({}), 0)
  t.eq({tl.extent(rows)}, {0, 6})
  t.eq({tl.extent({})}, {0, 0})
end)

t.case("concurrency: 1 when rows take turns, more when they overlap", function()
  t.eq(tl.concurrency(rows), 8 / 6)  -- 4 + 4 busy over 6
  t.eq(tl.concurrency({{spans = {{t0 = 0, t1 = 1}}}, {spans = {{t0 = 1, t1 = 2}}}}), 1)
  t.eq(tl.concurrency({{spans = {{t0 = 0, t1 = 1}}}, {spans = {{t0 = 0, t1 = 1}}}}), 2)
  t.eq(tl.concurrency({}), 1)
end)

t.case("the text picture: a line per row, marks where the spans lie", function()
  local text = tl.text(rows, {width = 12, print = false, title = "two streams"})
  local lines = {}
  for l in text:gmatch("[^\n]+") do lines[#lines + 1] = l end
  t.eq(lines[1], "two streams")
  t.eq(lines[2], "  stream 1 |####====....|")
  t.eq(lines[3], "  stream 2 |....####====|")
  assert(lines[4]:find("# H2D, = kernel, 6.000 ms from left to right", 1, true), lines[4])
end)

t.case("a huge span is written in 4 digits, never 300 (the legend and the tooltips)", function()
  local huge = {{name = "s", spans = {{t0 = 0, t1 = 1e308, kind = "kernel"}}}}
  local text = tl.text(huge, {width = 10, print = false})
  assert(text:find("1.000e+308 ms from left to right", 1, true), text)
  assert(#text < 200, text)
  local path = os.tmpname()
  tl.svg(huge, path)
  local f = assert(io.open(path))
  local doc = f:read("a")
  f:close()
  os.remove(path)
  assert(doc:find("kernel: 0 .. 1.000e+308 ms", 1, true), doc)
  assert(not doc:find("%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d"), "a number of 20 digits or more in the SVG")
end)

t.case("the SVG: a bar per span, every label inside the canvas", function()
  local path = os.tmpname()
  t.eq(tl.svg(rows, path, {title = "a title long enough to need room on both sides of a narrow figure", width = 300}), path)
  local f = assert(io.open(path))
  local text = f:read("a")
  f:close()
  os.remove(path)
  t.eq(select(2, text:gsub("<rect x=[^>]*><title>", "")), 4)
  local vx, vy, vw, vh = text:match('viewBox="([%-%d]+) ([%-%d]+) (%d+) (%d+)"')
  vx, vy, vw, vh = tonumber(vx), tonumber(vy), tonumber(vw), tonumber(vh)
  for line in text:gmatch("[^\n]+") do
    local x0, y0, x1, y1 = svg.text_box(line)
    if x0 then assert(x0 >= vx and y0 >= vy and x1 <= vx + vw and y1 <= vy + vh, "clipped: " .. line) end
  end
end)

t.case("malformed rows get one sentence", function()
  t.checkerror("timeline.busy: rows[1].spans[1] needs finite t0 <= t1", tl.busy, {{t0 = 2, t1 = 1}})
  t.checkerror("needs finite t0 <= t1", tl.busy, {{t0 = 0 / 0, t1 = 1}})
  t.checkerror("needs finite t0 <= t1", tl.concurrency, {{spans = {{t0 = 0, t1 = math.huge}}}})
  t.checkerror("timeline.text: rows is an integer, expected a list of rows", tl.text, 5)
  t.checkerror("timeline.svg: rows[1] needs spans", tl.svg, {{name = "x"}}, "x.svg")
  t.checkerror("timeline.svg: path is an integer, expected a string", tl.svg, rows, 5)
end)

t.run{exit = true}
