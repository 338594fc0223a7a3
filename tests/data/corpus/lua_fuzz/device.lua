local a = dev.attr
local n = 0
for k, v in pairs(a) do n = n + 1 end
local w = a.warp_size + a.MAX_THREADS_PER_BLOCK + (a.multiprocessor_count or 0)
pcall(function() return a.nope end)
local d = cuda.devices()[1]
local s = d.name .. d.cc .. d.arch .. d.source .. tostring(d.live) .. d.ordinal .. d.memory
pcall(cuda.device, 1)
pcall(cuda.array, "f32", 10)
pcall(cuda.stream)
pcall(cuda.event)
pcall(cuda.synchronize)
pcall(cuda.bench, function() end, {reps = 3})
