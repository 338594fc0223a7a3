-- tour.lua: a one-minute tour of warplab.
-- Shows:  the device and a few of its limits, a kernel compiled with NVRTC (typed from
--         its C++ signature), a launch whose result is checked against the CPU, what the
--         occupancy calculator says about it, and a launch timed with device events.
-- Expect: every check passes on a GPU; without one the device comes from a captured
--         profile, the compile and occupancy steps run, and the GPU steps say they need one.
-- Run:    scripts/run examples/tour.lua        (warplab run examples/tour.lua -p n=4096)
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local p = params{n = 1 << 20, block = 256, a = 2.5}

-- 1. The device: live, or a profile captured from a real GPU when there is none.
local dev = cuda.device()
print(dev)
local rows = {}
for _, name in ipairs{"max_threads_per_block", "warp_size", "multiprocessor_count",
                      "max_shared_memory_per_block_optin", "max_registers_per_multiprocessor"} do
  rows[#rows + 1] = {name, dev.unknown[name] and "unknown" or dev.attr[name]} -- sm_86: no SM count
end
report.table(rows, {columns = {"attribute", "value"}})

-- 2. Compile: a plain C++ kernel; warplab reads its parameter types from the mangled name.
local m = assert(cuda.compile{source = [[
__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
]]})
local saxpy = m.saxpy
print(saxpy)

-- 3. Occupancy from the calculator (works offline from the profile).
local occ = {}
for _, b in ipairs{64, 128, 256, 512, 1024} do
  local o = saxpy:occupancy{block = b}
  occ[#occ + 1] = {b, o.blocks_per_sm, o.active_warps, string.format("%.0f %%", 100 * o.occupancy), o.limiter}
end
report.table(occ, {columns = {"block", "blocks/SM", "warps/SM", "occupancy", "limited by"}})

-- A configuration over the device's limits is refused before the driver sees it.
local ok, why = saxpy:check{grid = 1, block = 2 * dev.attr.max_threads_per_block}
print("block of " .. 2 * dev.attr.max_threads_per_block .. " threads: " .. (ok and "accepted" or why))

if not dev.live then
  print("\nno GPU here: the launch, check and timing steps need one (" .. dev.source .. ")")
  return
end

-- 4. Launch and check against the CPU.
local c = check.new("tour")
local x <close> = cuda.array("f32", p.n):random{seed = 1}
local y <close> = cuda.array("f32", p.n):random{seed = 2}
local hx, hy = x:get(), y:get()
local grid = (p.n + p.block - 1) // p.block
saxpy:launch(grid, p.block, p.a, x, y, p.n)
local out = y:get()
local worst = 0
for i = 1, p.n do
  local want = p.a * hx[i] + hy[i]
  worst = math.max(worst, math.abs(out[i] - want) / math.max(1e-30, math.abs(want)))
end
c:that(worst < 1e-6, "saxpy matches the CPU for " .. p.n .. " elements",
       string.format("worst relative error %.2e", worst))

-- A wrongly typed argument is caught before the launch, with the script line.
local ids = cuda.array("i32", 4)
local bad_ok, bad_msg = pcall(saxpy.launch, saxpy, 1, 32, p.a, ids, y, p.n)
c:that(not bad_ok and bad_msg:find("i32 array cannot be passed as const float%*") ~= nil,
       "an i32 array passed as const float* is refused", bad_msg)

-- 5. Time it with device events: 12 bytes move per element (read x, read y, write y).
local t = saxpy:bench{grid = grid, block = p.block, args = {p.a, x, y, p.n}, reps = 50}
c:that(t.median > 0, "event timing is positive", string.format("median %.4f ms", t.median))
print(string.format("saxpy on %d floats: median %.4f ms = %.0f GB/s", p.n, t.median,
                    12 * p.n / (t.median * 1e6)))
c:summary()
