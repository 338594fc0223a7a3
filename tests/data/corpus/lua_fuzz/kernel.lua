local ok, why = K:check{grid = {2, 2}, block = 256, shared = 1024, args = {nil, nil, 1.5, 3, 255, true, 0.5, string.pack("ff", 1, 2)}}
local occ = K:occupancy{block = 256, shared = 4096, carveout = 50}
local x = occ.blocks_per_sm + K:occupancy(128).active_warps
local t = M["t<64>"]
t:check{grid = 8, block = 64, cluster = {2, 1, 1}}
pcall(K.launch, K, 1, 32, nil)
local s = tostring(K) .. tostring(M) .. tostring(dev) .. K.signature .. #K.params
for _, n in ipairs(M.kernels) do local k = M:kernel(n); local _ = k.regs, k.max_threads end
M:kernel("c", "float* x, int n"):check{grid = 1, block = 1}
