-- lib_svg_fit.lua: SVG titles and labels never clip. Every figure kind (heatmap, lines,
-- bars, a warp trace's legend) is drawn with long and short labels; every <text> element's
-- estimated box (svg.text_box) must lie inside the document's viewBox.
local t = require "warplab.test"
local svg = require "warplab.svg"
local report = require "warplab.report"

local dir = os.tmpname()
os.remove(dir)
local long = "a title far longer than the figure is wide, so that it would clip at both edges if nothing made room"

local function inside(path)
  local f = assert(io.open(path))
  local text = f:read("a")
  f:close()
  local vx, vy, vw, vh = text:match('viewBox="([%-%d]+) ([%-%d]+) (%d+) (%d+)"')
  vx, vy, vw, vh = tonumber(vx), tonumber(vy), tonumber(vw), tonumber(vh)
  assert(vx, "no viewBox in " .. path)
  local n, bad = 0, {}
  for line in text:gmatch("[^\n]+") do
    local x0, y0, x1, y1 = svg.text_box(line)
    if x0 then
      n = n + 1
      if x0 < vx or y0 < vy or x1 > vx + vw or y1 > vy + vh then
        bad[#bad + 1] = string.format("%s: [%.0f %.0f %.0f %.0f] outside [%d %d %d %d]", line:sub(1, 60), x0, y0, x1, y1,
                                      vx, vy, vx + vw, vy + vh)
      end
    end
  end
  assert(n > 0, "no text in " .. path)
  return bad
end

t.case("the text box estimate", function()
  local x0, y0, x1, y1 = svg.text_box('<text x="100" y="20" text-anchor="middle">abcd</text>')
  t.eq({x0 < 100, x1 > 100, y0 < 20, y1 > 20}, {true, true, true, true})
  local r = {svg.text_box('<text x="16" y="100" text-anchor="middle" transform="rotate(-90 16 100)">' .. long .. "</text>")}
  t.eq(r[4] - r[2] > r[3] - r[1], true)  -- rotated: taller than wide
  t.eq(svg.text_box("<rect/>"), nil)
end)

t.case("heatmap, lines and bars with long labels", function()
  local hm = report.svg_heatmap({{1, 2}, {3, 4}}, dir .. "/h.svg", {title = long, xlabel = long, ylabel = long,
                                 legend = long})
  t.eq(inside(hm), {})
  local ln = report.svg_lines({{name = long, x = {1, 2, 3}, y = {1, 4, 9}}}, dir .. "/l.svg",
                              {title = long, xlabel = long, ylabel = long})
  t.eq(inside(ln), {})
  local br = report.svg_bars({{label = long, value = 3}, {label = "b", value = 5}}, dir .. "/b.svg",
                             {title = long, xlabel = long, lines = {{label = long, value = 4}}})
  t.eq(inside(br), {})
end)

t.case("short labels keep the figure's own size", function()
  local p = report.svg_lines({{name = "s", x = {1, 2}, y = {1, 2}}}, dir .. "/s.svg", {title = "t"})
  local f = assert(io.open(p))
  local head = f:read("l")
  f:close()
  t.eq(head:match('viewBox="(%-?%d+) (%-?%d+)') ~= nil, true)
  t.eq(head:find('viewBox="0 0 ', 1, true) ~= nil, true, head)
end)

t.run()
os.execute("rm -rf '" .. dir .. "'")
