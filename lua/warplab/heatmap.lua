-- warplab/heatmap.lua: terminal heatmaps (internal; scripts call report.heatmap).
-- Turns a 2-D grid (or a flat array plus `cols`) into rows of 2-character cells:
-- ANSI 256-colour backgrounds when colour is on, the ramp " .:-=+*#%@" otherwise. A cell
-- that is `false` is excluded ("cannot launch": opts.excluded names it), shown apart from
-- every value and from a missing cell.
-- Depends on: warplab.util (viridis ramp, xterm colours, number text).
local util = require "warplab.util"

local heatmap = {}

heatmap.RAMP = " .:-=+*#%@"
local MISSING = "??"
heatmap.EXCLUDED = "//"

-- The colour ramp: 20 viridis samples mapped to the xterm cube (neighbours may repeat).
-- 256-colour codes rather than 24-bit ones: every terminal emulator in use has them.
local COLORS = {}
for i = 1, 20 do COLORS[i] = util.xterm256(util.viridis((i - 1) / 19)) end

-- Largest positive integer key (a grid row may have holes, so # is unreliable).
local function max_index(t)
  local n = 0
  for k in pairs(t) do
    if math.type(k) == "integer" and k > n then n = k end
  end
  return n
end

-- Validate and normalise `data` into {cells = {{...}}, nrows, ncols, lo, hi}. Missing
-- cells (nil, NaN, +-inf) stay nil and do not count toward the scale. Errors start with
-- `who` and are raised at `level`, as error() counts from here.
function heatmap.prepare(data, opts, who, level)
  if type(data) ~= "table" then
    error(string.format("%s: data is %s, expected a table of rows", who, util.kind(data)), level)
  end
  local rows, first = data, nil
  for i = 1, max_index(data) do
    if data[i] ~= nil then first = data[i]; break end
  end
  if type(first) == "number" then
    -- A flat array (e.g. one value per thread): reshape row-major with opts.cols.
    local cols = opts.cols
    if math.type(cols) ~= "integer" or cols < 1 then
      error(who .. ": flat data needs opts.cols (cells per row), a positive integer", level)
    end
    rows = {}
    for i = 1, max_index(data) do
      local r, c = (i - 1) // cols + 1, (i - 1) % cols + 1
      rows[r] = rows[r] or {}
      rows[r][c] = data[i]
    end
  end
  local g = {cells = {}, nrows = max_index(rows), ncols = 0}
  local lo, hi = math.huge, -math.huge
  for r = 1, g.nrows do
    local row = rows[r]
    if row ~= nil and type(row) ~= "table" then
      error(string.format("%s: row %d is %s, expected a table", who, r, util.kind(row)), level)
    end
    local out = {}
    for c = 1, row and max_index(row) or 0 do
      local v = row[c]
      if v ~= nil and v ~= false and type(v) ~= "number" then
        error(string.format("%s: cell [%d][%d] is %s, expected a number (or false: excluded)", who, r, c,
                            util.kind(v)), level)
      end
      if v == false then
        out[c] = false -- excluded: no value, not on the scale
        g.any_excluded = true
      elseif v and v == v and v ~= math.huge and v ~= -math.huge then
        out[c] = v
        if v < lo then lo = v end
        if v > hi then hi = v end
      end
      if c > g.ncols then g.ncols = c end
    end
    g.cells[r] = out
  end
  -- opts.min/max pin the scale, so maps of several runs share one colour meaning.
  for _, k in ipairs({"min", "max"}) do
    if opts[k] ~= nil and type(opts[k]) ~= "number" then
      error(string.format("%s: opts.%s is %s, expected a number", who, k, util.kind(opts[k])),
            level)
    end
  end
  if opts.excluded ~= nil and type(opts.excluded) ~= "string" then
    error(string.format("%s: opts.excluded is %s, expected a string (what a false cell means)", who,
                        util.kind(opts.excluded)), level)
  end
  g.lo = opts.min or ((lo <= hi) and lo or 0)
  g.hi = opts.max or ((lo <= hi) and hi or 0)
  return g
end

-- What an excluded (false) cell means, for legends and tooltips.
function heatmap.excluded_label(opts) return opts.excluded or "excluded" end

-- Position of v on the scale, 0..1 (0.5 when all values are equal).
function heatmap.unit(g, v)
  if g.hi == g.lo then return 0.5 end
  local t = (v - g.lo) / (g.hi - g.lo)
  if t < 0 then return 0 elseif t > 1 then return 1 end
  return t
end

-- Equal-width bins: bin k of n covers [k/n, (k+1)/n), the top value falls in the last.
local function bin(t, n)
  return math.min(n - 1, math.floor(t * n)) + 1
end

-- One cell, two characters wide so cells come out roughly square in a terminal.
-- "\27[48;5;Nm" sets background colour N of the 256-colour palette; the reset before a
-- missing cell keeps "??" on the terminal's own background.
local function cell(g, v, color)
  if v == nil then return color and ("\27[0m" .. MISSING) or MISSING end
  if v == false then return color and ("\27[0m" .. heatmap.EXCLUDED) or heatmap.EXCLUDED end
  local t = heatmap.unit(g, v)
  if color then return "\27[48;5;" .. COLORS[bin(t, #COLORS)] .. "m  " end
  local ch = heatmap.RAMP:sub(bin(t, #heatmap.RAMP), bin(t, #heatmap.RAMP))
  return ch .. ch
end

-- Row and column labels: opts.labels = true numbers them from opts.origin (default 0,
-- as GPU threads, lanes and blocks are numbered); {rows = {...}, cols = {...}} names them.
function heatmap.labels(g, opts)
  local spec = opts.labels
  if not spec then return nil, nil end
  local origin = opts.origin or 0
  local function make(given, n)
    local out = {}
    for i = 1, n do
      local v
      if spec == true then v = i - 1 + origin else v = given and given[i] end
      out[i] = (v ~= nil) and tostring(v) or ""
    end
    return out
  end
  local rl = (spec == true or spec.rows) and make(spec ~= true and spec.rows, g.nrows) or nil
  local cl = (spec == true or spec.cols) and make(spec ~= true and spec.cols, g.ncols) or nil
  return rl, cl
end

-- Column labels above the cells, each placed only where it does not run into the
-- previous one (so 0..31 shows every second or third index, never a smear of digits).
local function column_header(labels, indent)
  local line, last_end = string.rep(" ", indent), indent - 2
  for c, text in ipairs(labels) do
    local pos = indent + (c - 1) * 2
    if text ~= "" and pos > last_end + 1 then
      line = line .. string.rep(" ", pos - util.width(line)) .. text
      last_end = pos + util.width(text) - 1
    end
  end
  return line
end

-- The legend line: low value, the ramp, high value, the optional label.
local function legend(g, opts, color, any_missing)
  local strip
  if color then
    local parts = {}
    for i = 1, #COLORS, 2 do parts[#parts + 1] = "\27[48;5;" .. COLORS[i] .. "m  " end
    strip = table.concat(parts) .. "\27[0m"
  else
    strip = "[" .. heatmap.RAMP .. "]"
  end
  local line = util.human(g.lo) .. " " .. strip .. " " .. util.human(g.hi)
  if type(opts.legend) == "string" then line = line .. "  " .. opts.legend end
  if any_missing then line = line .. "  " .. MISSING .. " = no data" end
  if g.any_excluded then line = line .. "  " .. heatmap.EXCLUDED .. " = " .. heatmap.excluded_label(opts) end
  return line
end

-- Render the prepared grid; returns the text without a trailing newline.
function heatmap.render(g, opts, color)
  local out = {}
  if opts.title then out[#out + 1] = tostring(opts.title) end
  local row_labels, col_labels = heatmap.labels(g, opts)
  local lw = 0
  for _, s in ipairs(row_labels or {}) do lw = math.max(lw, util.width(s)) end
  local indent = row_labels and (lw + 1) or 0
  if col_labels then out[#out + 1] = column_header(col_labels, indent) end
  local any_missing = false
  for r = 1, g.nrows do
    local parts = {row_labels and (util.pad_left(row_labels[r], lw) .. " ") or ""}
    for c = 1, g.ncols do
      local v = g.cells[r][c]
      if v == nil then any_missing = true end
      parts[#parts + 1] = cell(g, v, color)
    end
    if color then parts[#parts + 1] = "\27[0m" end -- so the colour does not bleed on
    out[#out + 1] = table.concat(parts)
  end
  if g.nrows == 0 or g.ncols == 0 then out[#out + 1] = "(no data)"
  elseif opts.legend ~= false then out[#out + 1] = legend(g, opts, color, any_missing) end
  return table.concat(out, "\n")
end

return util.internal(heatmap)
