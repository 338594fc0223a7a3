-- warplab/trace_svg.lua: per-warp trace timelines as one standalone SVG (internal; call
-- trace.svg). One panel per warp: rows = lanes, columns = steps, a coloured cell with the
-- tag's letter where a lane recorded, a tooltip with mask and cycle, lane counts below.
-- Depends on: warplab.svg (document helpers), warplab.util (escaping, file writing).
local svg = require "warplab.svg"
local util = require "warplab.util"

local trace_svg = {}
local num = svg.num

-- Okabe-Ito, then Paul Tol's muted colours: categorical palettes that colour-blind
-- readers can tell apart. Letters go white on the dark ones.
local PALETTE = {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00",
                 "#CC79A7", "#999999", "#332288", "#88CCEE", "#117733", "#DDCC77",
                 "#882255", "#44AA99"}
local DARK = {["#0072B2"] = true, ["#009E73"] = true, ["#332288"] = true, ["#117733"] = true,
              ["#882255"] = true, ["#D55E00"] = true}

-- Tags in order of first appearance over all panels, so a tag has one colour everywhere.
local function tag_colors(warps)
  local order, color = {}, {}
  for _, w in ipairs(warps) do
    for _, s in ipairs(w.steps) do
      if not color[s.tag] then
        order[#order + 1] = s.tag
        color[s.tag] = PALETTE[(#order - 1) % #PALETTE + 1]
      end
    end
  end
  return order, color
end

-- One panel at vertical offset y; returns the y below it.
local function panel(add, w, y, geo, color, tr)
  local cs, left = geo.cell, geo.left
  local shown = math.min(#w.steps, geo.max_steps)
  local title = string.format("block %d warp %d (SM %d): %d events in %d steps", w.block,
                              w.warp, w.sm, #w.events, #w.steps)
  if shown < #w.steps then title = title .. string.format(" (first %d shown)", shown) end
  add('<text x="%d" y="%s" font-weight="bold">%s</text>', left, num(y + 12), util.xml(title))
  local top = y + 20
  local t0 = w.steps[1] and w.steps[1].clock or 0
  for lane = 0, geo.lanes - 1 do
    local ly = top + lane * cs
    if lane % 4 == 0 then
      add('<text x="%d" y="%s" text-anchor="end" dominant-baseline="middle" font-size="9">'
          .. 'lane %d</text>', left - 4, num(ly + cs / 2), lane)
    end
    for i = 1, shown do
      local s = w.steps[i]
      if s.lanes[lane] then
        local x = left + (i - 1) * cs
        add('<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>lane %d, step %d: tag'
            .. ' %s, mask %s (%d lanes), cycle +%d</title></rect>', num(x), num(ly), num(cs),
            num(cs), color[s.tag], lane, i - 1, util.xml(tr.tag_text(s.tag)),
            tr.mask_hex(s.mask), tr.popcount(s.mask), s.clock - t0)
        if cs >= 10 then
          add('<text x="%s" y="%s" text-anchor="middle" dominant-baseline="middle" '
              .. 'font-size="%d" fill="%s" pointer-events="none">%s</text>', num(x + cs / 2),
              num(ly + cs / 2), cs - 4, DARK[color[s.tag]] and "white" or "black",
              util.xml(tr.tag_text(s.tag)))
        end
      end
    end
  end
  local bottom = top + geo.lanes * cs
  add('<rect x="%d" y="%s" width="%s" height="%s" fill="none" stroke="#333"/>', left, num(top),
      num(shown * cs), num(geo.lanes * cs))
  -- Active-lane counts under the grid: 32 = converged, fewer = a divergent step.
  add('<text x="%d" y="%s" text-anchor="end" font-size="9">lanes</text>', left - 4,
      num(bottom + 11))
  for i = 1, shown do
    add('<text x="%s" y="%s" text-anchor="middle" font-size="8">%d</text>',
        num(left + (i - 0.5) * cs), num(bottom + 11), tr.popcount(w.steps[i].mask))
  end
  return bottom + 24
end

-- write(warps, path, opts, trace) -> path. opts.title, opts.cell (px, default 12),
-- opts.max_steps (default 200), opts.lanes (rows, default 32).
function trace_svg.write(warps, path, opts, tr)
  if type(warps) ~= "table" then
    error("trace.svg: expected the list from trace.warps, got " .. util.kind(warps), 3)
  end
  if warps.steps then warps = {warps} end -- one warp is fine too
  if type(path) ~= "string" then
    error("trace.svg: path is " .. util.kind(path) .. ", expected a string", 3)
  end
  local geo = {cell = util.size(opts.cell, "opts.cell", "trace.svg", 12, 1000), left = 52,
               max_steps = util.size(opts.max_steps, "opts.max_steps", "trace.svg", 200, 100000),
               lanes = util.size(opts.lanes, "opts.lanes", "trace.svg", 32, 1024)}
  local widest = 1
  for _, w in ipairs(warps) do widest = math.max(widest, math.min(#w.steps, geo.max_steps)) end
  local order, color = tag_colors(warps)
  -- Wide enough for the grid, the legend and the panel titles (~7 px a character).
  local legend_w = 0
  for _, tag in ipairs(order) do legend_w = legend_w + 28 + 8 * #tr.tag_text(tag) end
  local width = math.max(geo.left + widest * geo.cell + 20, geo.left + legend_w + 10,
                         geo.left + 7 * 60, 360)
  local panel_h = 20 + geo.lanes * geo.cell + 24
  local head = opts.title and 62 or 34
  local height = head + #warps * panel_h + 8
  local d, add = svg.doc(width, height)
  if opts.title then
    add('<text x="%s" y="22" text-anchor="middle" font-size="15" font-weight="bold">%s</text>',
        num(width / 2), util.xml(opts.title))
  end
  -- Legend: one swatch per tag.
  local lx, ly = geo.left, head - 20
  for _, tag in ipairs(order) do
    add('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>', lx, ly, color[tag])
    add('<text x="%d" y="%d" dominant-baseline="middle">%s</text>', lx + 16, ly + 6,
        util.xml(tr.tag_text(tag)))
    lx = lx + 16 + 8 * #tr.tag_text(tag) + 12
  end
  local y = head
  for _, w in ipairs(warps) do y = panel(add, w, y, geo, color, tr) end
  util.write_file(path, svg.finish(d), "trace.svg", 4)
  return path
end

return util.internal(trace_svg)
