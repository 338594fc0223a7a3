-- oom.lua (GPU): out of device memory is one sentence naming what was asked and what is
-- free, and the session goes on: a smaller array right after works, and so does a launch.
local t = require "warplab.test"

local dev = cuda.device()
assert(dev.live, "needs a GPU")

t.case("an array larger than the device is refused with the numbers", function()
  local n = dev.memory // 4 + (1 << 28)  -- 1 GiB more than the whole device, in f32
  local msg = t.checkerror("cuMemAlloc", function() return cuda.array("f32", n) end)
  assert(msg:find("requested", 1, true) and msg:find("free of", 1, true), msg)
end)

t.case("the context is fine afterwards", function()
  local a <close> = cuda.array("f32", 1024):fill(2)
  local m = assert(cuda.compile{source = "__global__ void dbl(float* x) { x[threadIdx.x] *= 2; }"})
  m.dbl:launch(1, 1024, a)
  t.eq(a[1024], 4.0)
end)

t.run()
