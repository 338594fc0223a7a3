-- use_profile.lua: what a script does with the device a profile describes, for
-- profiles.cases: a compile, a kernel lookup (the offline max-threads search over the
-- profile's limits), occupancy, a launch check, then the attributes. Prints one line.
local dev = cuda.device()
local m = assert(cuda.compile{source = "__global__ void k(float* x) { x[threadIdx.x] = 1; }"})
local k = m.k
local occ = k:occupancy{block = 1}
local ok, why = k:check{grid = 1, block = 1024}
print(string.format("profile ok: %s, max_threads %s, %d blocks/SM, check %s, warp %d", dev.arch,
                    tostring(k.max_threads), occ.blocks_per_sm, ok and "ok" or why, dev.attr.warp_size))
