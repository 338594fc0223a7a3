-- warplab/svg.lua: standalone SVG heatmaps (internal; scripts call report.svg_heatmap or
-- report.heatmap{svg=}) and the document helpers shared with warplab.plot. Excluded cells
-- (false, "cannot launch") are hatched, with a key under the colour bar.
-- Depends on: warplab.util (colours, ticks, XML escaping, files), warplab.heatmap (grid
-- validation and labels).
local util = require "warplab.util"
local heatmap = require "warplab.heatmap"

local svg = {}

-- Coordinates with at most two decimals and no trailing zeros: small, stable files. A
-- number past 1e15 (a scale gone wrong) in six significant digits, as SVG reads them
-- ("1e+308"), not three hundred.
function svg.num(x)
  if math.abs(x) >= 1e15 and math.abs(x) < math.huge then return string.format("%.6g", x) end
  local s = string.format("%.2f", x):gsub("0+$", ""):gsub("%.$", "")
  if s == "-0" then s = "0" end
  return s
end
local num = svg.num

-- A document under construction: add() appends one formatted line. The explicit white
-- background keeps the figure readable in dark-themed viewers; font sizes are in px so
-- labels keep their size when the picture is scaled.
function svg.doc(width, height)
  local d = {}
  local function add(fmt, ...) d[#d + 1] = string.format(fmt, ...) end
  add('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
      .. 'font-family="sans-serif" font-size="12">', width, height, width, height)
  add('<rect width="%d" height="%d" fill="white"/>', width, height)
  return d, add
end

-- The box a <text> line covers, estimated without fonts: 0.62 em per character (0.68
-- bold; sans-serif averages about 0.55), ascent 0.8 em, descent 0.25 em; honours
-- text-anchor, dominant-baseline="middle" and rotate(-90 cx cy). Returns x0, y0, x1, y1,
-- or nil for a line that is not a whole <text> element.
function svg.text_box(line)
  local attrs, body = line:match("^%s*<text(.-)>(.*)</text>%s*$")
  if not attrs then return nil end
  local function attr(name) return attrs:match("%s" .. name .. '="([^"]*)"') end
  local x, y = tonumber(attr("x")) or 0, tonumber(attr("y")) or 0
  local size = tonumber(attr("font%-size")) or 12
  local text = body:gsub("<[^>]*>", ""):gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&quot;", '"')
                   :gsub("&apos;", "'"):gsub("&amp;", "&")
  local w = (utf8.len(text) or #text) * size * (attr("font%-weight") == "bold" and 0.68 or 0.62)
  local anchor = attr("text%-anchor")
  local x0 = anchor == "middle" and x - w / 2 or anchor == "end" and x - w or x
  local y0, y1 = y - 0.8 * size, y + 0.25 * size
  if attr("dominant%-baseline") == "middle" then y0, y1 = y - 0.5 * size, y + 0.5 * size end
  local cx, cy = (attr("transform") or ""):match("rotate%(%-90%s+([%d%.%-]+)%s+([%d%.%-]+)%)")
  if cx then  -- turned a quarter counter-clockwise about (cx, cy)
    cx, cy = tonumber(cx), tonumber(cy)
    local ax0, ay0, ax1, ay1 = cx + (y0 - cy), cy - (x0 + w - cx), cx + (y1 - cy), cy - (x0 - cx)
    return ax0, ay0, ax1, ay1
  end
  return x0, y0, x0 + w, y1
end

-- Close the root element; the text ends with a newline, as text files should. A label
-- that would stick out of the canvas grows the canvas (viewBox, size and background) to
-- hold it with a 4 px margin: titles and labels never clip.
function svg.finish(d)
  local w, h = d[1]:match('width="(%d+)" height="(%d+)"')
  w, h = tonumber(w), tonumber(h)
  if w and h then
    local minx, miny, maxx, maxy = 0, 0, w, h
    for i = 3, #d do
      local x0, y0, x1, y1 = svg.text_box(d[i])
      if x0 then
        minx, miny = math.min(minx, x0 - 4), math.min(miny, y0 - 4)
        maxx, maxy = math.max(maxx, x1 + 4), math.max(maxy, y1 + 4)
      end
    end
    if minx < 0 or miny < 0 or maxx > w or maxy > h then
      minx, miny, maxx, maxy = math.floor(minx), math.floor(miny), math.ceil(maxx), math.ceil(maxy)
      local nw, nh = maxx - minx, maxy - miny
      d[1] = d[1]:gsub('width="%d+" height="%d+" viewBox="[^"]*"', string.format(
        'width="%d" height="%d" viewBox="%d %d %d %d"', nw, nh, minx, miny, nw, nh), 1)
      d[2] = string.format('<rect x="%d" y="%d" width="%d" height="%d" fill="white"/>', minx, miny, nw, nh)
    end
  end
  d[#d + 1] = "</svg>"
  return table.concat(d, "\n") .. "\n"
end

-- Title on top, axis labels below and left of the plot box (x0, y0, w, h).
function svg.labels(add, opts, total_w, total_h, x0, y0, w, h)
  if opts.title then
    add('<text x="%s" y="24" text-anchor="middle" font-size="15" font-weight="bold">%s</text>',
        num(total_w / 2), util.xml(opts.title))
  end
  if opts.xlabel then
    add('<text x="%s" y="%s" text-anchor="middle">%s</text>', num(x0 + w / 2),
        num(total_h - 10), util.xml(opts.xlabel))
  end
  if opts.ylabel then
    -- Rotated about its own anchor point, so it reads bottom-to-top along the axis.
    local cy = y0 + h / 2
    add('<text x="16" y="%s" text-anchor="middle" transform="rotate(-90 16 %s)">%s</text>',
        num(cy), num(cy), util.xml(opts.ylabel))
  end
end

-- Every k-th index gets a tick, k from 1, 2, 5, 10, 20, ... so at most ~10 show.
local index_step
-- Which indices get a tick: when the labels are increasing integers (block sizes, byte
-- counts), those that are multiples of the smallest round step giving 2..10 ticks: 128,
-- 256, 384, ... rather than 32, 192, 352; else every k-th index (index_step).
local DECIMAL, BINARY = {}, {}
for e = 0, 12 do
  for _, m in ipairs{1, 2, 5} do DECIMAL[#DECIMAL + 1] = math.tointeger(m * 10 ^ e) end
end
for e = 0, 40 do BINARY[e + 1] = 1 << e end
local function tick_indices(n, label)
  local vals, increasing, gcd = {}, true, 0
  for i = 1, n do
    vals[i] = math.tointeger(tonumber(label(i)))
    if not vals[i] or (i > 1 and vals[i] <= vals[i - 1]) then increasing = false; break end
    local a, b = gcd, math.abs(vals[i])
    while b ~= 0 do a, b = b, a % b end
    gcd = a
  end
  if increasing and n > 10 then
    -- Labels all multiples of 8 or more (block sizes, bytes) tick at powers of two and their
    -- multiples (128, 256, 384, ...); others at 1, 2, 5, 10, 20, ...
    local binary = gcd >= 8 and gcd & (gcd - 1) == 0
    for _, steps in ipairs(binary and {BINARY, DECIMAL} or {DECIMAL, BINARY}) do
      for _, step in ipairs(steps) do
        local picked = {}
        for i = 1, n do
          if vals[i] % step == 0 then picked[#picked + 1] = i end
        end
        if #picked >= 2 and #picked <= 10 then return picked end
      end
    end
  end
  local picked = {}
  for i = 1, n, index_step(n) do picked[#picked + 1] = i end
  return picked
end

function index_step(n)
  local k, mult = 1, {2, 2.5, 2}
  local i = 1
  while n / k > 10 do
    k = math.floor(k * mult[i] + 0.5)
    i = i % 3 + 1
  end
  return k
end

-- The text for row or column i: a given name, else the index counted from origin.
local function index_label(labels, i, origin)
  if labels and labels[i] ~= nil then return tostring(labels[i]) end
  return tostring(i - 1 + origin)
end

-- The colour bar right of the grid: a vertical viridis gradient, ticks at nice values
-- between the scale's low (bottom) and high (top) ends, the legend text above it.
local function color_bar(add, g, opts, x, y, h)
  add('<defs><linearGradient id="wl-bar" x1="0" y1="1" x2="0" y2="0">')
  for i = 0, 10 do
    add('<stop offset="%s" stop-color="%s"/>', num(i / 10), util.hex(util.viridis(i / 10)))
  end
  add('</linearGradient></defs>')
  add('<rect x="%s" y="%s" width="14" height="%s" fill="url(#wl-bar)" stroke="#333"/>',
      num(x), num(y), num(h))
  -- Ticks only inside the scale (nice values may fall just outside it); a flat scale
  -- gets one tick, its value, in the middle.
  local ticks, step = util.ticks(g.lo, g.hi, 5)
  if g.lo == g.hi then ticks, step = {g.lo}, math.max(math.abs(g.lo), 1) end
  for _, v in ipairs(ticks) do
    if v >= g.lo - 1e-12 * math.abs(g.lo) and v <= g.hi + 1e-12 * math.abs(g.hi) then
      local ty = y + h - heatmap.unit(g, v) * h
      add('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>', num(x + 14), num(ty),
          num(x + 18), num(ty))
      add('<text x="%s" y="%s" dominant-baseline="middle">%s</text>', num(x + 21), num(ty),
          util.xml(util.tick_label(v, step)))
    end
  end
  if type(opts.legend) == "string" then
    add('<text x="%s" y="%s">%s</text>', num(x), num(y - 8), util.xml(opts.legend))
  end
end

-- The hatch of excluded cells (false: "cannot launch"): grey diagonal lines on white,
-- unlike any colour of the scale and unlike the flat grey of a missing cell.
local HATCH = "url(#wl-excluded)"
local function hatch_pattern(add)
  add('<defs><pattern id="wl-excluded" width="6" height="6" patternUnits="userSpaceOnUse" '
      .. 'patternTransform="rotate(45)"><rect width="6" height="6" fill="white"/>'
      .. '<line x1="0" y1="0" x2="0" y2="6" stroke="#777" stroke-width="2"/></pattern></defs>')
end

-- The cells, row 1 at the top as in the terminal view; missing cells light grey, excluded
-- ones hatched.
local function draw_cells(add, g, box, labels, opts)
  -- Tooltips (<title> per cell) help reading values, but not at a megabyte per figure.
  local tips = g.nrows * g.ncols <= 20000
  local cs = box.cell
  for r = 1, g.nrows do
    for c = 1, g.ncols do
      local v = g.cells[r][c]
      local fill = v == false and HATCH or v and util.hex(util.viridis(heatmap.unit(g, v))) or "#d9d9d9"
      local rect = string.format('<rect x="%s" y="%s" width="%s" height="%s" fill="%s"',
                                 num(box.left + (c - 1) * cs), num(box.top + (r - 1) * cs),
                                 num(cs), num(cs), fill)
      if tips then
        add('%s><title>[%s][%s] %s</title></rect>', rect, util.xml(labels.row(r)),
            util.xml(labels.col(c)), util.xml(v == false and heatmap.excluded_label(opts) or v and util.repr(v)
                                              or "no data"))
      else
        add('%s/>', rect)
      end
    end
  end
end

-- Index ticks at cell centres, every k-th: columns below the grid, rows to its left.
local function draw_index_ticks(add, g, box, labels)
  local cs, bottom = box.cell, box.top + g.nrows * box.cell
  for _, c in ipairs(tick_indices(g.ncols, labels.col)) do
    local x = num(box.left + (c - 0.5) * cs)
    add('<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#333"/>', x, bottom, x, bottom + 4)
    add('<text x="%s" y="%d" text-anchor="middle">%s</text>', x, bottom + 17,
        util.xml(labels.col(c)))
  end
  for _, r in ipairs(tick_indices(g.nrows, labels.row)) do
    local y = num(box.top + (r - 0.5) * cs)
    add('<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#333"/>', box.left - 4, y, box.left, y)
    add('<text x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>',
        box.left - 7, y, util.xml(labels.row(r)))
  end
end

-- svg.heatmap(data, path, opts, level): write the grid as an SVG file; returns path.
-- `level` is as in error() from here (2 = whoever called svg.heatmap).
function svg.heatmap(data, path, opts, level)
  opts = util.options(opts, "report.svg_heatmap")
  level = level or 2
  if type(path) ~= "string" then
    error("report.svg_heatmap: path is " .. util.kind(path) .. ", expected a string", level)
  end
  local cell = util.size(opts.cell, "opts.cell", "report.svg_heatmap", nil, 1000) -- whole pixels
  local g = heatmap.prepare(data, opts, "report.svg_heatmap", level + 1)
  -- Cells up to 28 px, shrinking so the grid stays within about 640 x 480 px (and never
  -- below 2 px: a 1024-wide grid is still readable zoomed in).
  local nr, nc = math.max(g.nrows, 1), math.max(g.ncols, 1)
  local box = {cell = cell or math.max(2, math.min(28, 640 // nc, 480 // nr)),
               left = opts.ylabel and 76 or 56, top = opts.title and 48 or 20}
  local pw, ph = nc * box.cell, nr * box.cell
  local bar_x = box.left + pw + 20
  local width, height = bar_x + 90, box.top + ph + (opts.xlabel and 56 or 38)
  -- Axis text: the names given in opts.labels, else indices counted from opts.origin.
  local named = type(opts.labels) == "table" and opts.labels or {}
  local origin = opts.origin or 0
  local labels = {
    row = function(r) return index_label(named.rows, r, origin) end,
    col = function(c) return index_label(named.cols, c, origin) end,
  }
  local d, add = svg.doc(width, height)
  svg.labels(add, opts, width, height, box.left, box.top, pw, ph)
  if g.any_excluded then hatch_pattern(add) end
  draw_cells(add, g, box, labels, opts)
  add('<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#333"/>', num(box.left),
      num(box.top), num(pw), num(ph))
  draw_index_ticks(add, g, box, labels)
  if opts.legend ~= false then color_bar(add, g, opts, bar_x, box.top, ph) end
  if g.any_excluded then -- its key below the colour bar (the canvas grows to hold it)
    local y = box.top + ph + 10
    add('<rect x="%s" y="%s" width="14" height="14" fill="%s" stroke="#333"/>', num(bar_x), num(y), HATCH)
    add('<text x="%s" y="%s" dominant-baseline="middle">%s</text>', num(bar_x + 20), num(y + 7),
        util.xml(heatmap.excluded_label(opts)))
  end
  util.write_file(path, svg.finish(d), "report.svg_heatmap", level + 1)
  return path
end

return util.internal(svg)
