-- hostile.lua: what a hostile or careless script reaches past the API: metamethods called
-- directly (every metatable is locked: getmetatable gives a name), finalizers out of
-- order and re-entered, the reduced debug library, binary chunks, coroutines, deep
-- recursion. Each is an error sentence or harmless; none crashes the process.
local cases = require "support.cases"

local m = assert(cuda.compile{source = "__global__ void k(float* x) { x[0] = 1; }"})
local k = m.k
local dev = cuda.device()
local h = cuda.host_array("f32", 4, {pinned = false})
local tmap = cuda.tensor_map(cuda.array("u32", 64), {box = {16}})
local objects = {device = dev, attr = dev.attr, module = m, kernel = k, host_array = h, tensor_map = tmap}

local errs = {}
for name, o in pairs(objects) do
  local mt = getmetatable(o)
  errs[#errs + 1] = {"getmetatable(" .. name .. ") is a string", "is a string", function()
    error(type(mt) == "string" and "is a string" or "is a " .. type(mt))
  end}
  for _, mm in ipairs{"__gc", "__close", "__index", "__newindex", "__len", "__tostring", "__call", "__eq"} do
    errs[#errs + 1] = {name .. ": getmetatable()." .. mm .. "(o)", "attempt to call a nil value",
                       function() return getmetatable(o)[mm](o, "name") end}
  end
  errs[#errs + 1] = {"setmetatable(" .. name .. ")", name == "attr" and "cannot change a protected metatable" or "table expected",
                     function() return setmetatable(o, {}) end}
end
for _, gone in ipairs{"getregistry", "getmetatable", "setmetatable", "getupvalue", "setupvalue",
                      "upvaluejoin", "getuservalue", "setuservalue", "setlocal"} do
  errs[#errs + 1] = {"debug." .. gone, "attempt to call a nil value", function() return debug[gone](k, {}) end}
end
cases.errors(errs)

cases.errors{
  {"load of a binary chunk", "binary chunks are refused", function() return load("return 1", "x", "b") end},
  {"load of a dumped function", "attempt to load a binary chunk", function() assert(load(string.dump(function() end))) end},
  {"rawlen(kernel)", "table or string expected, got warplab.kernel", function() return rawlen(k) end},
  {"rawget(kernel)", "table expected, got warplab.kernel", function() return rawget(k, "name") end},
  {"next(module)", "table expected, got warplab.module", function() return next(m) end},
  {"pairs(host_array)", "table expected, got warplab.host_array", function() for _ in pairs(h) do end end},
  {"an error in __close", "close failed", function() do local x <close> = setmetatable({}, {__close = function() error("close failed") end}) end end},
  {"deep recursion", "stack overflow", function() local function f(n) return f(n + 1) + 1 end return f(1) end},
  {"string.rep past memory", "resulting string too large", function() return string.rep("x", 1 << 40) end},
  {"a kernel from a module freed under it", "attempt to use a freed module", function()
    local m2 = assert(cuda.compile{source = "__global__ void g(int* p) { p[0] = 1; }"})
    m2:free()
    return m2:kernel("g")
  end},
  {"a table with an __index as grid (read raw)", "grid must have 1 to 3 dimensions, got 0", function()
    local co = coroutine.wrap(function() return k:check{grid = setmetatable({}, {__index = function() coroutine.yield() end}), block = 1} end)
    return co()
  end},
  {"a table with an erroring __index as block (read raw)", "block must have 1 to 3 dimensions, got 0", function()
    return k:check{grid = 1, block = setmetatable({}, {__index = function() error("from __index") end, __len = function() return 1 end})}
  end},
}

cases.fine{
  {"free, <close> and __gc in any order", function()
    for _ = 1, 50 do
      local m2 = assert(cuda.compile{source = "__global__ void g(int* p) { p[0] = 1; }"})
      local g = m2.g
      local a = cuda.host_array("u8", 8, {pinned = false})
      local v = a:view(2, 3)
      if math.random(2) == 1 then m2:free() end
      if math.random(2) == 1 then a:free() end
      do local c <close> = v end
    end
    collectgarbage()
    collectgarbage()
  end},
  {"the API called from __gc while collecting", function()
    for _ = 1, 20 do
      setmetatable({}, {__gc = function()
        k:occupancy(64)
        cuda.host_array("f32", 16, {pinned = false}):fill(1)
        pcall(cuda.array, "f32", 1)
      end})
    end
    collectgarbage()
    collectgarbage()
  end},
  {"objects held only by weak tables", function()
    local t = setmetatable({}, {__mode = "kv"})
    for i = 1, 200 do t[cuda.host_array("u8", 1, {pinned = false})] = m; t[i] = k end
    collectgarbage()
    cases.eq(k.name, "k")
  end},
  {"the API in coroutines, and a compile that yields nothing", function()
    local co = coroutine.create(function()
      coroutine.yield(k:occupancy(32).blocks_per_sm)
      return cuda.compile{source = "__global__ void z() {}"}
    end)
    local ok, n = coroutine.resume(co)
    assert(ok and n > 0)
    local ok2, z = coroutine.resume(co)
    assert(ok2 and z.z)
  end},
  {"collector modes and steps between calls", function()
    collectgarbage("generational")
    for i = 1, 100 do k:check{grid = i, block = 32}; collectgarbage("step", 10) end
    collectgarbage("incremental")
  end},
  {"a kernel keeps working after its module is collected", function()
    local g = assert(cuda.compile{source = "__global__ void g2(int* p) { p[0] = 1; }"}).g2
    collectgarbage()
    collectgarbage()
    cases.eq(g:occupancy(64).block, 64)
  end},
  {"pcall recursion and deep coroutines end with an error value", function()
    local function f(n) return pcall(f, n + 1) end
    f(1)
    local function c() return coroutine.wrap(c)() end
    cases.eq(pcall(c), false)
  end},
  {"a hook set by the script, then removed", function()
    debug.sethook(function() end, "l")
    k:occupancy(32)
    debug.sethook()
  end},
}
cases.run()
