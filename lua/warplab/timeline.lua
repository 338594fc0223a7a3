-- warplab/timeline.lua: per-stream timelines of GPU work timed with events: each row is a
-- stream (or an engine) with its spans (a copy in, a kernel, a copy out, ...), drawn as
-- text rows and as an SVG, and the arithmetic an overlap check needs: the busy time of a
-- row (the union of its spans) and how much the rows ran at the same time.
-- Rows: {{name = "stream 1", spans = {{t0 = 0.0, t1 = 0.4, kind = "H2D"}, ...}}, ...};
-- times in milliseconds, any origin. Depends on: warplab.util, warplab.svg.
local util = require "warplab.util"
local svg = require "warplab.svg"

local timeline = {}
local num = svg.num
local COLORS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"}
local MARKS = {"#", "=", "+", "*", "%", "@"}

local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end

-- Raises unless rows is a list of {name =, spans = {{t0 =, t1 =, kind =}, ...}} with
-- finite t0 <= t1. `who` names the caller.
local function check_rows(rows, who, level)
  if type(rows) ~= "table" then error(who .. ": rows is " .. util.kind(rows) .. ", expected a list of rows", level) end
  for i, r in ipairs(rows) do
    if type(r) ~= "table" or type(r.spans) ~= "table" then
      error(string.format("%s: rows[%d] needs spans = {{t0 =, t1 =, kind =}, ...}", who, i), level)
    end
    for j, s in ipairs(r.spans) do
      if type(s) ~= "table" or not finite(s.t0) or not finite(s.t1) or s.t1 < s.t0 then
        error(string.format("%s: rows[%d].spans[%d] needs finite t0 <= t1", who, i, j), level)
      end
    end
  end
  return rows
end

-- timeline.extent(rows) -> the earliest t0 and the latest t1 over every span (0, 0 when none).
function timeline.extent(rows)
  check_rows(rows, "timeline.extent", 3)
  local lo, hi = math.huge, -math.huge
  for _, r in ipairs(rows) do
    for _, s in ipairs(r.spans) do lo, hi = math.min(lo, s.t0), math.max(hi, s.t1) end
  end
  if lo > hi then return 0, 0 end
  return lo, hi
end

-- timeline.busy(spans) -> the length of the union of the spans (overlaps counted once).
function timeline.busy(spans)
  check_rows({{spans = spans}}, "timeline.busy", 3)
  local list = {}
  for i, s in ipairs(spans) do list[i] = s end
  table.sort(list, function(a, b) return a.t0 < b.t0 end)
  local total, cur0, cur1 = 0, nil, nil
  for _, s in ipairs(list) do
    if cur1 and s.t0 <= cur1 then
      cur1 = math.max(cur1, s.t1)
    else
      if cur1 then total = total + (cur1 - cur0) end
      cur0, cur1 = s.t0, s.t1
    end
  end
  if cur1 then total = total + (cur1 - cur0) end
  return total
end

-- timeline.concurrency(rows) -> the summed busy time of the rows over the busy time of
-- all their spans together: 1 when the rows took turns, up to #rows when they all ran
-- side by side the whole time.
function timeline.concurrency(rows)
  check_rows(rows, "timeline.concurrency", 3)
  local all, sum = {}, 0
  for _, r in ipairs(rows) do
    sum = sum + timeline.busy(r.spans)
    for _, s in ipairs(r.spans) do all[#all + 1] = s end
  end
  local union = timeline.busy(all)
  return union > 0 and sum / union or 1
end

-- The kinds in order of first appearance, each with a colour and a text mark.
local function kinds_of(rows)
  local kinds, index = {}, {}
  for _, r in ipairs(rows) do
    for _, s in ipairs(r.spans) do
      local k = tostring(s.kind or "work")
      if not index[k] then
        kinds[#kinds + 1] = k
        index[k] = #kinds
      end
    end
  end
  return kinds, index
end

-- timeline.text(rows [, opts]) -> one line per row, `opts.width` (64) characters for the
-- time from the first span to the last, each filled with its kind's mark, then a legend;
-- printed unless opts.print == false.
function timeline.text(rows, opts)
  opts = util.options(opts, "timeline.text")
  check_rows(rows, "timeline.text", 3)
  local width = util.size(opts.width, "opts.width", "timeline.text", 64, 10000)
  local lo, hi = timeline.extent(rows)
  local span = hi > lo and hi - lo or 1
  local kinds, index = kinds_of(rows)
  local namew = 0
  for _, r in ipairs(rows) do namew = math.max(namew, util.width(tostring(r.name or ""))) end
  local out = {}
  if opts.title then out[#out + 1] = opts.title end
  for _, r in ipairs(rows) do
    local cells = {}
    for i = 1, width do cells[i] = "." end
    for _, s in ipairs(r.spans) do
      local a = math.floor((s.t0 - lo) / span * width) + 1
      local b = math.max(a, math.ceil((s.t1 - lo) / span * width))
      for i = math.max(1, a), math.min(width, b) do cells[i] = MARKS[(index[tostring(s.kind or "work")] - 1) % #MARKS + 1] end
    end
    out[#out + 1] = "  " .. util.pad_right(tostring(r.name or ""), namew) .. " |" .. table.concat(cells) .. "|"
  end
  local legend = {}
  for i, k in ipairs(kinds) do legend[i] = MARKS[(i - 1) % #MARKS + 1] .. " " .. k end
  -- util.human: the library's one number text (4 digits, 1e+308 never 300 digits).
  out[#out + 1] = string.format("  %s %s, %s ms from left to right", string.rep(" ", namew),
                                table.concat(legend, ", "), util.human(span + 0.0))
  local text = table.concat(out, "\n")
  if opts.print ~= false then print(text) end
  return text
end

-- timeline.svg(rows, path [, opts]) -> path: one lane per row, a bar per span coloured by
-- its kind (with its kind and times as a tooltip), a time axis in ms from the first span,
-- a legend; opts.title, opts.width (pixels).
function timeline.svg(rows, path, opts)
  opts = util.options(opts, "timeline.svg")
  check_rows(rows, "timeline.svg", 3)
  if type(path) ~= "string" then error("timeline.svg: path is " .. util.kind(path) .. ", expected a string", 2) end
  local lo, hi = timeline.extent(rows)
  local span = hi > lo and hi - lo or 1
  local kinds, index = kinds_of(rows)
  local longest = 0
  for _, r in ipairs(rows) do longest = math.max(longest, util.width(tostring(r.name or ""))) end
  local left, lane = math.max(80, 7 * longest + 16), 28
  local width = util.size(opts.width, "opts.width", "timeline.svg", 900, 100000)
  local b = {left = left, right = width - 30, top = opts.title and 60 or 36}
  b.bottom = b.top + lane * math.max(1, #rows)
  local height = b.bottom + 56
  local function px(t) return b.left + (t - lo) / span * (b.right - b.left) end
  local d, add = svg.doc(width, height)
  svg.labels(add, {title = opts.title, xlabel = "ms"}, width, height, b.left, b.top, b.right - b.left,
             b.bottom - b.top)
  local ticks, step = util.ticks(0, span, 8)
  for _, t in ipairs(ticks) do
    local x = num(px(lo + t))
    add('<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#e5e5e5"/>', x, b.top, x, b.bottom)
    add('<text x="%s" y="%d" text-anchor="middle">%s</text>', x, b.bottom + 18, util.xml(util.tick_label(t, step)))
  end
  for i, r in ipairs(rows) do
    local y = b.top + (i - 1) * lane
    add('<text x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>', b.left - 8, num(y + lane / 2),
        util.xml(tostring(r.name or "")))
    for _, s in ipairs(r.spans) do
      local k = tostring(s.kind or "work")
      add('<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s: %s .. %s ms</title></rect>',
          num(px(s.t0)), num(y + 4), num(math.max(0.5, px(s.t1) - px(s.t0))), num(lane - 8),
          COLORS[(index[k] - 1) % #COLORS + 1], util.xml(k), util.human(s.t0 - lo + 0.0), util.human(s.t1 - lo + 0.0))
    end
  end
  local x = b.left
  for i, k in ipairs(kinds) do  -- the legend, above the lanes
    add('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>', x, b.top - 22, COLORS[(i - 1) % #COLORS + 1])
    add('<text x="%d" y="%d">%s</text>', x + 16, b.top - 12, util.xml(k))
    x = x + 16 + 8 * util.width(k) + 16
  end
  add('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>', b.left, b.top, b.left, b.bottom)
  util.write_file(path, svg.finish(d), "timeline.svg", 3)
  return path
end

return util.api("timeline", timeline)
