-- lib_docs.lua: every public function of the library is named in docs/lua-library.md
-- (module functions as `report.table`, checker and bar methods as `c:eq`, `bar:step`).
-- Depends on: warplab.test and the public modules; reads docs/ next to tests/.
local t = require "warplab.test"

-- The source root: this file lives at <root>/tests/lua/lib_docs.lua.
local here = debug.getinfo(1, "S").source:gsub("^@", "")
local root = here:match("^(.*)tests/lua/lib_docs%.lua$") or ""
local f = assert(io.open(root .. "docs/lua-library.md", "r"), "docs/lua-library.md not found from " .. here)
local doc = f:read("a")
f:close()

local function names(tbl)
  local out = {}
  for k, v in pairs(tbl) do
    if type(v) == "function" and not k:find("^_") then out[#out + 1] = k end
  end
  table.sort(out)
  return out
end

t.case("every module function is documented", function()
  local missing = {}
  for _, m in ipairs({"report", "stats", "params", "check", "progress", "memory", "timeline", "counters", "sync",
                       "litmus"}) do
    for _, k in ipairs(names(require("warplab." .. m))) do
      if not doc:find(m .. "." .. k, 1, true) then missing[#missing + 1] = m .. "." .. k end
    end
  end
  for _, k in ipairs(names(t)) do
    if not doc:find("t." .. k, 1, true) then missing[#missing + 1] = "t." .. k end
  end
  t.eq(missing, {})
end)

t.case("every checker and progress-bar method is documented", function()
  local check = require "warplab.check"
  local progress = require "warplab.progress"
  local c = check.new("docs", {out = function() end})
  local bar = progress.new(1, nil, {enabled = false})
  local missing = {}
  for prefix, obj in pairs({c = c, bar = bar}) do
    for _, k in ipairs(names(getmetatable(obj).__index)) do
      if not doc:find(prefix .. ":" .. k, 1, true) then missing[#missing + 1] = prefix .. ":" .. k end
    end
  end
  check.reset()
  table.sort(missing)
  t.eq(missing, {})
end)

t.case("params is callable and documented as params{...}", function()
  assert(doc:find("`params{key = default, ...}`", 1, true))
end)

t.run{exit = true}
