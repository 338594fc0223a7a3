-- warplab/plot.lua: SVG line charts (internal; scripts call report.svg_lines).
-- Series of (x, y) points on linear or logarithmic axes with nice ticks, grid lines,
-- markers with tooltips and a legend; a missing y (nil, NaN, inf) breaks the line. A
-- linear y axis starts at zero unless opts.ymin says otherwise; both axes are labelled.
-- Depends on: warplab.util (ticks, XML, files), warplab.svg (document helpers).
local util = require "warplab.util"
local svg = require "warplab.svg"

local plot = {}
local num = svg.num
local WHO = "report.svg_lines"

-- Ten distinguishable line colours (the common "category10" set).
local PALETTE = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                 "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

-- Neither NaN (the only value unequal to itself) nor an infinity.
local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end

-- Largest positive integer key: series may have holes, where # is unreliable.
local function max_index(t)
  local n = 0
  for k in pairs(t) do
    if math.type(k) == "integer" and k > n then n = k end
  end
  return n
end

-- Validate the series into {name, points = {{x, y} or false}}; false marks a break.
local function collect(series, opts, level)
  if type(series) ~= "table" then
    error(WHO .. ": series is " .. util.kind(series) .. ", expected a list of {name=, x=, y=}",
          level)
  end
  if series.y ~= nil then series = {series} end -- one series given bare
  -- Errors name the series by its name (or "series N") and the index, as a user
  -- would look for it in their own tables.
  local out = {}
  for si = 1, max_index(series) do
    local s = series[si]
    local name = type(s) == "table" and s.name and tostring(s.name) or ("series " .. si)
    if type(s) ~= "table" or type(s.y) ~= "table" then
      error(string.format("%s: %s needs y = {numbers}", WHO, name), level)
    end
    if s.x ~= nil and type(s.x) ~= "table" then
      error(string.format("%s: %s has x = %s, expected a table", WHO, name, util.kind(s.x)), level)
    end
    local pts = {}
    for i = 1, max_index(s.y) do
      local x, y = i, s.y[i]
      if s.x then x = s.x[i] end
      if y ~= nil and type(y) ~= "number" then
        error(string.format("%s: %s has y[%d] = %s, expected a number", WHO, name, i,
                            util.kind(y)), level)
      end
      if type(x) ~= "number" or not finite(x) then
        error(string.format("%s: %s has x[%d] = %s, expected a finite number", WHO, name, i,
                            tostring(x)), level)
      end
      -- A missing or non-finite y is a gap in the line, not an error: a sweep point
      -- that failed to measure should not stop the chart of the others.
      local ok = y ~= nil and finite(y)
      for _, c in ipairs({{"x", x}, {"y", ok and y or 1}}) do
        if opts["log" .. c[1]] and c[2] <= 0 then
          error(string.format("%s: %s has %s[%d] = %s, which a log axis cannot show", WHO, name,
                              c[1], i, util.repr(c[2])), level)
        end
      end
      pts[#pts + 1] = ok and {x, y} or false
    end
    local color = s.color or PALETTE[(si - 1) % #PALETTE + 1]
    out[#out + 1] = {name = name, points = pts, color = tostring(color)}
  end
  return out
end

-- An axis over [lo, hi]: ticks {value, label} and map(v) -> 0..1. `log` is false, true
-- (powers of 10) or 2 (powers of 2, for block sizes and byte counts).
local function axis(lo, hi, log)
  local ax = {ticks = {}}
  if log then
    local b = (log == 2) and 2 or 10
    local klo = math.floor(math.log(lo, b) + 1e-9)
    local khi = math.ceil(math.log(hi, b) - 1e-9)
    if khi <= klo then khi = klo + 1 end
    -- Powers of 2 over a wide range (2^0 .. 2^30) would crowd the axis: keep ~10.
    local every = math.max(1, math.ceil((khi - klo + 1) / 10))
    for k = klo, khi, every do
      local v = b ^ k
      local label = (math.tointeger(v) and b == 2) and string.format("%d", math.tointeger(v))
                    or string.format("%g", v)
      ax.ticks[#ax.ticks + 1] = {v, label}
    end
    function ax.map(v) return (math.log(v, b) - klo) / (khi - klo) end
    return ax
  end
  if lo == hi then
    local d = (lo == 0) and 1 or math.abs(lo) * 0.5
    lo, hi = lo - d, hi + d
  end
  -- Widen the range to whole tick steps so the first and last ticks sit on the frame.
  local _, step = util.ticks(lo, hi, 6)
  lo, hi = math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step
  for _, v in ipairs((util.ticks(lo, hi, 6))) do
    ax.ticks[#ax.ticks + 1] = {v, util.tick_label(v, step)}
  end
  function ax.map(v) return (v - lo) / (hi - lo) end
  return ax
end

-- The data's extent over every series; a default box when there is no point at all.
local function bounds(all)
  local xlo, xhi, ylo, yhi = math.huge, -math.huge, math.huge, -math.huge
  for _, s in ipairs(all) do
    for _, p in ipairs(s.points) do
      if p then
        xlo, xhi = math.min(xlo, p[1]), math.max(xhi, p[1])
        ylo, yhi = math.min(ylo, p[2]), math.max(yhi, p[2])
      end
    end
  end
  if xlo > xhi then return 1, 10, 1, 10, true end
  return xlo, xhi, ylo, yhi, false
end

-- Grid lines, tick marks and tick labels of both axes around the plot box `b`. Drawn
-- first, so the data lines lie on top of the grid.
local function draw_axes(add, xa, ya, b)
  for _, t in ipairs(xa.ticks) do
    local x = num(b.px(t[1]))
    add('<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#e5e5e5"/>', x, b.top, x, b.bottom)
    add('<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#333"/>', x, b.bottom, x, b.bottom + 5)
    add('<text x="%s" y="%d" text-anchor="middle">%s</text>', x, b.bottom + 19, util.xml(t[2]))
  end
  for _, t in ipairs(ya.ticks) do
    local y = num(b.py(t[1]))
    add('<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#e5e5e5"/>', b.left, y, b.right, y)
    add('<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#333"/>', b.left - 5, y, b.left, y)
    add('<text x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>',
        b.left - 8, y, util.xml(t[2]))
  end
  add('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>', b.left, b.top,
      b.right - b.left, b.bottom - b.top)
end

-- One series: a path that lifts the pen at each break ("M" starts a new piece), a
-- marker per point with its exact values as a tooltip, and its legend entry (slot i).
local function draw_series(add, s, i, b)
  local color = util.xml(s.color)
  local pieces, pen_down = {}, false
  for _, p in ipairs(s.points) do
    if p then
      pieces[#pieces + 1] = (pen_down and "L" or "M") .. num(b.px(p[1])) .. " " .. num(b.py(p[2]))
    end
    pen_down = p and true or false
  end
  if #pieces > 0 then
    add('<path d="%s" fill="none" stroke="%s" stroke-width="2" clip-path="url(#wl-plot)"/>',
        table.concat(pieces, " "), color)
  end
  for _, p in ipairs(s.points) do
    if p and p[2] >= b.ylo then
      add('<circle cx="%s" cy="%s" r="3" fill="%s"><title>%s: (%s, %s)</title></circle>',
          num(b.px(p[1])), num(b.py(p[2])), color, util.xml(s.name), util.repr(p[1]),
          util.repr(p[2]))
    end
  end
  local ly = b.top + 10 + (i - 1) * 20
  add('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>', b.right + 14, ly,
      b.right + 34, ly, color)
  add('<text x="%d" y="%d" dominant-baseline="middle">%s</text>', b.right + 40, ly,
      util.xml(s.name))
end

-- plot.lines(series, path, opts, level): write the chart; returns path. `level` is as
-- in error() from here.
function plot.lines(series, path, opts, level)
  opts, level = util.options(opts, WHO), level or 2
  if type(path) ~= "string" then
    error(WHO .. ": path is " .. util.kind(path) .. ", expected a string", level)
  end
  local all = collect(series, opts, level + 1)
  local xlo, xhi, ylo, yhi, empty = bounds(all)
  -- A linear y axis includes zero, so a chart of 50..60 does not look like 0..100; opts.ymin
  -- starts it elsewhere (points below it are clipped at the frame).
  local ymin = opts.ymin
  if ymin ~= nil and (type(ymin) ~= "number" or not finite(ymin) or (opts.logy and ymin <= 0)) then
    error(string.format("%s: opts.ymin is %s, expected a finite number%s", WHO,
                        type(ymin) == "number" and util.repr(ymin) or util.kind(ymin),
                        opts.logy and " > 0 (the y axis is logarithmic)" or ""), level)
  end
  if ymin then
    ylo, yhi = ymin, math.max(yhi, ymin)
  elseif not opts.logy and not empty then
    ylo, yhi = math.min(ylo, 0), math.max(yhi, 0)
  end
  local xa, ya = axis(xlo, xhi, opts.logx), axis(ylo, yhi, opts.logy)
  -- Both axes carry a label: the ones given, else "x" and the one series' name (or "y").
  local labels = {title = opts.title, xlabel = opts.xlabel or "x",
                  ylabel = opts.ylabel or (#all == 1 and all[1].name) or "y"}
  -- Fixed margins: tick labels left and below, the legend in a 170 px column right.
  local width = util.size(opts.width, "opts.width", WHO, 720, 100000)
  local height = util.size(opts.height, "opts.height", WHO, 440, 100000)
  local b = {left = 72, top = opts.title and 44 or 20, ylo = ymin or -math.huge}
  b.right, b.bottom = width - 170, height - 58
  function b.px(x) return b.left + xa.map(x) * (b.right - b.left) end
  function b.py(y) return b.bottom - ya.map(y) * (b.bottom - b.top) end
  local d, add = svg.doc(width, height)
  svg.labels(add, labels, width, height, b.left, b.top, b.right - b.left, b.bottom - b.top)
  draw_axes(add, xa, ya, b)
  if empty then
    add('<text x="%s" y="%s" text-anchor="middle">(no data)</text>', num((b.left + b.right) / 2),
        num((b.top + b.bottom) / 2))
  end
  add('<clipPath id="wl-plot"><rect x="%d" y="%d" width="%d" height="%d"/></clipPath>', b.left - 4,
      b.top - 4, b.right - b.left + 8, b.bottom - b.top + 8)
  for i, s in ipairs(all) do draw_series(add, s, i, b) end
  util.write_file(path, svg.finish(d), WHO, level + 1)
  return path
end

return util.internal(plot)
