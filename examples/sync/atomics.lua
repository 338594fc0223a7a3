-- atomics.lua: one counter hammered by every thread, then warp-aggregated (one atomic per warp); a histogram in global bins against one privatized in shared memory.
-- Shows:  count_naive, count_match (__match_any_sync + __reduce_add_sync: sm_80) and
--         count_ballot (kernels_src/sync/atomics.cu) each add `iters` values per thread to
--         one u64 counter with a full grid (every SM, as many blocks as fit); then
--         hist_global and hist_shared on `n` values spread over the 256 bins, and on `n`
--         values all in one bin (the worst contention). Times from k:bench; the hardware
--         counters count the global atomic operations the L2 performed (one launch each).
-- Expect: every counter exact (threads x iters x 1.5) and both histograms exact; the
--         aggregated counts at least 16x faster than the naive one (the model: 32x fewer
--         atomics on one address, whose updates the L2 serializes; an H200: 31.9x); the
--         shared histogram faster than the global one on one bin; the counters: exactly one
--         atomic request at the L2 per thread's add (naive), per warp's add (aggregated).
-- Run:    warplab run examples/sync/atomics.lua [-p iters=200] [-p n=16777216] [-p block=256] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local sync = require "warplab.sync"
local hw = require "warplab.counters"
local p = params{iters = 200, n = 1 << 24, block = 256, reps = 5, save = false}
for _, r in ipairs{{"iters", 1, 1 << 20}, {"n", 1, 1 << 30}, {"block", 32, 1024}, {"reps", 1, 1000}} do
  if p[r[1]] < r[2] or p[r[1]] > r[3] then
    warplab.raise("parameter", string.format("params: -p %s=%d: give %d to %d", r[1], p[r[1]], r[2], r[3]), 0)
  end
end
if p.block % 32 ~= 0 then warplab.raise("parameter", "params: -p block=" .. p.block .. ": a multiple of 32", 0) end

local dev = cuda.device()
local sms = dev.attr.multiprocessor_count -- before the compile: a profile without it stops here
local m = assert(cuda.compile("sync/atomics.cu"))
local c = check.new("atomics")
local BINS, ws = 256, dev.attr.warp_size
local grid = sms * m.count_naive:occupancy{block = p.block}.blocks_per_sm
local threads = grid * p.block
local no_match = sync.needs(dev, 8, 0, "__reduce_add_sync")
local counter <close> = cuda.array("u64", 1)
local counts = {
  {"every thread (naive)", m.count_naive, nil, threads * p.iters},
  {"__match_any + __reduce_add", m.count_match, no_match, threads * p.iters // ws},
  {"ballot leader + shuffles", m.count_ballot, nil, threads * p.iters // ws},
}
local rows = {}
for i, e in ipairs(counts) do
  local ok, why = e[2]:check{grid = grid, block = p.block, args = {p.iters, counter}}
  rows[i] = {e[1], e[2].name, e[4], e[3] or (ok and "ok" or why)}
  if not e[3] then c:that(ok, e[1] .. " passes validation", ok and "" or why) end
end
report.table(rows, {title = string.format("one u64 counter, %d threads (grid %d x %d) x %d adds (%s, %s)", threads, grid,
             p.block, p.iters, dev.name, m.arch), columns = {"version", "kernel", "global atomics (model)", "validation"}})
if no_match then print(no_match) end
local claims = {"the L2's global atomic requests (lts__t_requests_srcunit_tex_op_red + _op_atom) = the model: one per "
                .. "thread's add naive, one per warp's add aggregated (" .. ws .. "x fewer)"}
if ex.offline(dev, "hammering the counter", p.save and {"results/atomics.csv"}) then
  hw.witness(claims)
  return c:summary()
end

local want = threads * p.iters * 3 // 2 -- lanes add 1 and 2 in turn
local res = {}
for _, e in ipairs(counts) do
  if not e[3] then
    local cfg = {grid = grid, block = p.block, args = {p.iters, counter}}
    counter:zero()
    e[2](cfg)
    c:eq(counter[1], want, e[1] .. ": the counter is exact")
    cfg.warmup, cfg.reps = 1, p.reps
    res[#res + 1] = {version = e[1], kernel = e[2], ms = e[2]:bench(cfg).median, model = e[4]}
  end
end
for _, r in ipairs(res) do r.speedup = res[1].ms / r.ms end
-- The histograms: n values spread over the bins (i * 7 mod 256), then all in bin 3.
local v <close> = cuda.array("u32", p.n)
local hist <close> = cuda.array("u32", BINS)
local hrows = {}
for _, data in ipairs{"spread", "one bin"} do
  if data == "spread" then v:iota(0, 7) else v:fill(3) end
  local expect = {}
  for b = 1, BINS do expect[b] = 0 end
  if data == "spread" then
    for b = 0, BINS - 1 do expect[(7 * b) % BINS + 1] = p.n // BINS end -- i * 7 visits every bin n / 256 times
  else
    expect[4] = p.n
  end
  for _, k in ipairs{m.hist_global, m.hist_shared} do
    local cfg = {grid = grid, block = p.block, shared = k == m.hist_shared and 4 * BINS or 0, args = {v, p.n, hist}}
    hist:zero()
    k(cfg)
    c:eq(hist:get(), expect, k.name .. " on " .. data .. " values: every bin exact")
    cfg.warmup, cfg.reps = 1, p.reps
    hrows[#hrows + 1] = {data, k.name, k:bench(cfg).median}
  end
end
report.table(res, {title = "one counter", columns = {"version", "ms", "speedup", "model"}, format = {ms = "%.3f", speedup = "%.1fx"}})
report.table(hrows, {title = p.n .. " values into 256 bins", columns = {"values", "kernel", "ms"}, format = {ms = "%.3f"}})
for i = 2, #res do
  c:that(res[i].speedup >= 16, res[i].version .. ": >= 16x faster than every thread's own atomic",
         string.format("%.3f vs %.3f ms: %.1fx", res[i].ms, res[1].ms, res[i].speedup))
end
c:that(hrows[4][3] < hrows[3][3], "one bin: the shared-memory histogram beats global atomics",
       string.format("%.3f vs %.3f ms", hrows[4][3], hrows[3][3]))
-- The second witness: the atomic operations the L2 performed, one launch of each count.
if hw.witness(claims) then
  local names = {"lts__t_requests_srcunit_tex_op_red.sum", "lts__t_requests_srcunit_tex_op_atom.sum"}
  local crow = hw.each(res, function(r) r.kernel{grid = grid, block = p.block, args = {p.iters, counter}} end, names)
  local ops = {}
  for i, r in ipairs(res) do
    ops[i] = crow[i][names[1]] + crow[i][names[2]]
    r.l2_atomics = ops[i]
  end
  report.table(res, {title = "counted: global atomic requests at the L2", columns = {"version", "model", "l2_atomics"}})
  for i, r in ipairs(res) do
    c:eq(ops[i], r.model, r.version .. ": the L2 counts one atomic request per " .. (i == 1 and "thread's add" or "warp's add"))
  end
end
if p.save then print("saved " .. report.save("results/atomics.csv", res, {columns = {"version", "ms", "speedup", "model"}})) end
c:summary()
