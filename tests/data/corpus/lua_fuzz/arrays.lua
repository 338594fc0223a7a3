local h = cuda.host_array("f32", 8, {pinned = false})
h:iota(1, 2):fill(3.5)
h[1] = 2.5
local v = h:view(2, 4)
v:set({1, 2}, 2)
local t = h:get()
h:random{seed = 7, lo = -1, hi = 1}
local u = cuda.host_array("u8", {1, 2, 3}, {pinned = false})
u:copy(u)
u:free(); v:free(); h:free()
pcall(function() return h[1] end)
local a = cuda.host_array("f16", 4, {pinned = false}); a:fill(1e5); a[2] = -0.0
local b <close> = cuda.host_array("i64", 2, {pinned = false})
b[1] = math.maxinteger; b[2] = math.mininteger
