-- pipeline.lua: a producer warp fills a ring of shared buffers with bulk copies while consumer warps compute, full/empty mbarriers between them: 1 to 4 stages against copy-then-compute.
-- Shows:  pipeline_tiles (kernels_src/sync/pipeline.cu) over `bytes` of u32 in `tile`-byte
--         tiles, one block per SM: warp 0 issues one cp.async.bulk per tile, `consumers`
--         warps compute `work` rounds of an integer mix per word and sum each tile. Each
--         stage count runs three ways: the copies alone, the compute alone, both: the
--         overlap is the share of the shorter half that disappeared, (copy + compute -
--         both) / min(copy, compute). `work` is calibrated (unless given) so that computing
--         a tile takes about as long as copying it. Then the same work copy-then-compute
--         with __syncthreads() (every thread loads through registers, then computes).
-- Expect: every tile's sum exact: equal to plain global loads (reference_tiles) and, for
--         two tiles, to Lua's own; no wait timed out; from two stages on the copies hide
--         behind the compute (overlap >= 50 %) and the pipeline beats one stage by >= 20 %
--         and copy-then-compute; one stage takes turns (its overlap printed).
-- Run:    warplab run examples/sync/pipeline.lua [-p tile=16384] [-p consumers=4] [-p work=0] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local mem = require "warplab.memory"
local sync = require "warplab.sync"
local p = params{tile = 16384, bytes = 512 << 20, consumers = 4, work = 0, reps = 10, save = false}
for _, r in ipairs{{"tile", 16, 1 << 20}, {"bytes", p.tile, 1 << 40}, {"consumers", 1, 31}, {"work", 0, 1 << 20}, {"reps", 1, 1000}} do
  if p[r[1]] < r[2] or p[r[1]] > r[3] then
    warplab.raise("parameter", string.format("params: -p %s=%d: give %d to %d", r[1], p[r[1]], r[2], r[3]), 0)
  end
end
if p.tile % 16 ~= 0 then warplab.raise("parameter", "params: -p tile=" .. p.tile .. ": a multiple of 16 bytes", 0) end

local dev = cuda.device()
local sms = dev.attr.multiprocessor_count -- before the compile: a profile without it stops here
local m = assert(cuda.compile("sync/pipeline.cu"))
local c = check.new("pipeline")
local tiles = p.bytes // p.tile
local block = 32 * (1 + p.consumers)
local STAGES = {1, 2, 3, 4}
local needs = sync.needs(dev, 9, 0, "bulk copies and mbarrier transaction counts")
local x <close> = cuda.array("u32", tiles * p.tile // 4)
local out <close> = cuda.array("u32", tiles)
local status <close> = cuda.array("u32", 1)
local function pipe(s, work, mode)
  return {grid = sms, block = block, shared = s * p.tile + 1024, args = {x, tiles, p.tile, s, work, mode, out, status}}
end
local base = {grid = sms, block = block, shared = p.tile, args = {x, tiles, p.tile, 1, out}}
local prow = {}
for _, s in ipairs(STAGES) do
  local ok, why = m.pipeline_tiles:check(pipe(s, 1, 0))
  prow[#prow + 1] = {"pipeline, " .. s .. " stage" .. (s > 1 and "s" or ""), mem.bytes_name(s * p.tile + 1024), needs or (ok and "ok" or why),
                     s == 1 and "copy + compute (they take turns)" or "max(copy, compute)"}
  if not needs then c:that(ok, s .. " stages pass validation", ok and "" or why) end
end
local ok, why = m.copy_then_compute:check(base)
prow[#prow + 1] = {"copy then compute", mem.bytes_name(p.tile), ok and "ok" or why, "copy through registers + compute"}
c:that(ok, "copy-then-compute passes validation", ok and "" or why)
report.table(prow, {title = string.format("%s in %d tiles of %s, %d blocks of 1 producer + %d consumer warps (%s, %s)",
             mem.bytes_name(p.bytes), tiles, mem.bytes_name(p.tile), sms, p.consumers, dev.name, m.arch),
             columns = {"version", "shared per block", "validation", "predicted time"}})
if needs then print(needs .. "; copy-then-compute alone could run here") end
if ex.offline(dev, "running the pipeline", p.save and {"results/pipeline.csv"}) or needs then return c:summary() end

x:iota(12345)
local function ms(cfg, k)
  cfg.warmup, cfg.reps = 1, p.reps
  return (k or m.pipeline_tiles):bench(cfg).median
end
-- work: the smallest power of two whose compute alone takes as long as the copies alone.
local copy_ms, work = ms(pipe(2, 1, 1)), p.work
if work == 0 then
  work = 1
  while work < 4096 and ms(pipe(2, work, 2)) < copy_ms do work = work * 2 end
end
base.args[4] = work
-- The reference, and two tiles by Lua's own arithmetic.
out:zero()
m.reference_tiles{grid = sms * 8, block = 256, args = {x, tiles, p.tile, work, out}}
local ref = out:get()
local words = p.tile // 4
for _, t in ipairs{1, tiles} do
  local s = 0
  for i = 0, words - 1 do
    local w = (12345 + (t - 1) * words + i) & 0xffffffff
    for _ = 1, work do w = (w * 1664525 + 1013904223) & 0xffffffff end
    s = (s + w) & 0xffffffff
  end
  c:eq(ref[t], s, "reference_tiles: tile " .. t .. " equals Lua's sum")
end
local function exact(cfg, k, what)
  out:zero(); status:zero()
  k(cfg)
  c:eq(out:get(), ref, what .. ": every tile's sum equals the reference")
  if k == m.pipeline_tiles then c:eq(status[1], 0, what .. ": no wait timed out") end
end
local res = {}
for _, s in ipairs(STAGES) do
  exact(pipe(s, work, 0), m.pipeline_tiles, s .. " stages")
  local r = {version = s .. (s > 1 and " stages" or " stage"), copy = ms(pipe(s, work, 1)), compute = ms(pipe(s, work, 2)), both = ms(pipe(s, work, 0))}
  r.overlap = (r.copy + r.compute - r.both) / math.min(r.copy, r.compute)
  res[#res + 1] = r
end
exact(base, m.copy_then_compute, "copy then compute")
local ctc = ms(base, m.copy_then_compute)
res[#res + 1] = {version = "copy then compute", both = ctc}
report.table(res, {title = string.format("ms per pass, work = %d rounds per word (%s)", work,
             p.work == 0 and "calibrated: the least whose compute alone takes as long as the copies" or "given"), columns = {"version", "copy", "compute", "both", "overlap"},
             format = {copy = "%.3f", compute = "%.3f", both = "%.3f", overlap = function(v) return string.format("%.0f %%", 100 * v) end}})
local best = math.huge
for i = 2, #STAGES do
  local r = res[i]
  best = math.min(best, r.both)
  c:that(r.overlap >= 0.5, r.version .. ": the copies hide behind the compute (overlap >= 50 %)",
         string.format("copy %.3f + compute %.3f, both %.3f ms: %.0f %%", r.copy, r.compute, r.both, 100 * r.overlap))
end
c:that(res[2].both <= 0.8 * res[1].both, "2 stages beat 1 stage by >= 20 %", string.format("%.3f vs %.3f ms", res[2].both, res[1].both))
c:that(best < ctc, "the pipeline beats copy-then-compute", string.format("best %.3f vs %.3f ms", best, ctc))
print(string.format("1 stage: overlap %.0f %% (copy and compute take turns in each block; other blocks' copies still overlap)",
      100 * res[1].overlap))
if p.save then print("saved " .. report.save("results/pipeline.csv", res, {columns = {"version", "copy", "compute", "both", "overlap"}})) end
c:summary()
