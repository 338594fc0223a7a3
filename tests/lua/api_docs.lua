-- api_docs.lua: every name of the `cuda` API is in docs/lua-api.md. Names come from the
-- running binary wherever it can tell: the `cuda` table, the methods in the metatables
-- (debug.getregistry()["warplab.module"].methods, ...), the keys of the tables it returns
-- (occupancy, diagnostics); fields computed in __index functions come from the binding
-- sources (`key == "..."`); option names from the lists below, each checked to be a name
-- the binding reads. Depends on warplab.test; reads docs/ and host/bind/ from the tree.
-- Needs debug.getregistry, which scripts do not get: WARPLAB_UNSAFE_DEBUG=1 keeps it.
-- env: WARPLAB_UNSAFE_DEBUG=1
local t = require "warplab.test"

local here = debug.getinfo(1, "S").source:gsub("^@", "")
local root = here:match("^(.*)tests/lua/api_docs%.lua$") or ""
local function read(path)
  local f = assert(io.open(root .. path, "r"), path .. " not found from " .. here)
  local s = f:read("a")
  f:close()
  return s
end
local doc = read("docs/lua-api.md")
local reg = debug.getregistry()

-- Records `token` as missing unless the doc has it (plain text).
local missing = {}
local function need(token)
  if not doc:find(token, 1, true) then missing[#missing + 1] = token end
end
local function sorted_keys(tbl)
  local out = {}
  for k in pairs(tbl) do if type(k) == "string" and not k:find("^__") then out[#out + 1] = k end end
  table.sort(out)
  return out
end
-- Field names an __index function compares its key with, in a binding source.
local function computed_fields(file)
  local out = {}
  local path = file:find("/", 1, true) and file or "host/bind/" .. file
  for name in read(path):gmatch('key == "([%w_]+)"') do out[#out + 1] = name end
  assert(#out > 0, "no `key == \"...\"` fields found in " .. file)
  return out
end

t.case("the cuda table", function()
  missing = {}
  for _, k in ipairs(sorted_keys(cuda)) do need("`cuda." .. k) end
  t.eq(missing, {})
end)

t.case("methods in the metatables", function()
  missing = {}
  local types = {
    {"warplab.module", "methods", "m:"}, {"warplab.kernel", "methods", "k:"},
    {"warplab.array", "methods", "a:"}, {"warplab.host_array", "methods", "h:"},
    {"warplab.stream", "methods", "s:"},
    {"warplab.event", "methods", "e:"}, {"warplab.graph", "methods", "g:"},
  }
  for _, ty in ipairs(types) do
    local mt = assert(reg[ty[1]], ty[1] .. " is not registered")
    local methods = assert(type(mt[ty[2]]) == "table" and mt[ty[2]], ty[1] .. "." .. ty[2])
    local names = sorted_keys(methods)
    assert(#names >= 3, ty[1] .. " has only " .. #names .. " methods")
    assert(type(mt.__index) == "function" or mt.__index == methods, ty[1] .. ": __index answers no methods")
    for _, k in ipairs(names) do need("`" .. ty[3] .. k) end
    local var = ty[3]:sub(1, 1)
    if mt.__close then need("`local " .. var .. " <close>`") end
    if mt.__tostring then need("`tostring(" .. var .. ")`") end
  end
  local dev_mt = assert(reg["warplab.device"], "warplab.device is not registered")
  if dev_mt.__tostring then need("`tostring(dev)`") end
  if reg["warplab.kernel"].__call then need("`k{...}`") end
  if reg["warplab.array"].__len then need("`#a`") end
  if reg["warplab.array"].__newindex then need("`a[i] = v`") end
  if reg["warplab.host_array"].__len then need("`#h`") end
  if reg["warplab.host_array"].__newindex then need("`h[i] = v`") end
  t.eq(missing, {})
end)

t.case("fields computed by __index functions", function()
  missing = {}
  for file, prefix in pairs({["device.cpp"] = "`dev.", ["module.cpp"] = "`m.",
                             ["kernel.cpp"] = "`k.", ["host/lab/kernel_info.cpp"] = "`k.",
                             ["array.cpp"] = "`a.",
                             ["host_array.cpp"] = "`h.", ["graph.cpp"] = "`g."}) do
    for _, name in ipairs(computed_fields(file)) do need(prefix .. name .. "`") end
  end
  for file, prefix in pairs({["stream.cpp"] = "`s.", ["event.cpp"] = "`e."}) do
    for _, name in ipairs(computed_fields(file)) do need(prefix .. name .. "`") end
  end
  need("`m.<kernel>`")
  need("`a[i]`")
  need("`h[i]`")
  table.sort(missing)
  t.eq(missing, {})
end)

t.case("tensor maps: fields, methods, options", function()
  missing = {}
  for _, name in ipairs(computed_fields("tensor_map.cpp")) do need("`map." .. name .. "`") end
  local mt = assert(reg["warplab.tensor_map"], "warplab.tensor_map is not registered")
  for _, k in ipairs(sorted_keys(mt.methods or {})) do need("`map:" .. k .. "()`") end
  if mt.__close then need("`local map <close> = ...`") end
  local src = read("host/bind/tensor_map.cpp")
  for _, name in ipairs{"dims", "box", "strides", "elem_strides", "swizzle", "l2_promotion", "oob_fill", "type"} do
    assert(src:find('"' .. name .. '"', 1, true), "tensor_map.cpp does not read option " .. name)
    need("`" .. name .. " = ")
  end
  table.sort(missing)
  t.eq(missing, {})
end)

t.case("fields of the tables the API returns", function()
  missing = {}
  local m = assert(cuda.compile{source = "__global__ void k(float* a) { a[threadIdx.x] = 1; }"})
  for _, k in ipairs(sorted_keys(m.k:occupancy{block = 2048})) do need("`occ." .. k .. "`") end
  for _, k in ipairs(sorted_keys(m.k:occupancy{block = 256})) do need("`occ." .. k .. "`") end
  local _, _, list = cuda.compile{source = "__global__ void k( {"}
  for _, k in ipairs(sorted_keys(list[1])) do need("`d." .. k .. "`") end
  -- Timing tables need a GPU to make: they are warplab.stats.summary of the samples
  -- (bench.cpp push_timing), plus the samples.
  local summary = require("warplab.stats").summary({1, 2})
  for _, k in ipairs(sorted_keys(summary)) do need("`st." .. k .. "`") end
  assert(read("host/bind/bench.cpp"):find('"samples"', 1, true), "push_timing sets no samples field")
  need("`st.samples`")
  table.sort(missing)
  t.eq(missing, {})
end)

t.case("options of the tables the API takes", function()
  missing = {}
  -- Each option is a string literal in the binding that reads it.
  local options = {
    ["compile_args.cpp"] = {"file", "source", "name", "defines", "include", "options", "arch", "std",
                            "max_registers", "lineinfo", "kernels"},
    ["launch_args.cpp"] = {"grid", "block", "shared", "stream", "cooperative", "cluster", "args"},
    ["kernel.cpp"] = {"warmup", "reps", "block", "shared", "carveout", "metrics"},
    ["elements.cpp"] = {"seed", "lo", "hi", "stream"},
    ["stream.cpp"] = {"non_blocking", "priority"},
    ["event.cpp"] = {"timing"},
    ["bench.cpp"] = {"warmup", "reps", "stream"},
    ["host_array.cpp"] = {"pinned"},
    ["array.cpp"] = {"managed"},
  }
  for file, names in pairs(options) do
    local src = read("host/bind/" .. file)
    for _, name in ipairs(names) do
      assert(src:find('"' .. name .. '"', 1, true), file .. " does not read option " .. name)
      need("`" .. name .. " = ")
    end
  end
  -- The compile fields are exactly the ones cuda.compile accepts.
  local msg = t.checkerror("unknown field", cuda.compile, {source = "", nope = 1})
  local fields = msg:match("%(fields: ([%w_, ]+)%)")
  local listed = {}
  for f in fields:gmatch("[%w_]+") do listed[#listed + 1] = f end
  table.sort(listed)
  local want = options["compile_args.cpp"]
  table.sort(want)
  t.eq(listed, want)
  table.sort(missing)
  t.eq(missing, {})
end)

t.case("the page links the library page", function()
  assert(doc:find("(lua-library.md)", 1, true))
end)

t.run{exit = true}
