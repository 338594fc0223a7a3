-- lib_report.lua: warplab.report text output: aligned tables (exact text, number
-- formatting, per-column formats, errors) and terminal heatmaps (ramp, colour, labels).
-- Depends on: warplab.report, warplab.test. Run: warplab run tests/lua/lib_report.lua
-- (or lua5.4 with LUA_PATH="<root>/lua/?.lua;;").
local t = require "warplab.test"
local report = require "warplab.report"

local function line_of_call() return debug.getinfo(2, "l").currentline end

t.case("table: keyed rows, columns in order, numbers right and strings left", function()
  local rows = {{name = "v1", block = 32, ms = 0.241}, {name = "shuffle", block = 1024, ms = 12.5}}
  local s = report.table(rows, {columns = {"name", "block", "ms"}, title = "sweep", print = false})
  t.eq(s, table.concat({
    "sweep",
    "name     block      ms",
    "-------  -----  ------",
    "v1          32  0.2410",
    "shuffle   1024   12.50",
  }, "\n"))
end)

t.case("table: array rows without columns have no header", function()
  local s = report.table({{1, "a"}, {22, "bb"}}, {print = false})
  t.eq(s, " 1  a\n22  bb")
end)

t.case("table: array rows take header names from columns", function()
  local s = report.table({{1, 2.5}, {3, 4.25}}, {columns = {"x", "y"}, print = false})
  t.eq(s, "x      y\n-  -----\n1  2.500\n3  4.250")
end)

t.case("table: keyed rows without columns use sorted keys; missing cells are blank", function()
  local s = report.table({{b = 1, a = "x"}, {a = "yy"}}, {print = false})
  t.eq(s, "a   b\n--  -\nx   1\nyy")
end)

t.case("table: float formatting keeps about four significant digits", function()
  local values = {0.241, 4460.3, 12.5, 3.0, 1e-5, 2.5e10, 0.0, 0 / 0, 1 / 0, -1 / 0, 7, -0.5}
  local rows = {}
  for i, v in ipairs(values) do rows[i] = {v} end
  local s = report.table(rows, {print = false})
  local cells = {}
  for cell in s:gmatch("[^\n]+") do cells[#cells + 1] = cell:match("^%s*(.-)$") end
  t.eq(cells, {"0.2410", "4460", "12.50", "3.000", "1.000e-05", "2.500e+10", "0", "nan",
               "inf", "-inf", "7", "-0.5000"})
end)

t.case("table: per-column formats by name, by position, as a function", function()
  local rows = {{ms = 0.5, n = 3, tag = "a"}}
  local s = report.table(rows, {columns = {"ms", "n", "tag"}, print = false,
                                format = {ms = "%.1f", [2] = "%04d", tag = function(v) return "<" .. v .. ">" end}})
  t.eq(s, " ms     n  tag\n---  ----  ---\n0.5  0003  <a>")
end)

t.case("table: a single format string applies to every number", function()
  local s = report.table({{1.26, "x"}}, {format = "%.1f", print = false})
  t.eq(s, "1.3  x")
end)

t.case("table: a format that does not fit the value names column and value", function()
  local want = "format '%d' of column 'ms' failed on 1.5: number has no integer representation"
  local bad = {format = {ms = "%d"}, print = false}
  local line = line_of_call() + 1
  local msg = t.checkerror(want, function() report.table({{ms = 1.5}}, bad) end)
  t.eq(msg:match("^[^:]*lib_report%.lua:(%d+):"), tostring(line), "error points at the calling line")
end)

t.case("table: columns line up by characters, not bytes (UTF-8)", function()
  local s = report.table({{u = "µs", v = 1}, {u = "ms", v = 22}}, {columns = {"u", "v"}, print = false})
  t.eq(s, "u    v\n--  --\nµs   1\nms  22")
end)

t.case("table: booleans are shown, false included", function()
  t.eq(report.table({{ok = false}, {ok = true}}, {columns = {"ok"}, print = false}),
       "ok\n-----\nfalse\ntrue")
end)

t.case("table: no rows still shows the header", function()
  t.eq(report.table({}, {columns = {"a", "bb"}, print = false}), "a  bb\n-  --\n(no rows)")
end)

t.case("table: prints what it returns unless print = false", function()
  local printed = {}
  local saved = print
  print = function(s) printed[#printed + 1] = s end -- restored below
  local ok, s = pcall(report.table, {{1}})
  local _, s2 = pcall(report.table, {{2}}, {print = false})
  print = saved
  assert(ok, s)
  t.eq(printed, {s})
  t.eq(s2, "2")
end)

t.case("table: bad input is named", function()
  t.checkerror("report.table: rows is a string, expected a list of rows", report.table, "x")
  t.checkerror("report.table: row 2 is an integer, expected a table", report.table, {{1}, 5})
  t.checkerror("report.table: opts.columns is a string", report.table, {{1}}, {columns = "a"})
end)

-- Values 0..5 over six bins of the ramp " .:-=+*#%@": 0 -> ' ', 1 -> ':', 2 -> '=',
-- 3 -> '*', 4 -> '%', 5 -> '@' (bin k covers [k/10, (k+1)/10), the top goes last).
t.case("heatmap: characters-only rendering with the ramp and a legend", function()
  local s = report.heatmap({{0, 1, 2}, {3, 4, 5}}, {title = "ramp", color = false, print = false})
  t.eq(s, "ramp\n  ::==\n**%%@@\n0 [ .:-=+*#%@] 5")
end)

t.case("heatmap: legend label, missing cells and legend = false", function()
  local s = report.heatmap({{1, nil, 3}, {0 / 0, 2, 3}}, {legend = "cycles", color = false, print = false})
  t.eq(s, "  ??@@\n??++@@\n1 [ .:-=+*#%@] 3  cycles  ?? = no data")
  t.eq(report.heatmap({{1, 2}}, {legend = false, color = false, print = false}), "  @@")
end)

t.case("heatmap: opts.min and opts.max pin the scale; values outside are clamped", function()
  local s = report.heatmap({{0, 5, 10, 20}}, {min = 0, max = 10, color = false, print = false})
  t.eq(s, "  ++@@@@\n0 [ .:-=+*#%@] 10")
end)

t.case("heatmap: equal values sit mid-scale", function()
  t.eq(report.heatmap({{7, 7}}, {legend = false, color = false, print = false}), "++++")
end)

t.case("heatmap: labels = true numbers rows and columns from 0, skipping crowded ones", function()
  local row = {}
  for c = 1, 12 do row[c] = c end
  local s = report.heatmap({row, row}, {labels = true, legend = false, color = false, print = false})
  local lines = {}
  for l in (s .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = l end
  t.eq(lines[1], "  0 1 2 3 4 5 6 7 8 9 10")
  t.eq(lines[2]:sub(1, 2), "0 ")
  t.eq(lines[3]:sub(1, 2), "1 ")
end)

t.case("heatmap: named labels", function()
  local s = report.heatmap({{1, 2}, {3, 4}}, {labels = {rows = {"w0", "w1"}, cols = {"a", "b"}},
                                              legend = false, color = false, print = false})
  t.eq(s, "   a b\nw0   --\nw1 **@@")
end)

t.case("heatmap: flat data reshaped with cols", function()
  local s = report.heatmap({0, 5, 5, 0}, {cols = 2, legend = false, color = false, print = false})
  t.eq(s, "  @@\n@@  ")
  t.checkerror("report.heatmap: flat data needs opts.cols", report.heatmap, {1, 2, 3})
end)

t.case("heatmap: colour mode paints 256-colour backgrounds and resets each row", function()
  local s = report.heatmap({{0, 1}, {2, 3}}, {color = true, legend = false, print = false})
  local rows = 0
  for line in s:gmatch("[^\n]+") do
    rows = rows + 1
    assert(line:find("^\27%[48;5;%d+m  \27%[48;5;%d+m  \27%[0m$"), "row " .. rows .. ": " .. line)
  end
  t.eq(rows, 2)
  -- lowest and highest values get the ends of the viridis ramp (dark purple, yellow)
  t.eq(s:match("^\27%[48;5;(%d+)m"), "53")
  t.eq(s:match("\27%[48;5;(%d+)m  \27%[0m$"), "220")
  assert(not report.heatmap({{1}}, {color = false, print = false}):find("\27", 1, true))
end)

t.case("heatmap: report.color follows warplab_tty and NO_COLOR", function()
  local env = os.getenv("NO_COLOR")
  local allowed = env == nil or env == ""
  local saved = rawget(_G, "warplab_tty")
  for _, tty in ipairs({true, false}) do
    rawset(_G, "warplab_tty", tty)
    package.loaded["warplab.report"] = nil
    local fresh = require "warplab.report"
    t.eq(fresh.color, tty and allowed, "warplab_tty = " .. tostring(tty))
  end
  rawset(_G, "warplab_tty", saved)
  package.loaded["warplab.report"] = report
end)

t.case("heatmap: bad cells are named by position", function()
  t.checkerror("report.heatmap: cell [2][1] is a string, expected a number", report.heatmap,
               {{1}, {"x"}}, {print = false})
  t.checkerror("report.heatmap: data is nil, expected a table of rows", report.heatmap, nil)
  t.checkerror("report.heatmap: row 2 is a boolean, expected a table", report.heatmap, {{1}, true})
  t.checkerror("report.heatmap: opts.max is a string, expected a number", report.heatmap, {{1}},
               {max = "9"})
end)

t.run{exit = true}
