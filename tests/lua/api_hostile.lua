-- api_hostile.lua: what a hostile or careless script can reach, it cannot crash with
-- (issue 12, defects 2 and 3): every metatable is locked (getmetatable gives its name),
-- finalizers cannot be called by hand, the attribute table's __index checks self, the
-- debug library keeps only traceback/getinfo/getlocal/sethook/gethook, and load,
-- loadfile, dofile and require take text only (a corrupt binary chunk crashes Lua).
local t = require "warplab.test"

local dev = cuda.device()
local m = assert(cuda.compile{source = "__global__ void k(float* x) { x[threadIdx.x] = 1; }"})
local k = m.k

t.case("metatables are locked", function()
  t.eq(getmetatable(dev), "warplab.device")
  t.eq(getmetatable(dev.attr), "warplab.attr")
  t.eq(getmetatable(m), "warplab.module")
  t.eq(getmetatable(k), "warplab.kernel")
  t.checkerror("protected metatable", setmetatable, dev.attr, {})
end)

t.case("finalizers and metamethods cannot be reached", function()
  t.eq(type(getmetatable(dev)), "string")  -- so getmetatable(dev).__gc(dev) indexes a string
  t.checkerror("attempt to call a nil value", function() getmetatable(dev).__gc(dev) end)
  t.checkerror("attempt to call a nil value", function() getmetatable(m).__gc(m) end)
  t.checkerror("attempt to call a nil value", function() getmetatable(dev.attr).__index(nil, "warp_size") end)
  t.eq(dev.name ~= nil, true)
  t.eq(k.name, "k")
end)

t.case("the debug library is reduced", function()
  for _, gone in ipairs{"getregistry", "getmetatable", "setmetatable", "getupvalue", "setupvalue",
                        "upvaluejoin", "getuservalue", "setuservalue", "setlocal"} do
    t.eq(debug[gone], nil, "debug." .. gone)
  end
  t.eq(require("debug"), debug)
  t.eq(type(debug.traceback()), "string")
  t.eq(debug.getinfo(1, "l").currentline > 0, true)
end)

t.case("load takes text only", function()
  local bin = string.dump(function() return 42 end)
  local f, err = load(bin)
  t.eq(f, nil)
  t.eq(err:find("binary", 1, true) ~= nil, true, err)
  t.checkerror("binary chunks are refused", load, "return 1", "x", "b")
  t.checkerror("binary chunks are refused", load, "return 1", "x", "bt")
  t.eq(load("return 1")(), 1)
  t.eq(load("return 2", "n", "t")(), 2)
  t.eq(load("return x", "n", "t", {x = 5})(), 5)
  t.eq(load("return 3", "n", nil)(), 3)
  local parts, i = {"return ", "4"}, 0
  t.eq(load(function() i = i + 1 return parts[i] end)(), 4)
end)

t.case("loadfile, dofile and require take text only", function()
  local dir = os.tmpname()
  os.remove(dir)
  local path = dir .. "_hostile_mod.lua"
  local f = assert(io.open(path, "wb"))
  f:write(string.dump(function() return {evil = true} end))
  f:close()
  local chunk, err = loadfile(path)
  t.eq(chunk, nil)
  t.eq(err:find("binary", 1, true) ~= nil, true, err)
  t.checkerror("binary", dofile, path)
  local old = package.path
  package.path = dir .. "_?.lua"
  t.checkerror("binary", require, "hostile_mod")
  package.path = old
  f = assert(io.open(path, "w"))
  f:write("return {fine = true}")
  f:close()
  t.eq(dofile(path).fine, true)
  t.eq(loadfile(path)().fine, true)
  os.remove(path)
end)

t.case("a second finalizer or use after collection is an error, not a crash", function()
  local m2 = assert(cuda.compile{source = "__global__ void g(int* p) { p[0] = 1; }"})
  local g = m2.g
  m2 = nil
  collectgarbage()
  collectgarbage()
  t.eq(g.name, "g")  -- the kernel keeps its module alive
end)

t.case("occupancy takes any whole number and says what is wrong with the rest", function()
  t.eq(k:occupancy(2^8).block, 256)
  t.checkerror("more than any device runs", k.occupancy, k, 2^40)
  t.checkerror("whole number of threads", k.occupancy, k, 2.5)
  t.checkerror(">= 1", k.occupancy, k, -3)
  t.checkerror("whole number of threads", k.occupancy, k, 0/0)
end)

t.run()
