-- compile.lua: one compile of bench/launch_kernels.cu as scripts/bench measures it: the
-- compile (cold NVRTC or an on-disk cache hit: m.cached says which) and, after a cache
-- hit, the compile with the module's load, the first launch of empty0 and its
-- synchronization, in this process (cuda.clock; the context is created before the clock
-- starts). Offline (no GPU) only the compile is measured.
-- Shows:  records "@ compile warplab <column> <ms>" (tab-separated) for bench/report.py.
-- Expect: a cache hit well under 1 ms; cold NVRTC tens of ms.
-- Run:    warplab run bench/compile.lua   (WARPLAB_CACHE_DIR picks the cache folder)
local live = cuda.device().live
if live then cuda.synchronize() end  -- the context exists before the clock starts
local t0 = cuda.clock()
local m = assert(cuda.compile("launch_kernels.cu"))
local k0 = m:kernel("empty0", "")
local label = m.cached and "cache hit" or "cold"
print(string.format("@\tcompile\twarplab\tcompile, %s (ms)\t%.4f", label, m.compile_ms))
if live and m.cached then
  k0:launch(1, 32)
  cuda.synchronize()
  print(string.format("@\tcompile\twarplab\tcompile (%s) + load + 1st launch (ms)\t%.4f", label, cuda.clock() - t0))
end
