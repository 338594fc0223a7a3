-- dsmem.lua: distributed shared memory: in a thread-block cluster (sm_90), each block reads its neighbour block's shared memory.
-- Shows:  a grid launched in clusters (`cluster = n` in the launch table, cuLaunchKernelEx):
--         every block writes values naming itself into its __shared__ array, the cluster
--         synchronizes, and each block reads the array of the next block of its cluster
--         through cluster.map_shared_rank. Before that, the cluster launch rules warplab
--         checks (offline too), and on the GPU how many such clusters fit at once
--         (cuOccupancyMaxActiveClusters) and which SMs each cluster's blocks ran on.
-- Expect: every value read is the neighbour's (index << 16) + i; a block's rank in its
--         cluster is blockIdx.x mod n; a cluster of 32 (16 is the most, with the
--         non-portable opt-in), a grid that is not a multiple of the cluster, and cluster
--         with cooperative are refused with one sentence each.
-- Run:    warplab run examples/sync/dsmem.lua [-p cluster=4] [-p block=256] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local p = params{cluster = 4, block = 256, save = false}

local dev = cuda.device()
local m = assert(cuda.compile("sync/dsmem.cu"))
local k = m.dsmem_neighbour
local c = check.new("dsmem")
local WORDS = 1024 -- kDsmemWords
local sms = dev.attr.multiprocessor_count
local grid = p.cluster * 2 * math.max(1, sms // p.cluster)
print(string.format("%s: %s, %d regs, %d B shared per block; grid %d in clusters of %d (cluster_launch = %s)", dev.name,
      k.name, k.regs, k.shared_bytes, grid, p.cluster, tostring(dev.attr.cluster_launch)))
local cases = {
  {"this experiment", {grid = grid, block = p.block, cluster = p.cluster}},
  {"32 blocks", {grid = 32, block = p.block, cluster = 32}},
  {"grid not a multiple", {grid = p.cluster + 1, block = p.block, cluster = p.cluster}},
  {"with cooperative", {grid = grid, block = p.block, cluster = p.cluster, cooperative = true}},
  {"2-D cluster", {grid = {4, 4}, block = p.block, cluster = {2, 2}}},
  {"16 blocks (non-portable)", {grid = 16, block = p.block, cluster = 16}},
}
local rows, answers = {}, {}
for i, e in ipairs(cases) do
  local ok, why = k:check(e[2])
  answers[i] = ok or why
  rows[i] = {e[1], type(e[2].cluster) == "table" and table.concat(e[2].cluster, "x") or e[2].cluster,
             type(e[2].grid) == "table" and table.concat(e[2].grid, "x") or e[2].grid, ok and "accepted" or why}
end
report.table(rows, {title = "cluster launch rules (k:check, before any launch)", columns = {"case", "cluster", "grid", "answer"}})
local sm90 = tonumber(dev.cc:match("^(%d+)")) >= 9
if not sm90 then
  c:that(type(answers[1]) == "string", "this GPU has no clusters: the launch is refused", answers[1])
  print("distributed shared memory needs compute capability 9.0 (this is " .. dev.cc .. ")")
  return c:summary()
end
c:eq(answers[1], true, "the experiment's cluster launch passes validation")
c:that(type(answers[2]) == "string" and answers[2]:find("cluster 32x1x1 = 32 blocks exceeds ", 1, true) == 1,
       "a cluster of 32 is refused", answers[2])
c:that(type(answers[3]) == "string" and answers[3]:find("is not a multiple of cluster dimension x") ~= nil,
       "a grid that is not a multiple of the cluster is refused", answers[3])
c:that(type(answers[4]) == "string" and answers[4]:find("with cooperative = true is refused") ~= nil,
       "cooperative with a cluster is refused", answers[4])
if ex.offline(dev, "reading a neighbour's shared memory", p.save and {"results/dsmem_where.csv"}) then
  return c:summary()
end

local fit = k:clusters{grid = grid, block = p.block, cluster = p.cluster}
print(string.format("cuOccupancyMaxActiveClusters: %d clusters of %d blocks of %d threads fit at once (%d blocks)",
      fit, p.cluster, p.block, fit * p.cluster))
local out <close> = cuda.array("u32", grid * WORDS):zero()
local errors <close> = cuda.array("u32", 1):zero()
local where <close> = cuda.array("u32", 3 * grid):zero()
k{grid = grid, block = p.block, cluster = p.cluster, args = {out, errors, where}}
local got, w = out:get(), where:get()
local bad, ranks_ok, multi_sm, rows2 = 0, true, 0, {}
for b = 0, grid - 1 do
  local base, rank = b - b % p.cluster, b % p.cluster
  local neighbour = base + (rank + 1) % p.cluster
  for i = 0, WORDS - 1 do
    if got[b * WORDS + i + 1] ~= (neighbour << 16) + i then bad = bad + 1 end
  end
  if w[3 * b + 2] ~= rank or w[3 * b + 3] ~= p.cluster then ranks_ok = false end
end
for cl = 0, grid // p.cluster - 1 do
  local set, list = {}, {}
  for r = 0, p.cluster - 1 do
    local sm = w[3 * (cl * p.cluster + r) + 1]
    if not set[sm] then set[sm] = true; list[#list + 1] = sm end
  end
  if #list > 1 then multi_sm = multi_sm + 1 end
  if cl < 6 then rows2[#rows2 + 1] = {cl, cl * p.cluster .. ".." .. (cl + 1) * p.cluster - 1, table.concat(list, " ")} end
end
report.table(rows2, {title = "where the first clusters ran", columns = {"cluster", "blocks", "SMs"}})
print(string.format("%d of %d clusters spread over more than one SM: a block read shared memory on another SM",
      multi_sm, grid // p.cluster))
c:eq(errors[1], 0, "no block found a value it did not expect (the kernel's own count)")
c:eq(bad, 0, "every value read is the neighbour block's (index << 16) + i (checked here, " .. grid * WORDS .. " values)")
c:that(ranks_ok, "a block's rank in its cluster is blockIdx.x mod " .. p.cluster .. ", and the cluster has " .. p.cluster .. " blocks")
c:that(fit >= 1, "cuOccupancyMaxActiveClusters says at least one such cluster fits", fit .. " clusters")
if p.save then
  local save = {}
  for b = 0, grid - 1 do save[b + 1] = {b, w[3 * b + 1], w[3 * b + 2]} end
  print("saved " .. report.save("results/dsmem_where.csv", save, {columns = {"block", "sm", "rank"}}))
end
c:summary()
