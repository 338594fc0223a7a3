-- lib_save.lua: report.save: CSV with RFC 4180 quoting and full-precision numbers, JSON
-- one row per line, directories created (through the host's warplab.mkdir when set),
-- and the errors for unknown extensions and unwritable paths.
-- Depends on: warplab.report, warplab.test; writes under a fresh directory in /tmp.
local t = require "warplab.test"
local report = require "warplab.report"

local base = os.tmpname() -- creates an empty file; its name is unique, so reuse it
os.remove(base)
local made = {} -- files and directories to remove at the end, deepest last

local function path(name)
  local p = base .. "/" .. name
  made[#made + 1] = p
  return p
end

local function read(p)
  local f = assert(io.open(p, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

t.case("csv: header from columns, quoting of comma, quote, CR and LF, full precision", function()
  local rows = {
    {a = 'he said "hi", ok', b = 1.5},
    {a = "line\nbreak", b = 0.1},
    {a = "cr\rhere", b = 1 / 3},
    {a = " spaced ", b = nil},
    {a = true, b = 2 ^ 53},
  }
  local p = report.save(path("quoting.csv"), rows, {columns = {"a", "b"}})
  t.eq(p, base .. "/quoting.csv")
  t.eq(read(p), table.concat({
    "a,b",
    '"he said ""hi"", ok",1.5',
    '"line\nbreak",0.1',
    '"cr\rhere",0.3333333333333333',
    " spaced ,",
    "true,9007199254740992",
  }, "\n") .. "\n")
end)

t.case("csv: keyed rows without columns use sorted keys; array rows have no header", function()
  t.eq(read(report.save(path("keyed.csv"), {{y = 2, x = 1}, {x = 3}})), "x,y\n1,2\n3,\n")
  t.eq(read(report.save(path("array.csv"), {{1, "a,b"}, {2}})), '1,"a,b"\n2,\n')
  t.eq(read(report.save(path("named.CSV"), {{1, 2}}, {columns = {"n", "ms"}})), "n,ms\n1,2\n")
  t.eq(read(report.save(path("bool.csv"), {{ok = false, n = 1}}, {columns = {"ok", "n"}})),
       "ok,n\nfalse,1\n", "false is a value, not a missing cell")
end)

t.case("json: one row per line, reads back; columns turn array rows into objects", function()
  local p = report.save(path("rows.json"), {{block = 32, ms = 0.5}, {block = 64, ms = 0 / 0}})
  t.eq(read(p), '[\n  {"block":32,"ms":0.5},\n  {"block":64,"ms":null}\n]\n')
  p = report.save(path("named.json"), {{32, 0.25}}, {columns = {"block", "ms"}})
  t.eq(read(p), '[\n  {"block":32,"ms":0.25}\n]\n')
  p = report.save(path("object.json"), {device = "H200", sms = 132})
  t.eq(read(p), '{"device":"H200","sms":132}\n')
end)

t.case("save creates missing directories", function()
  local p = base .. "/deep/er/x.csv"
  report.save(p, {{1}})
  made[#made + 1] = p
  made[#made + 1] = base .. "/deep/er"
  made[#made + 1] = base .. "/deep"
  t.eq(read(p), "1\n")
end)

t.case("save prefers the host's warplab.mkdir", function()
  local saved = rawget(_G, "warplab")
  local asked = {}
  rawset(_G, "warplab", {mkdir = function(dir)
    asked[#asked + 1] = dir
    os.execute("mkdir -p '" .. dir .. "'")
  end})
  local ok, err = pcall(report.save, base .. "/host/y.json", {1})
  rawset(_G, "warplab", saved)
  assert(ok, err)
  made[#made + 1] = base .. "/host/y.json"
  made[#made + 1] = base .. "/host"
  t.eq(asked, {base .. "/host"})
  t.eq(read(base .. "/host/y.json"), "[\n  1\n]\n")
end)

t.case("save: unknown extension, bad path and unwritable place are errors at the caller", function()
  t.checkerror("report.save: unknown extension '.txt' in 'out.txt' (use .csv or .json)",
               report.save, "out.txt", {})
  t.checkerror("report.save: unknown extension '(none)' in 'results/out'", report.save, "results/out", {})
  t.checkerror("report.save: path is an integer, expected a string", report.save, 3, {})
  t.checkerror("report.save: nothing to save: rows is nil", report.save, path("nil.json"), nil)
  t.checkerror("report.save: the folder '/proc/warplab-no' of '/proc/warplab-no/x.csv' does not exist", report.save,
               "/proc/warplab-no/x.csv", {})
  t.checkerror("report.save: row 1 is an integer, expected a table", report.save, path("r.csv"), {1})
  local line = debug.getinfo(1, "l").currentline + 1
  local ok, msg = pcall(function() report.save("x.bad", {}) end)
  assert(not ok)
  t.eq(msg:match("lib_save%.lua:(%d+):"), tostring(line), "error names the script line")
  ok, msg = pcall(function() report.save(path("f.json"), {print}) end)
  t.eq(msg:match("lib_save%.lua:%d+: (.*)"), "report.save: cannot encode a function at $[1]")
end)

-- Clean up: files first, then directories (os.remove deletes empty directories).
t.case("cleanup", function()
  for _, p in ipairs(made) do os.remove(p) end -- each file is listed before its directories
  os.remove(base)
  t.eq(io.open(base, "r"), nil)
end)

t.run{exit = true}
