-- lib_globals.lua: every warplab.* module loads without the C++ `cuda` module, leaks no
-- global, and returns its module table.
-- Depends on: warplab.test and all of lua/warplab.
local t = require "warplab.test"

local MODULES = {"util", "json", "heatmap", "svg", "plot", "report", "stats", "params",
                 "check", "progress", "test", "trace", "trace_svg", "warpmodel", "experiment",
                 "bars", "reduce", "bandwidth"}

t.case("loading every module defines no global", function()
  local before = {}
  for k in pairs(_G) do before[k] = true end
  for _, m in ipairs(MODULES) do
    package.loaded["warplab." .. m] = nil
  end
  for _, m in ipairs(MODULES) do
    local mod = require("warplab." .. m)
    t.eq(type(mod), "table", m)
  end
  local leaked = {}
  for k in pairs(_G) do
    if not before[k] then leaked[#leaked + 1] = tostring(k) end
  end
  table.sort(leaked)
  t.eq(leaked, {})
end)

t.case("no module needs the cuda global", function()
  local saved = rawget(_G, "cuda")
  rawset(_G, "cuda", nil)
  local ok, err = pcall(function()
    for _, m in ipairs(MODULES) do
      package.loaded["warplab." .. m] = nil
      require("warplab." .. m)
    end
  end)
  rawset(_G, "cuda", saved)
  assert(ok, err)
end)

t.case("using the modules writes no global either", function()
  local before = {}
  for k in pairs(_G) do before[k] = true end
  local report = require "warplab.report"
  local stats = require "warplab.stats"
  report.table({{1, 2.5}}, {print = false})
  report.heatmap({{1, 2}}, {print = false})
  report.json({a = {1}})
  stats.summary({1, 2, 3})
  local leaked = {}
  for k in pairs(_G) do
    if not before[k] then leaked[#leaked + 1] = tostring(k) end
  end
  t.eq(leaked, {})
end)

t.run{exit = true}
