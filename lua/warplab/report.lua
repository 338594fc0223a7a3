-- warplab/report.lua: what experiments show and keep: aligned text tables, terminal and
-- SVG heatmaps, SVG line and bar charts, and results saved as .csv or .json by extension.
-- Depends on: warplab.util, .json, .heatmap, .svg, .plot, .bars, .page (all pure Lua); the
-- host's optional globals `warplab_tty` (stdout is a terminal) and `warplab.mkdir`.
local util = require "warplab.util"
local json = require "warplab.json"
local heatmap = require "warplab.heatmap"
local svg = require "warplab.svg"
local plot = require "warplab.plot"
local bars = require "warplab.bars"
local page = require "warplab.page"

local report = {}

-- Colour on when stdout is a terminal (the host says so: pure Lua cannot tell) and the
-- user has not set NO_COLOR (https://no-color.org: any non-empty value). The host may
-- overwrite report.color, e.g. for --no-color.
local no_color = os.getenv("NO_COLOR")
report.color = (no_color == nil or no_color == "") and rawget(_G, "warplab_tty") == true

-- Columns as {name = header text, key = field name, index = position}: a keyed row is
-- read by name, an array row by position. Without opts.columns: positions 1..n for
-- array rows (no header), the sorted union of keys for keyed rows.
local function columns_of(rows, opts, who, level)
  local cols = {}
  if opts.columns ~= nil then
    if type(opts.columns) ~= "table" then
      error(who .. ": opts.columns is " .. util.kind(opts.columns)
            .. ", expected a list of names", level)
    end
    for i, name in ipairs(opts.columns) do
      cols[i] = {name = tostring(name), key = name, index = i}
    end
    return cols, true
  end
  -- The first row decides: an array row means positional columns, as many as the
  -- longest row has.
  local first = rows[1]
  if type(first) == "table" and #first > 0 then
    local n = 0
    for _, row in ipairs(rows) do
      if type(row) == "table" and #row > n then n = #row end
    end
    for i = 1, n do cols[i] = {name = tostring(i), index = i} end
    return cols, false
  end
  local seen, names = {}, {}
  for _, row in ipairs(rows) do
    if type(row) == "table" then
      for k in pairs(row) do
        if type(k) == "string" and not seen[k] then seen[k] = true; names[#names + 1] = k end
      end
    end
  end
  -- pairs() order changes from run to run; sorted names keep saved files comparable.
  table.sort(names)
  for i, name in ipairs(names) do cols[i] = {name = name, key = name} end
  return cols, true
end

-- A cell: by name first, then by position, so `columns` serves both kinds of rows.
-- (An explicit test, not `and/or`, so a stored `false` stays false.)
local function value_at(row, col)
  local v
  if col.key ~= nil then v = row[col.key] end
  if v == nil and col.index then v = row[col.index] end
  return v
end

local function check_rows(rows, who, level)
  if type(rows) ~= "table" then
    error(who .. ": rows is " .. util.kind(rows) .. ", expected a list of rows", level)
  end
  for i, row in ipairs(rows) do
    if type(row) ~= "table" then
      error(string.format("%s: row %d is %s, expected a table", who, i, util.kind(row)), level)
    end
  end
end

-- A cell's text: the column's format (a string.format pattern or a function), else
-- util.human for numbers and tostring for the rest; nil is an empty cell.
local function cell_text(v, fmt, col, level)
  if v == nil then return "" end
  if type(fmt) == "function" then return tostring(fmt(v)) end
  if type(fmt) == "string" then
    local ok, s = pcall(string.format, fmt, v)
    if not ok then
      error(string.format("report.table: format '%s' of column '%s' failed on %s: %s", fmt,
                          col.name, tostring(v), s:match("%((.*)%)$") or s), level)
    end
    return s
  end
  if type(v) == "number" then return util.human(v) end
  return tostring(v)
end

-- The table as a run's page shows it (warplab.page): its cells as printed, at most 5000 rows.
local function table_event(text, opts, header, cols, cells, numeric)
  local names, rows = nil, {}
  if header and #cols > 0 then
    names = {}
    for j, col in ipairs(cols) do names[j] = col.name end
  end
  for i = 1, math.min(#cells, 5000) do rows[i] = cells[i] end
  return {kind = "table", title = opts.title ~= nil and tostring(opts.title) or nil, columns = names,
          rows = rows, numeric = numeric, more = #cells - #rows, text = text}
end

-- report.table(rows [, opts]) -> string; prints it unless opts.print == false.
function report.table(rows, opts)
  opts = util.options(opts, "report.table")
  check_rows(rows, "report.table", 3)
  local cols, header = columns_of(rows, opts, "report.table", 3)
  local fmt = opts.format
  local cells, widths, numeric = {}, {}, {}
  for j, col in ipairs(cols) do
    widths[j] = header and util.width(col.name) or 0
    numeric[j] = true
  end
  for i, row in ipairs(rows) do
    cells[i] = {}
    for j, col in ipairs(cols) do
      local v = value_at(row, col)
      local f = (type(fmt) == "table") and (fmt[col.name] or fmt[j]) or fmt
      if type(v) ~= "number" and v ~= nil then numeric[j] = false end
      -- Pattern formats are for numbers ("%.3f" on a label would fail); functions see all.
      if type(v) ~= "number" and type(f) ~= "function" then f = nil end
      local s = cell_text(v, f, col, 3)
      cells[i][j] = s
      widths[j] = math.max(widths[j], util.width(s))
    end
  end
  -- Numbers right-aligned (so digits line up), everything else left; header follows.
  local function line(texts)
    local parts = {}
    for j = 1, #cols do
      local pad = numeric[j] and util.pad_left or util.pad_right
      parts[j] = pad(texts[j] or "", widths[j])
    end
    -- Trailing blanks (a short last text column) are noise in logs and diffs.
    return (table.concat(parts, "  "):gsub("%s+$", ""))
  end
  local out = {}
  if opts.title then out[#out + 1] = tostring(opts.title) end
  if header and #cols > 0 then
    local names, rules = {}, {}
    for j, col in ipairs(cols) do names[j], rules[j] = col.name, string.rep("-", widths[j]) end
    out[#out + 1] = line(names)
    out[#out + 1] = table.concat(rules, "  ")
  end
  for i = 1, #cells do out[#out + 1] = line(cells[i]) end
  if #rows == 0 then out[#out + 1] = "(no rows)" end
  local s = table.concat(out, "\n")
  if opts.print ~= false and not (page.on and page.emit(table_event(s, opts, header, cols, cells, numeric))) then
    print(s)
  end
  return s
end

-- report.heatmap(grid [, opts]) -> string; prints it unless opts.print == false, and
-- writes opts.svg as an SVG heatmap too.
function report.heatmap(grid, opts)
  opts = util.options(opts, "report.heatmap")
  local g = heatmap.prepare(grid, opts, "report.heatmap", 3)
  local color = report.color
  if opts.color ~= nil then color = opts.color end
  local s = heatmap.render(g, opts, color)
  if opts.svg then svg.heatmap(grid, opts.svg, opts, 3) end
  if opts.print ~= false then print(s) end
  return s
end

-- The SVG writers live in warplab.svg and warplab.plot; level 3 (writer -> this ->
-- script) makes their errors point at the script's line. Locals, not tail calls, so
-- this frame stays on the stack for that count.
function report.svg_heatmap(grid, path, opts)
  local p = svg.heatmap(grid, path, opts, 3)
  return p
end

function report.svg_lines(series, path, opts)
  local p = plot.lines(series, path, opts, 3)
  return p
end

function report.svg_bars(list, path, opts)
  local p = bars.write(list, path, opts, 3)
  return p
end

-- report.json(value [, {indent = N}]) -> string.
function report.json(value, opts)
  local s = json.encode(value, opts, 3, "report.json")
  return s
end

-- RFC 4180: a field holding a comma, a quote or a line break is quoted, quotes doubled.
-- Numbers keep full precision (util.repr), so a saved result reads back exactly.
local function csv_field(v)
  if v == nil then return "" end
  local s = (type(v) == "number") and util.repr(v) or tostring(v)
  if s:find('[,"\r\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

-- The CSV text: a header line when the columns have names, then one line per row,
-- LF line ends (spreadsheets and pandas read both LF and CRLF).
local function to_csv(rows, opts)
  check_rows(rows, "report.save", 4)
  local cols, header = columns_of(rows, opts, "report.save", 4)
  local lines = {}
  local function add(values)
    local parts = {}
    for j = 1, #cols do parts[j] = csv_field(values[j]) end
    lines[#lines + 1] = table.concat(parts, ",")
  end
  if header then
    local names = {}
    for j, col in ipairs(cols) do names[j] = col.name end
    add(names)
  end
  for _, row in ipairs(rows) do
    local values = {}
    for j, col in ipairs(cols) do values[j] = value_at(row, col) end
    add(values)
  end
  return table.concat(lines, "\n") .. "\n"
end

-- With opts.columns, rows become objects holding exactly those columns (array rows
-- gain their names); without, the value is written as it is.
local function to_json(rows, opts)
  local value = rows
  if opts.columns ~= nil then
    check_rows(rows, "report.save", 4)
    local cols = columns_of(rows, opts, "report.save", 4)
    value = {}
    for i, row in ipairs(rows) do
      local obj = {}
      for _, col in ipairs(cols) do obj[col.name] = value_at(row, col) end
      value[i] = obj
    end
  end
  local text = json.encode_lines(value, 4, "report.save")
  return text -- not a tail call: the error level counts this frame
end

-- report.save(path, rows [, {columns=}]) -> path. The extension picks the format.
function report.save(path, rows, opts)
  opts = util.options(opts, "report.save")
  if type(path) ~= "string" then
    error("report.save: path is " .. util.kind(path) .. ", expected a string", 2)
  end
  if rows == nil then error("report.save: nothing to save: rows is nil", 2) end
  -- The extension after the last dot of the file name (not of a directory: "a.d/x").
  local ext = (path:match("%.([^./]+)$") or ""):lower()
  local text
  if ext == "csv" then text = to_csv(rows, opts)
  elseif ext == "json" then text = to_json(rows, opts)
  else
    error(string.format("report.save: unknown extension '%s' in '%s' (use .csv or .json)",
                        ext == "" and "(none)" or ("." .. ext), path), 2)
  end
  util.write_file(path, text, "report.save", 3)
  return path
end

return util.api("report", report)
