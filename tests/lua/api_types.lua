-- api_types.lua: every warplab type is registered one way (host/bind/metatable.hpp):
-- its metatable locked, with __gc, __tostring, __index and the field names completion
-- lists; a type whose objects hold memory or a driver handle releases it through one
-- function, the same for __close and :free(), which may run twice; and every method of a
-- released object raises the type's one sentence. Offline: arrays, host arrays, modules;
-- live (a GPU, or the stand-in driver of tests/cli/types_fake_driver.sh): streams,
-- events and graphs too. Needs debug.getregistry, which scripts do not get:
-- WARPLAB_UNSAFE_DEBUG=1 keeps it.
-- env: WARPLAB_UNSAFE_DEBUG=1
local t = require "warplab.test"

local reg = debug.getregistry()
local live = cuda.device().live

-- The userdata types, and the sentence a released one raises (false: it holds nothing
-- to release, a device's snapshot or a kernel, which keeps its module's code).
local released = {
  ["warplab.array"] = "attempt to use a freed array",
  ["warplab.host_array"] = "attempt to use a freed host array",
  ["warplab.module"] = "attempt to use a freed module",
  ["warplab.stream"] = "attempt to use a destroyed stream",
  ["warplab.event"] = "attempt to use a destroyed event",
  ["warplab.graph"] = "attempt to use a freed graph",
  ["warplab.tensor_map"] = "attempt to use a freed tensor map",
  ["warplab.device"] = false,
  ["warplab.kernel"] = false,
}
-- Metatables of what scripts never hold as userdata: dev.attr (a table) and the state's
-- own record.
local others = {["warplab.attr"] = true, ["warplab.state_record"] = true}

-- The metatables the registry holds under their own names (luaL_newmetatable's __name).
local function registered()
  local out = {}
  for name, mt in pairs(reg) do
    if type(name) == "string" and type(mt) == "table" and rawget(mt, "__name") == name then out[name] = mt end
  end
  return out
end

t.case("each registered type is a known one, its metatable locked", function()
  local names = {}
  for name, mt in pairs(registered()) do
    if name:find("^warplab%.") then
      names[#names + 1] = name
      t.eq(mt.__metatable, name, name .. ".__metatable")
      t.eq(released[name] ~= nil or others[name] == true, true, name .. " is a type this test knows")
    end
  end
  table.sort(names)
  local want = {}
  for name in pairs(released) do want[#want + 1] = name end
  for name in pairs(others) do want[#want + 1] = name end
  table.sort(want)
  t.eq(names, want)
end)

t.case("every userdata type has __gc, __tostring, __index and __fields", function()
  for name in pairs(released) do
    local mt = assert(reg[name], name)
    for _, mm in ipairs{"__gc", "__tostring", "__index", "__fields"} do
      t.eq(type(mt[mm]), "function", name .. "." .. mm)
    end
  end
end)

t.case("__close and :free() are one release, on the types that hold one", function()
  for name, sentence in pairs(released) do
    local mt = reg[name]
    if sentence then
      t.eq(type(mt.__close), "function", name .. ".__close")
      t.eq(rawequal(mt.__close, mt.methods.free), true, name .. ": __close is :free()")
    else
      t.eq({mt.__close, mt.methods and mt.methods.free}, {nil, nil}, name .. " has nothing to release")
    end
  end
end)

-- Calls every method of `obj` (a released object of type `name`) but free, which may run
-- again, and asserts each raises the type's sentence.
local function every_method_raises(name, obj)
  local sentence = released[name]
  local methods = reg[name].methods
  local count = 0
  for method, fn in pairs(methods) do
    if method == "free" then
      fn(obj)
    else
      t.checkerror(sentence, fn, obj)
      count = count + 1
    end
  end
  assert(count >= 2, name .. " has only " .. count .. " methods besides free")
end

-- obj() makes an object of type `name`: freed by :free() twice, and by <close>; then
-- every method raises and tostring says so (`shown`).
local function released_twice(name, make, shown)
  local a = make()
  a:free()
  a:free()
  every_method_raises(name, a)
  t.eq(tostring(a), shown)
  local escaped
  do
    local b <close> = make()
    escaped = b
  end
  every_method_raises(name, escaped)
  escaped:free()
end

t.case("a released array, host array or module: every method raises", function()
  released_twice("warplab.array", function() return cuda.array("f32", 4) end, "cuda.array (freed)")
  local a = cuda.array("i32", 8)
  local v = a:view(2, 3)
  a:free()
  every_method_raises("warplab.array", v)  -- the owner took the memory
  released_twice("warplab.host_array", function() return cuda.host_array("f32", 4, {pinned = false}) end,
                 "cuda.host_array (freed)")
  released_twice("warplab.module", function()
    return assert(cuda.compile{source = "__global__ void k(int* x) { x[0] = 1; }"})
  end, "cuda.module (freed)")
end)

-- A tensor map has one method, free: a released one raises its sentence from every field
-- but `freed` (the names its __fields lists).
t.case("a released tensor map: every field raises, tostring says so", function()
  local function make() return cuda.tensor_map(cuda.array("u32", 64), {box = {16}}) end
  local name = "warplab.tensor_map"
  local m = make()
  m:free()
  m:free()
  local fields = reg[name].__fields(m)
  assert(#fields >= 7, name .. " lists only " .. #fields .. " fields")
  for _, f in ipairs(fields) do
    if f ~= "freed" then t.checkerror(released[name], function() return m[f] end) end
  end
  t.eq({m.freed, tostring(m)}, {true, "cuda.tensor_map (freed)"})
  local escaped
  do
    local b <close> = make()
    escaped = b
  end
  t.eq(escaped.freed, true)
  escaped:free()
end)

t.case("a released stream, event or graph: every method raises", function()
  if not live then
    t.checkerror("cuda.stream", cuda.stream)  -- offline: the GPU sentence, nothing made
    return
  end
  released_twice("warplab.stream", function() return cuda.stream() end, "cuda.stream (destroyed)")
  released_twice("warplab.event", function() return cuda.event() end, "cuda.event (destroyed)")
  local m = assert(cuda.compile{source = "__global__ void k(int* x) { if (x) x[0] = 1; }"})
  released_twice("warplab.graph", function()
    return cuda.graph(function() m.k:launch(1, 1, nil) end)
  end, "cuda.graph (freed)")
end)

t.case("the garbage collector releases what scripts drop", function()
  for _ = 1, 3 do
    local _ = cuda.array("f32", 16)
    local _ = cuda.host_array("f32", 16, {pinned = false})
    local _ = assert(cuda.compile{source = "__global__ void k() {}"}).k
  end
  collectgarbage()
  collectgarbage()
  t.eq(cuda.array("f32", 2):fill(3):get(), {3, 3})
end)

t.run()
