-- api_array_everywhere.lua: the whole cuda.array API behaves the same offline (host memory
-- behind it) as on a GPU: creation from a count or a list, get/set, fill, iota, random
-- (the same values for the same seed), zero, copy, views, #a, a[i], tostring, free and
-- <close>, and every indexing and use-after-free error. Offline, a launch raises the "no
-- CUDA device" sentence; live it runs. (issue 13: "offline mode that runs a script up to
-- the launch")
local t = require "warplab.test"
local dev = cuda.device()

t.case("creation and element access", function()
  local a <close> = cuda.array("f32", 8)
  t.eq(#a, 8)
  t.eq(a.type, "f32")
  t.eq(a.bytes, 32)
  t.eq(a:get(), {0, 0, 0, 0, 0, 0, 0, 0})  -- zeroed on every machine
  a[3] = 2.5
  t.eq(a[3], 2.5)
  local b <close> = cuda.array("i32", {1, 2, 3})
  t.eq(b:get(), {1, 2, 3})
  t.eq(tostring(b), "cuda.array(i32, 3)")
end)

t.case("fill, iota, set, zero, random", function()
  local a <close> = cuda.array("i32", 5)
  t.eq(a:fill(7):get(), {7, 7, 7, 7, 7})
  t.eq(a:iota(10, 2):get(), {10, 12, 14, 16, 18})
  t.eq(a:set({1, 2}, 4):get(), {10, 12, 14, 1, 2})
  t.eq(a:zero():get(), {0, 0, 0, 0, 0})
  local r1 <close> = cuda.array("f32", 16):random{seed = 3}
  local r2 <close> = cuda.array("f32", 16):random{seed = 3}
  t.eq(r1:get(), r2:get())
  for _, v in ipairs(r1:get()) do assert(v >= 0 and v < 1, v) end
end)

t.case("copies and views share memory", function()
  local a <close> = cuda.array("u32", 6):iota(1)
  local b <close> = cuda.array("u32", 6)
  t.eq(b:copy(a):get(), {1, 2, 3, 4, 5, 6})
  local v = a:view(3, 2)
  t.eq(v:get(), {3, 4})
  v:fill(0)
  t.eq(a:get(), {1, 2, 0, 0, 5, 6})
  v:free()
  t.eq(a[3], 0)  -- freeing a view only detaches it
end)

t.case("errors are sentences", function()
  local a <close> = cuda.array("f32", 4)
  t.checkerror("index 5 out of range", function() return a[5] end)
  t.checkerror("index 0 out of range", function() a[0] = 1 end)
  t.checkerror("same type", function() a:copy(cuda.array("i32", 4)) end)
  local f = cuda.array("f32", 2)
  f:free()
  f:free()  -- idempotent
  t.checkerror("freed", function() return f[1] end)
  t.eq(f.freed, true)
  t.checkerror("unknown", cuda.array, "f33", 4)
end)

t.case("a launch with arrays: raises offline, runs live", function()
  local m = assert(cuda.compile{source = "__global__ void inc(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] += 1; }"})
  local a <close> = cuda.array("f32", 4):fill(1)
  if dev.live then
    m.inc:launch(1, 32, a, 4)
    t.eq(a:get(), {2, 2, 2, 2})
  else
    t.checkerror("no CUDA device", function() m.inc:launch(1, 32, a, 4) end)
    t.eq(m.inc:check{grid = 1, block = 32}, true)
  end
end)

t.run()
