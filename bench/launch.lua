-- launch.lua: warplab's launch path, measured like bench/launch_raw.cpp: an empty kernel
-- launched N times from Lua between two events (checks on unless run with --no-check).
-- Shows:  the per-launch cost of k:launch next to plain cuLaunchKernel (scripts/bench).
-- Expect: within 5 % of raw on a GPU whose launch rate bounds the loop.
-- Run:    warplab run bench/launch.lua -p n=100000
local p = require("warplab.params"){n = 100000}
local m = assert(cuda.compile{source = "__global__ void empty(int* p, int n) {}\n"})
local k = m.empty
for _ = 1, 1000 do k:launch(1, 32, nil, 32) end
cuda.synchronize()
local e0, e1 = cuda.event(), cuda.event()
e0:record()
local t0 = os.clock()
for _ = 1, p.n do k:launch(1, 32, nil, 32) end
local host = os.clock() - t0
e1:record()
print(string.format("lua %.3f %.3f", 1000 * e0:elapsed(e1) / p.n, 1e6 * host / p.n))
