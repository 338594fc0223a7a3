-- warplab/bars.lua: SVG horizontal bar charts (internal; scripts call report.svg_bars).
-- One bar per labelled value, its number at the bar's end, optional vertical reference
-- lines (a measured bandwidth, a target) with their own labels.
-- Depends on: warplab.util (ticks, XML, files), warplab.svg (document helpers).
local util = require "warplab.util"
local svg = require "warplab.svg"

local bars = {}
local num = svg.num
local WHO = "report.svg_bars"
local LINE_COLORS = {"#d62728", "#2ca02c", "#ff7f0e", "#9467bd"}

local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end

-- Validate {{label =, value =}, ...} and opts.lines {{label =, value =}, ...}.
local function collect(list, what, level)
  if type(list) ~= "table" then
    error(string.format("%s: %s is %s, expected a list of {label =, value =}", WHO, what, util.kind(list)), level)
  end
  for i, b in ipairs(list) do
    if type(b) ~= "table" or b.label == nil or not finite(b.value) or b.value < 0 then
      error(string.format("%s: %s[%d] needs a label and a finite value >= 0", WHO, what, i), level)
    end
  end
  return list
end

-- bars.write(list, path, opts, level): opts.title, opts.xlabel, opts.lines, opts.format
-- (string.format pattern for the numbers, default "%.4g"), opts.width. Returns path.
function bars.write(list, path, opts, level)
  opts, level = util.options(opts, WHO), level or 2
  if type(path) ~= "string" then
    error(WHO .. ": path is " .. util.kind(path) .. ", expected a string", level)
  end
  collect(list, "bars", level + 1)
  local lines = collect(opts.lines or {}, "opts.lines", level + 1)
  local fmt = opts.format or "%.4g"
  local hi = 0
  for _, b in ipairs(list) do hi = math.max(hi, b.value) end
  for _, l in ipairs(lines) do hi = math.max(hi, l.value) end
  if hi == 0 then hi = 1 end
  -- The axis ends on the first tick past the longest bar plus room for its number.
  local _, step = util.ticks(0, hi * 1.08, 6)
  local top_v = math.ceil(hi * 1.08 / step) * step
  local ticks = util.ticks(0, top_v, 6)
  -- Label column sized to the longest label (about 7 px a character at 12 px).
  local longest = 0
  for _, b in ipairs(list) do longest = math.max(longest, util.width(tostring(b.label))) end
  local left = math.max(80, 7 * longest + 16)
  local row = 24
  local width = util.size(opts.width, "opts.width", WHO, math.max(720, left + 480), 100000)
  local b = {left = left, right = width - 60, top = (opts.title and 44 or 20) + 14 * #lines}
  b.bottom = b.top + row * math.max(1, #list)
  local height = b.bottom + 50
  local function px(v) return b.left + v / top_v * (b.right - b.left) end
  local d, add = svg.doc(width, height)
  svg.labels(add, {title = opts.title, xlabel = opts.xlabel}, width, height, b.left, b.top,
             b.right - b.left, b.bottom - b.top)
  for _, t in ipairs(ticks) do
    local x = num(px(t))
    add('<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#e5e5e5"/>', x, b.top, x, b.bottom)
    add('<text x="%s" y="%d" text-anchor="middle">%s</text>', x, b.bottom + 18, util.xml(util.tick_label(t, step)))
  end
  for i, bar in ipairs(list) do
    local y = b.top + (i - 1) * row
    local w = px(bar.value) - b.left
    add('<text x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>', b.left - 8,
        num(y + row / 2), util.xml(bar.label))
    add('<rect x="%d" y="%s" width="%s" height="%s" fill="%s"><title>%s: %s</title></rect>', b.left,
        num(y + 4), num(w), num(row - 8), util.xml(bar.color or "#1f77b4"), util.xml(bar.label),
        util.repr(bar.value))
    add('<text x="%s" y="%s" dominant-baseline="middle">%s</text>', num(b.left + w + 4), num(y + row / 2),
        util.xml(string.format(fmt, bar.value)))
  end
  for i, l in ipairs(lines) do
    local x, color = num(px(l.value)), LINE_COLORS[(i - 1) % #LINE_COLORS + 1]
    add('<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s" stroke-width="2" stroke-dasharray="6 3"/>', x,
        b.top - 4, x, b.bottom, color)
    add('<text x="%s" y="%d" text-anchor="end" fill="%s">%s</text>', x, b.top - 14 * (#lines - i) - 8, color,
        util.xml(string.format("%s " .. fmt, l.label, l.value)))
  end
  add('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>', b.left, b.top, b.left, b.bottom)
  util.write_file(path, svg.finish(d), WHO, level + 1)
  return path
end

return util.internal(bars)
