-- api_cluster.lua: thread-block clusters in the launch table (`cluster = {x, y, z}` or a
-- number). k:check answers false with one sentence for each rule (a zero dimension, more
-- blocks than a cluster can hold: 16 offline with the non-portable opt-in, the driver's
-- figure live; a grid that is not a multiple of the cluster, cooperative with a cluster)
-- and true inside them; a launch raises the same sentence with the kernel and the script
-- line; misuse of the field raises. A kernel's compile-time cluster (__cluster_dims__)
-- is checked the same way without cluster =. k:clusters{...} needs a GPU. Live (sm_90), a
-- cluster launch runs and each block reads its rank in the cluster, in clusters given at
-- launch, of 16 blocks (opted in), and of the compile-time size.
-- profile: h100
local t = require "warplab.test"

local THIS = debug.getinfo(1, "S").source:sub(2)
local dev = cuda.device()
local m = assert(cuda.compile{source = [[
__global__ void ranks(unsigned* out) {
  unsigned rank = 0, size = 1;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
#endif
  if (threadIdx.x == 0) { out[2 * blockIdx.x] = rank; out[2 * blockIdx.x + 1] = size; }
}
]]})
local k = m.ranks

local function refuses(cfg, why)
  local ok, msg = k:check(cfg)
  t.eq({ok, msg}, {false, why})
end
local function accepts(cfg)
  t.eq({k:check(cfg)}, {true})
end
-- More blocks than a cluster can hold: offline the sentence names 16, the most compute
-- capability 9.0 can take; live the driver's figure (cuOccupancyMaxPotentialClusterSize).
local TOO_BIG = dev.live and " blocks exceeds " or (" blocks exceeds 16, the most blocks a cluster can hold (8 "
                .. "portable, up to 16 with the non-portable opt-in where the device allows it)")
local function too_big(cfg, head)
  local ok, msg = k:check(cfg)
  t.eq(ok, false)
  assert(msg:find(head .. TOO_BIG, 1, true) == 1, msg)
end

t.case("clusters inside the rules are accepted", function()
  accepts{grid = 8, block = 256, cluster = 2}
  accepts{grid = {8, 4}, block = 128, cluster = {2, 2}}
  accepts{grid = {16, 1, 1}, block = 32, cluster = {8, 1, 1}}
  accepts{grid = {4, 4, 2}, block = 32, cluster = {2, 2, 2}}
  accepts{grid = 9, block = 64, cluster = 3}
  accepts{grid = 8, block = 256, cluster = 1}
end)

t.case("a zero dimension", function()
  refuses({grid = 8, block = 256, cluster = 0},
          "cluster 0x1x1 has a zero dimension: each of x, y, z must be at least 1")
  refuses({grid = 8, block = 256, cluster = {2, 0}},
          "cluster 2x0x1 has a zero dimension: each of x, y, z must be at least 1")
end)

t.case("the size: 8 portable, 16 with the non-portable opt-in, never more", function()
  too_big({grid = 32, block = 256, cluster = 32}, "cluster 32x1x1 = 32")
  too_big({grid = {6, 6}, block = 256, cluster = {6, 3}}, "cluster 6x3x1 = 18")
  if not dev.live then  -- live, the driver says how many of these blocks a cluster may hold
    accepts{grid = 16, block = 256, cluster = 16}
    accepts{grid = {6, 6}, block = 256, cluster = {3, 3}}
    accepts{grid = {4, 4, 4}, block = 32, cluster = {2, 2, 4}}
  end
end)

t.case("the grid is a multiple of the cluster in each dimension", function()
  refuses({grid = 10, block = 256, cluster = 4},
          "grid dimension x = 10 is not a multiple of cluster dimension x = 4")
  refuses({grid = 2, block = 256, cluster = 4},
          "grid dimension x = 2 is not a multiple of cluster dimension x = 4")
  refuses({grid = {8, 3}, block = 256, cluster = {2, 2}},
          "grid dimension y = 3 is not a multiple of cluster dimension y = 2")
end)

t.case("cooperative and cluster together are refused", function()
  refuses({grid = 8, block = 256, cluster = 2, cooperative = true},
          "cluster 2x1x1 with cooperative = true is refused: warplab launches a grid either in "
          .. "clusters or cooperatively, not both")
  accepts{grid = 8, block = 256, cooperative = true}
end)

t.case("block rules come before cluster rules", function()
  refuses({grid = 10, block = 2048, cluster = 16}, "block dimension x = 2048 exceeds max_block_dim_x = 1024")
end)

t.case("a launch raises the sentence with the kernel's name and the script line", function()
  local line = debug.getinfo(1, "l").currentline
  local msg = t.checkerror("ranks: grid dimension x = 10 is not a multiple of cluster dimension x = 4",
                           function() k{grid = 10, block = 32, cluster = 4, args = {nil}} end)
  assert(msg:find(THIS .. ":" .. (line + 2) .. ": ranks: grid", 1, true), msg)
  t.checkerror("ranks: cluster 32x1x1 = 32" .. TOO_BIG,
               function() k:bench{grid = 32, block = 32, cluster = 32, args = {nil}} end)
end)

t.case("misuse of cluster = raises", function()
  t.checkerror("cluster must be an integer >= 0 or a list of 1 to 3 of them (got -1)",
               k.check, k, {grid = 8, block = 32, cluster = -1})
  t.checkerror("cluster must have 1 to 3 dimensions, got 4", k.check, k,
               {grid = 8, block = 32, cluster = {1, 1, 1, 1}})
  t.checkerror("cluster must be an integer >= 0 or a list of 1 to 3 of them (got two)",
               k.check, k, {grid = 8, block = 32, cluster = "two"})
  t.checkerror("clusters: the launch table needs cluster =", k.clusters, k, {grid = 8, block = 32})
end)

if not dev.live then
  t.case("offline: k:clusters needs a GPU, a broken rule comes first", function()
    local n, why = k:clusters{grid = 8, block = 256, cluster = 2}
    t.eq(n, nil)
    assert(why:find("^cuOccupancyMaxActiveClusters needs a GPU %(working from profile 'h100'%)"), why)
    t.eq({k:clusters{grid = 32, block = 256, cluster = 32}}, {nil, "cluster 32x1x1 = 32" .. TOO_BIG})
  end)
else
  t.case("live: the driver's cluster count, and a cluster launch", function()
    local n = k:clusters{grid = 8, block = 256, cluster = 2}
    assert(math.type(n) == "integer" and n >= 1, "max active clusters of 2: " .. tostring(n))
    local out <close> = cuda.array("u32", 2 * 8):zero()
    k{grid = 8, block = 32, cluster = 4, args = {out}}
    t.eq(out:get(), {0, 4, 1, 4, 2, 4, 3, 4, 0, 4, 1, 4, 2, 4, 3, 4})
    k{grid = 8, block = 32, args = {out}}  -- without a cluster every block is its own
    t.eq(out:get(), {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1})
  end)
end

-- The compile-time cluster: read from the PTX (.reqnctapercluster), checked without
-- cluster =, a different cluster = refused, never a raw driver error.
local fixed = assert(cuda.compile{source = [[
__global__ void __cluster_dims__(2, 1, 1) ranks2(unsigned* out) {
  unsigned rank = 0, size = 1;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
#endif
  if (threadIdx.x == 0) { out[2 * blockIdx.x] = rank; out[2 * blockIdx.x + 1] = size; }
}
]]}).ranks2

t.case("a compile-time cluster is checked without cluster =", function()
  t.eq({fixed:check{grid = 9, block = 32}},
       {false, "grid dimension x = 9 is not a multiple of compile-time cluster dimension x = 2"})
  t.eq({fixed:check{grid = 8, block = 32, cluster = 4}},
       {false, "cluster 4x1x1 conflicts with the kernel's compile-time cluster 2x1x1 (__cluster_dims__): "
               .. "leave cluster out, or give 2x1x1"})
  t.eq({fixed:check{grid = 8, block = 32}}, {true})
  t.eq({fixed:check{grid = 8, block = 32, cluster = 2}}, {true})
  local msg = t.checkerror("ranks2: grid dimension x = 9 is not a multiple of compile-time cluster dimension x = 2",
                           function() fixed{grid = 9, block = 32, args = {nil}} end)
  assert(not msg:find("CUDA_ERROR", 1, true), msg)
  msg = t.checkerror("ranks2: cluster 4x1x1 conflicts", function() fixed{grid = 8, block = 32, cluster = 4, args = {nil}} end)
  assert(not msg:find("CUDA_ERROR", 1, true), msg)
end)

if dev.live then
  t.case("live: compile-time clusters run, and 16-block clusters with the opt-in", function()
    local out <close> = cuda.array("u32", 2 * 8):zero()
    fixed{grid = 8, block = 32, args = {out}}
    t.eq(out:get(), {0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2})
    fixed{grid = 8, block = 32, cluster = 2, args = {out:zero()}}
    t.eq(out:get(), {0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2})
    t.eq(fixed:clusters{grid = 8, block = 32} >= 1, true)
    local ok, why = k:check{grid = 16, block = 32, cluster = 16}
    if ok then  -- the device forms 16-block clusters (an H100 does): one runs
      local big <close> = cuda.array("u32", 2 * 16):zero()
      k{grid = 16, block = 32, cluster = 16, args = {big}}
      local got = big:get()
      for b = 0, 15 do t.eq({got[2 * b + 1], got[2 * b + 2]}, {b, 16}) end
    else
      assert(why:find("cluster 16x1x1 = 16 blocks exceeds ", 1, true) == 1, why)
    end
  end)
end

t.run{exit = true}
