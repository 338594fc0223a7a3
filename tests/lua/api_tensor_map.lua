-- api_tensor_map.lua: cuda.tensor_map from Lua, offline and live. Offline (a profile): a
-- map is made and checked but not encoded, and a kernel's CUtensorMap parameter takes it
-- up to the launch, which needs a GPU. Live (a GPU, and the stand-in driver of
-- tests/cli/concurrency_fake_driver.sh, which encodes after the driver's own checks but
-- runs no kernel): the driver encodes it, a launch takes it, and a launch captured by
-- cuda.graph keeps the map's array: freeing the array refuses the replay, as for an array
-- passed directly. What a TMA load reads is tests/gpu_lua/tensor_map.lua's (a GPU).
local t = require "warplab.test"

local live = cuda.device().live
local m = assert(cuda.compile{source = [[
typedef struct alignas(64) CUtensorMap_st { unsigned long long opaque[16]; } CUtensorMap;
__global__ void takes_map(const __grid_constant__ CUtensorMap map, unsigned* out) { if (out) out[0] = map.opaque[1]; }
]]})
local k = m.takes_map

t.case("a map is encoded on a GPU only; a kernel's CUtensorMap parameter takes it", function()
  local a = cuda.array("u32", 4096)
  local map = cuda.tensor_map(a, {dims = {64, 64}, box = {16, 8}})
  t.eq({map.encoded, map.freed, map.bytes, map.strides}, {live, false, 512, {256}})
  assert(k:check{grid = 1, block = 1, args = {map, a}})
  if not live then
    t.checkerror("no CUDA device", k.launch, k, 1, 1, map, a)
    return
  end
  k:launch(1, 1, map, a)
  cuda.synchronize()
end)

t.case("a captured launch keeps the map's array; freed, the replay is refused", function()
  if not live then
    t.checkerror("cuda.graph", cuda.graph, function() end) -- offline: the GPU sentence
    return
  end
  local a = cuda.array("u32", 4096)
  local map = cuda.tensor_map(a, {dims = {64, 64}, box = {16, 8}})
  local out = cuda.array("u32", 1)
  local g = cuda.graph(function() k:launch(1, 1, map, out) end)
  a = nil -- held by the map, and by the graph through it
  collectgarbage()
  collectgarbage()
  g:launch()
  cuda.synchronize()
  local b = cuda.array("u32", 4096)
  local map2 = cuda.tensor_map(b, {dims = {64, 64}, box = {16, 8}})
  local g2 = cuda.graph(function() k:launch(1, 1, map2, out) end)
  g2:launch()
  b:free()
  t.checkerror("g:launch: the graph captured by cuda.graph at", g2.launch, g2)
  t.checkerror("uses an array u32[4096] that was freed", g2.launch, g2)
  t.checkerror("the tensor map's array was freed", k.launch, k, 1, 1, map2, out)
end)

t.run()
