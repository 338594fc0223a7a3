-- lib_misuse.lua: a public function of the library given what it cannot use says so at
-- the script's line, naming itself, in one line; never from a line inside the library
-- ("svg.lua:24: bad argument #2 to 'format'", "json.lua:66: attempt to mul a 'string'"),
-- never by running without end. The sizes and options the SVG writers, json.encode and
-- the option tables take have their own sentences; every other misuse of every public
-- function (a sweep of wrong kinds and sizes) is at least named and placed. A callback's
-- own error passes through as it was.
-- Depends on: every public warplab module, warplab.test; writes files under /tmp.
local t = require "warplab.test"
local THIS = debug.getinfo(1, "S").short_src

local dir = os.tmpname()
os.remove(dir)
local function path(name) return dir .. "/" .. name end

-- The one line every misuse is made from: what it raises must name this line.
local function call(f, ...) local r = table.pack(f(...)) return r end
local LINE = debug.getinfo(call, "S").linedefined
local AT = THIS .. ":" .. LINE .. ": "

-- f(...) must fail within a budget of instructions with a message at AT naming `who`
-- and holding `text`; returns the message.
local function misuse(who, text, f, ...)
  debug.sethook(function() error("still running after 1e7 instructions", 2) end, "", 1e7)
  local ok, err = pcall(call, f, ...)
  debug.sethook()
  if ok then error(string.format("%s: expected an error holding %q, but the call succeeded", who, text), 2) end
  err = tostring(err)
  if err:sub(1, #AT) ~= AT then error(who .. ": raised away from the script's line: " .. err, 2) end
  if err:sub(#AT + 1, #AT + #who + 2) ~= who .. ": " then error(who .. ": does not name itself: " .. err, 2) end
  if not err:find(text, 1, true) then error(string.format("%s: no %q in: %s", who, text, err), 2) end
  if err:find("\n") then error(who .. ": more than one line: " .. err, 2) end
  return err
end

local report = require "warplab.report"
local json = require "warplab.json"
local memory = require "warplab.memory"

t.case("sizes and options of the SVG writers: their own sentences", function()
  local lines = {{name = "a", y = {1, 2}}}
  misuse("report.svg_lines", "opts.width must be a whole number from 1 to 100000, got 10.5",
         report.svg_lines, lines, path("l.svg"), {width = 10.5})
  misuse("report.svg_lines", "opts.height must be a whole number from 1 to 100000, got 1e+308",
         report.svg_lines, lines, path("l.svg"), {height = 1e308})
  misuse("report.svg_lines", "opts.width must be a whole number from 1 to 100000, got a string",
         report.svg_lines, lines, path("l.svg"), {width = "wide"})
  misuse("report.svg_bars", "opts.width must be a whole number from 1 to 100000, got -5",
         report.svg_bars, {{label = "a", value = 1}}, path("b.svg"), {width = -5})
  misuse("report.svg_heatmap", "opts.cell must be a whole number from 1 to 1000, got 1e+308",
         report.svg_heatmap, {{1, 2}}, path("h.svg"), {cell = 1e308})
  misuse("report.svg_heatmap", "opts.cell must be a whole number from 1 to 1000, got 2.5", report.svg_heatmap,
         {{1, 2}}, path("h.svg"), {cell = 2.5})
  misuse("report.svg_lines", "the options must be a table", report.svg_lines, lines, path("l.svg"), 720)
  local timeline = require "warplab.timeline"
  misuse("timeline.text", "opts.width must be a whole number from 1 to 10000, got 0.5", timeline.text,
         {{name = "r", spans = {{kind = "k", t0 = 0, t1 = 1}}}}, {width = 0.5, print = false})
  misuse("trace.svg", "opts.cell must be a whole number from 1 to 1000", require("warplab.trace").svg, {},
         path("t.svg"), {cell = 2.5})
  -- A size written as a float with a whole value is that size.
  local p = call(report.svg_heatmap, {{1, 2}}, path("h.svg"), {cell = 20.0})[1]
  local f = assert(io.open(p, "rb"))
  assert(f:read("a"):find('^<svg [^>]*width="%d+" height="%d+"'))
  f:close()
end)

t.case("json.encode's indent and options, option tables everywhere", function()
  misuse("json.encode", "opts.indent must be a whole number of spaces from 0 to 16, got a string",
         json.encode, {1, 2}, {indent = "two"})
  misuse("json.encode", "opts.indent must be a whole number of spaces from 0 to 16, got 2.5", json.encode, {},
         {indent = 2.5})
  misuse("json.encode", "the options must be a table, like {title = \"x\"}, got an integer", json.encode, {}, 2)
  misuse("report.json", "opts.indent must be a whole number", report.json, {}, {indent = {}})
  misuse("report.table", "the options must be a table", report.table, {{1}}, "wide")
  misuse("report.heatmap", "the options must be a table", report.heatmap, {{1}}, true)
  misuse("report.save", "the options must be a table", report.save, path("r.csv"), {{1}}, 3)
  misuse("check.new", "the options must be a table", require("warplab.check").new, "x", 2.5)
  misuse("progress.new", "the options must be a table", require("warplab.progress").new, 3, "x", print)
  t.eq(call(json.encode, {a = 1}, {indent = 0})[1], '{\n"a": 1\n}', "indent 0: an entry a line")
end)

t.case("sizes that ran without end or wrapped around", function()
  misuse("memory.pow2_at_least", "x must be a number up to 2^62, got 1e+308", memory.pow2_at_least, 1e308)
  misuse("memory.pow2_at_least", "got nan", memory.pow2_at_least, 0 / 0)
  misuse("memory.sectors", "ws must be an integer from 1 to 1024, got 9223372036854775807", memory.sectors, 1,
         math.maxinteger)
  misuse("memory.bank_ways", "ws must be an integer from 1 to 1024", memory.bank_ways, 1, 1 << 40)
  local sizes = call(memory.sizes, 1, math.maxinteger, 2)[1]
  t.eq(#sizes, 63, "1, 2, 4, ... 2^62, and no wrap past 2^63")
  t.eq(sizes[63], 1 << 62)
  t.eq(call(memory.pow2_at_least, 1000)[1], 1024)
end)

t.case("misuse nobody checked for: named and placed; the library's own sentences too", function()
  local wm = require "warplab.warpmodel"
  misuse("warpmodel.ballot", "cannot use these arguments (attempt to index a nil value", wm.ballot, nil)
  misuse("warpmodel.lowest", "cannot use these arguments (", wm.lowest, "x")
  misuse("trace.popcount", "cannot use these arguments (", require("warplab.trace").popcount, {})
  misuse("stats.mean", "the sample is empty", require("warplab.stats").mean, {})
  misuse("params.dims", "is not a size", require("warplab.params").dims, "16xa")
  misuse("check:near", "rel_tol must be a number", require("warplab.check").new("n", {out = print}).near,
         require("warplab.check").new("n", {out = function() end}), 1, 1, "tight")
end)

t.case("warplab.litmus and the sync helpers: their own sentences", function()
  local litmus, sync = require "warplab.litmus", require "warplab.sync"
  local mp = litmus.find("MP")
  misuse("litmus.forbidden", "expected a test of litmus.TESTS (litmus.find(\"MP\")), got nil", litmus.forbidden, nil, 0, 0)
  misuse("litmus.forbidden", "got a string", litmus.forbidden, "MP", 0, 0)
  misuse("litmus.forbidden", "the variant is an integer from 0 to 6 (litmus.VARIANTS), got 7", litmus.forbidden, mp, 7, 0)
  misuse("litmus.forbidden", "got 1.5", litmus.forbidden, mp, 1.5, 0)
  misuse("litmus.forbidden", "got nan", litmus.forbidden, mp, 0 / 0, 0)
  misuse("litmus.forbidden", "the placement is 0 (2 blocks) or 1 (2 warps), got 2", litmus.forbidden, mp, 0, 2)
  misuse("litmus.forbidden", "the placement is 0 (2 blocks) or 1 (2 warps), got nil", litmus.forbidden, mp, 0)
  misuse("litmus.outcome_text", "the outcome is an integer from 0 to 3 for MP, got 4", litmus.outcome_text, mp, 4)
  misuse("litmus.outcome_text", "got -1", litmus.outcome_text, mp, -1)
  misuse("litmus.outcome_text", "got 0.5", litmus.outcome_text, mp, 0.5)
  misuse("litmus.outcome_text", "got inf", litmus.outcome_text, mp, math.huge)
  misuse("litmus.find", "the name is a string (\"MP\", \"SB\", ...), got nil", litmus.find, nil)
  misuse("litmus.find", "got a table", litmus.find, {})
  t.eq(call(litmus.find, "iriw")[1].name, "IRIW")
  t.eq(call(litmus.outcome_text, litmus.find("IRIW"), 15)[1], "r0=1 r1=1 r2=1 r3=1")
  misuse("sync.needs", "expected a device (cuda.device(), or a table with cc = \"9.0\"), got nil", sync.needs, nil, 9, 0, "x")
  misuse("sync.needs", "got cc = \"nine\"", sync.needs, {cc = "nine"}, 9, 0, "x")
  misuse("sync.needs", "got one whose cc is an integer", sync.needs, {cc = 9}, 9, 0, "x")
  misuse("sync.needs", "got one whose cc is nil", sync.needs, {}, 9, 0, "x")
  misuse("sync.needs", "major and minor are the compute capability's integers (9, 0), got a float and an integer",
         sync.needs, {cc = "9.0"}, 9.5, 0, "x")
  misuse("sync.needs", "what is the feature's name, got nil", sync.needs, {cc = "9.0"}, 9, 0)
  misuse("sync.loop", "cfg is a launch table {grid =, block =}, got nil", sync.loop, print, nil, {}, 1, {})
  misuse("sync.loop", "rounds is an integer >= 1, got 0", sync.loop, print, {grid = 1, block = 1}, {}, 0, {})
  misuse("sync.loop", "rounds is an integer >= 1, got nan", sync.loop, print, {grid = 1, block = 1}, {}, 0 / 0, {})
  -- A stand-in kernel and output: too short an output for the grid is said, not indexed past.
  local out = {zero = function() end, get = function() return {1, 2} end}
  misuse("sync.loop", "out holds 2 values, the 4 blocks record 8", sync.loop, function() end, {grid = 4, block = 1},
         {}, 1, out)
  local ns, cyc = table.unpack(call(sync.loop, function() end, {grid = {1}, block = 1}, {}, 2, out))
  t.eq({ns, cyc}, {0.5, 1.0})
end)

t.case("a callback's own error passes through as it was", function()
  local function boom() error("mine") end
  local line = debug.getinfo(boom, "S").linedefined
  local ok, err = pcall(call, report.table, {{1}}, {format = {[1] = boom}, print = false})
  assert(not ok)
  t.eq(err, THIS .. ":" .. line .. ": mine", "the callback's line and words")
  local obj = {code = 1}
  ok, err = pcall(call, require("warplab.experiment").group, {1}, function() error(obj) end)
  assert(not ok and err == obj, "an error object is the same object")
end)

-- Every public function with wrong kinds and sizes: whatever it raises is at the script's
-- line and names it, within a budget. (Output the calls print is dropped.)
t.case("a sweep of every public function with wrong arguments", function()
  local bad = {n = 10, nil, "x", 2.5, -1, {}, {"x"}, true, 1e308, 0 / 0, math.maxinteger}
  bad[2] = path("sweep")
  local mods = {"report", "stats", "params", "check", "trace", "warpmodel", "experiment", "json", "memory",
                "sync", "timeline", "counters", "progress", "reduce", "bandwidth", "litmus"}
  local real_print, real_write = print, io.write
  print, io.write = function() end, function() end
  local calls, wrong = 0, {}
  local function try(name, f, ...)
    calls = calls + 1
    debug.sethook(function() error("still running after 1e7 instructions", 2) end, "", 1e7)
    local ok, err = pcall(call, f, ...)
    debug.sethook()
    if ok or type(err) ~= "string" then return end
    -- Named by the function called or by the one it handed the value to (trace.buffer's
    -- capacity is trace.header's).
    if err:sub(1, #AT) ~= AT or not err:find("^[%w_]+[.:][%w_]+: ", #AT + 1) or err:find("still running") then
      if #wrong < 10 then wrong[#wrong + 1] = name .. ": " .. err end
    end
  end
  for _, m in ipairs(mods) do
    local M = require("warplab." .. m)
    for k, f in pairs(M) do
      if type(f) == "function" then
        local name = m .. "." .. k
        for i = 1, bad.n do try(name, f, bad[i]) end
        for i = 1, bad.n do for j = 1, bad.n do try(name, f, bad[i], bad[j]) end end
      end
    end
  end
  print, io.write = real_print, real_write
  t.eq(wrong, {}, "misuse raised away from the script's line, unnamed, or without end (" .. calls .. " calls)")
end)

t.case("cleanup", function()
  os.execute("rm -rf '" .. dir .. "'")
end)

t.run{exit = true}
