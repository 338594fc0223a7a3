-- api_profile_file.lua: `--profile FILE` backs cuda.device() with a captured (here
-- synthetic: tests/data/profiles/synthetic_profile.json, 100 SMs) profile: its fields, an
-- attribute it lacks (nil), a name a newer cuda.h added (kept), and limits taken from it.
-- profile: tests/data/profiles/synthetic_profile.json
local t = require "warplab.test"

local dev = cuda.device()
if dev.name ~= "synthetic test device" then
  print("api_profile_file: not on the synthetic profile (" .. tostring(dev) .. "); nothing to test")
else
  t.case("the device is the profile", function()
    t.eq({dev.live, dev.source, dev.sm_count, dev.cc, dev.arch, dev.ordinal},
         {false, "profile tests/data/profiles/synthetic_profile.json", 100, "9.0", "sm_90", -1})
    t.eq(tostring(dev), "synthetic test device (sm_90, 100 SMs, 64 GiB) [profile tests/data/profiles/synthetic_profile.json]")
  end)

  t.case("attributes: one left out is nil, an unknown newer one is kept", function()
    t.eq(dev.attr.d3d12_cig_supported, nil)
    t.eq(dev.attr.future_attribute_from_newer_cuda, 7)
    local n = 0
    for _ in pairs(dev.attr) do n = n + 1 end
    t.eq(n, 147)
  end)

  t.case("launch limits come from the profile", function()
    local k = assert(cuda.compile{source = "__global__ void k(float* a) { a[threadIdx.x] = 1; }"}).k
    -- 2 blocks of 1024 threads per SM x 100 SMs.
    t.eq({k:check{grid = 201, block = 1024, cooperative = true}},
         {false, "cooperative grid of 201 blocks exceeds the 200 co-resident blocks (2 per SM × 100 SMs)"})
    t.eq(k:check{grid = 200, block = 1024, cooperative = true}, true)
  end)
end

t.run{exit = true}
