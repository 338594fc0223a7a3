-- ladder.lua: the reduction ladder, from a divergent shared-memory tree to one pass at the speed of reading memory.
-- Shows:  every version (kernels_src/reductions/ladder.cu, grid.cu, single_pass.cu) sums
--         the same random floats in [0, 1) at n = 1, 31, 32, 33, 1000, 2^20 + 7 (also
--         from x[2], off 16-byte alignment), 2^24 and 2^28, and all ones; the u32 version
--         random integers. Then each is timed on 2^28 elements next to a streaming read
--         and a device-to-device copy measured in the same run.
-- Expect: float versions within gamma(L) * sum|x| of the double sum (L: the most
--         roundings on one element's path; docs/experiments-reductions.md) and exactly
--         n on all ones up to 2^24; atomics only stall at exactly 2^24 on 2^28 elements
--         (beyond that, adding x < 1 rounds away); u32 sums exact. The best version
--         reads at >= 90 % of the streaming read's GB/s. Hardware counters: bank conflicts
--         in the strided-index tree, next to none in the sequential one; the one-launch versions
--         read 4n bytes from DRAM, the best at >= 80 % of DRAM peak; barrier stalls per version.
--         At the line: the strided tree's add is at least 2-way, the sequential tree's 1-way.
-- Run:    warplab run examples/reductions/ladder.lua [-p block=256] [-p grid=0] [-p unroll=4] [-p acc=0] [-p load=3] [-p layout=0|1|2] [-p reps=20] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local progress = require "warplab.progress"
local ex = require "warplab.experiment"
local reduce = require "warplab.reduce"
local bw = require "warplab.bandwidth"
local hw = require "warplab.counters"
local lw = require "warplab.lines"
local p = params{block = 256, grid = 0, unroll = 4, acc = 0, load = 3, min_blocks = 0, layout = 1, n = 1 << 28, reps = 20,
                 lua_max = 1 << 24, seed = 1, save = false}

local dev = cuda.device()
local r = reduce.runner{block = p.block, grid = p.grid, unroll = p.unroll, acc = p.acc, load = p.load,
                        min_blocks = p.min_blocks, layout = p.layout}
local top = reduce.SIZES[#reduce.SIZES]
local rows = {}
for i, v in ipairs(reduce.versions) do
  local k, b = r:kernel(v), v.block or p.block
  local occ = k:occupancy{block = b, shared = v.dyn and 4 * b or 0}
  local L = r:levels(v, top)
  rows[i] = {v.name, v.what, k.regs, k.shared_bytes + (v.dyn and 4 * b or 0), occ.blocks_per_sm,
             string.format("%.0f %%", 100 * occ.occupancy), L or "exact",
             L and (reduce.gamma(L) < 1 and string.format("%.1e", reduce.gamma(L)) or "none") or "-"}
end
local vcols = {"version", "idea", "regs", "shared B", "blocks/SM", "occupancy", "L", "gamma(L)"}
report.table(rows, {title = "the versions on " .. dev.name .. " (block " .. p.block .. "); L and gamma(L) at n = "
                    .. reduce.size_name(top), columns = vcols})
print(string.format("grid-stride versions: %d blocks (%d SMs x %d resident), %d float4 loads in flight per "
                    .. "thread; cooperative grid: %d blocks", r.grid, dev.attr.multiprocessor_count,
                    r.resident // dev.attr.multiprocessor_count, p.unroll, r.coop_grid))
if p.save then print("saved " .. report.save("results/ladder_versions.csv", rows, {columns = vcols})) end
local claims = {"strided index: >= 0.5 shared bank conflicts per shared request; sequential: <= 0.02",
                "vec4 grid-stride and the single-pass versions: DRAM bytes read = 4n (less at most the L2's size), the best at >= 80 % "
                .. "of DRAM peak; warp shuffle: a smaller barrier stall share than sequential's"}
local lclaims = {"the strided tree's line (s[k] += s[k + d]) at least 2-way: shared wavefronts / their ideal; the "
                 .. "sequential tree's (s[tid] += s[tid + d]) 1-way (within 1 %)"}
if ex.offline(dev, "summing and timing", p.save and {"results/ladder.svg", "results/ladder.csv",
              "results/ladder_check.json"}) then
  hw.witness(claims)
  lw.witness(lclaims)
  return
end

-- The cases: every size from x[1], and 2^20 + 7 from x[2] (off 16-byte alignment).
local cases, lua_ok, lua_u_ok, lua_n = {}, true, true, 0
for _, n in ipairs(reduce.SIZES) do cases[#cases + 1] = {n = n, first = 1, name = reduce.size_name(n)} end
cases[#cases + 1] = {n = (1 << 20) + 7, first = 2, name = "2^20 + 7 at x[2]"}
local maxn = p.n
for _, cs in ipairs(cases) do maxn = math.max(maxn, cs.first - 1 + cs.n) end
r:alloc(maxn)
local x <close> = cuda.array("f32", maxn):random{seed = p.seed}
local xu <close> = cuda.array("u32", maxn):random{seed = p.seed, lo = 0, hi = 65535}
local ones <close> = cuda.array("f32", 1 << 24):fill(1)
local c = check.new("ladder")

-- Double and integer references (GPU), checked against Lua's own sums.
for _, cs in ipairs(cases) do
  cs.ref = r:reference(x:view(cs.first, cs.n), cs.n)
  cs.refu = r:reference_u64(xu:view(cs.first, cs.n), cs.n)
  if cs.n <= p.lua_max then
    local l = reduce.lua_sum(x:view(cs.first, cs.n):get())
    lua_ok = lua_ok and math.abs(l.sum - cs.ref.sum) <= l.err + cs.ref.err
    lua_u_ok = lua_u_ok and reduce.lua_sum(xu:view(cs.first, cs.n):get()).sum == cs.refu
    lua_n = math.max(lua_n, cs.n)
  end
end
c:that(lua_ok, "the double reference (sum_f64) agrees with Lua's double sum within both bounds",
       "every case up to n = " .. reduce.size_name(lua_n))
c:that(lua_u_ok, "the integer reference (sum_u64) equals Lua's integer sum", "every case up to n = " .. reduce.size_name(lua_n))

-- Every version on every case: err / bound on random data, exact on ones.
local matrix, bar = {}, progress.new(#reduce.versions * #cases, "sums")
for vi, v in ipairs(reduce.versions) do
  local row, worst, bad, stall = {v.name}, 0, {}, nil
  for ci, cs in ipairs(cases) do
    local cell
    if v.kind == "int" then
      local s = r:sum(v, xu:view(cs.first, cs.n), cs.n)
      cell = s == cs.refu and "exact" or "WRONG"
      if s ~= cs.refu then bad[#bad + 1] = cs.name end
    else
      local s = r:sum(v, x:view(cs.first, cs.n), cs.n)
      local bound = r:bound(v, cs.n, cs.ref.abs)
      local err = math.abs(s - cs.ref.sum)
      if bound == math.huge then -- atomics beyond 2^24 additions: no bound, the stall instead
        cell = string.format("%.1e rel", err / cs.ref.sum)
        if cs.ref.sum >= 4 * 2 ^ 24 then stall = {s = s, name = cs.name} end
      else
        local q = err / (bound + cs.ref.err)
        cell, worst = string.format("%.3f", q), math.max(worst, q)
        if q > 1 then bad[#bad + 1] = cs.name end
      end
      if cs.n <= #ones - cs.first + 1 and r:sum(v, ones:view(cs.first, cs.n), cs.n) ~= cs.n then
        cell = cell .. " ONES!"
        bad[#bad + 1] = cs.name .. " (ones)"
      end
    end
    row[ci + 1] = cell
    bar:step()
  end
  matrix[vi] = row
  local what = v.kind == "int" and "exactly the integer sum at every n"
               or "within its bound at every n, and exactly n on all ones"
  c:that(#bad == 0, v.name .. ": " .. what, #bad > 0 and ("fails at " .. table.concat(bad, ", "))
         or (v.kind == "int" and "" or string.format("worst error / bound %.3g", worst)))
  if stall then
    c:eq(stall.s, 2.0 ^ 24, v.name .. " at " .. stall.name .. ": the running float sum stalls at 2^24")
  end
end
bar:done()
local ccols = {"version"}
for _, cs in ipairs(cases) do ccols[#ccols + 1] = cs.name end
report.table(matrix, {title = "|error| / bound per n (<= 1 passes; ints: exact or WRONG; atomics past 2^24 "
                      .. "additions: relative error, no bound)", columns = ccols})

-- Timing at n = p.n, against the bandwidth measured now.
local m = bw.measure(x:view(1, p.n), {reps = p.reps})
local trows, prev, first, best, tbar = {}, nil, nil, 0, progress.new(#reduce.versions, "timing")
for i, v in ipairs(reduce.versions) do
  local xin = v.kind == "int" and xu:view(1, p.n) or x:view(1, p.n)
  local st = cuda.bench(function() r:launch(v, xin, p.n) end,
                        {warmup = 2, reps = v.kind == "atomic" and 3 or p.reps})
  local gbs = bw.gbs(4 * p.n, st.median)
  if not v.extra then
    best = math.max(best, gbs)
    first = first or st.median
  end
  trows[i] = {v.extra and "" or i, v.name, st.median, gbs, bw.pct(gbs, m.read.gbs), bw.pct(gbs, m.copy.gbs),
              (not v.extra and prev) and string.format("%.2f x", prev / st.median) or "",
              v.extra and "" or string.format("%.1f x", first / st.median)}
  if not v.extra then prev = st.median end
  tbar:step()
end
tbar:done()
local tcols = {"step", "version", "ms", "GB/s", "% of read", "% of copy", "vs step before", "vs step 1"}
report.table(trows, {title = string.format("n = %s floats (%d MiB): streaming read %.0f GB/s, device-to-device "
                     .. "copy %.0f GB/s (read + write)", reduce.size_name(p.n), 4 * p.n >> 20, m.read.gbs,
                     m.copy.gbs), columns = tcols, format = {ms = "%.3f", ["GB/s"] = "%.0f"}})
c:that(best >= 0.9 * m.read.gbs, "the best version reads at >= 90 % of the streaming read's bandwidth",
       string.format("%.0f GB/s of %.0f", best, m.read.gbs))
-- The second witness: each version's first pass at n = p.n once more, counted (the
-- cooperative one apart: a failure to count it is printed, not fatal).
if hw.witness(claims) then
  local names = {"shared_ld_conflicts", "shared_st_conflicts", "shared_ld_requests", "shared_st_requests",
                 "stall_barrier", "dram_peak_pct", "dram_read_bytes"}
  local vs, coop = {}, nil
  for _, v in ipairs(reduce.versions) do
    if v.kind == "coop" then coop = v elseif not v.extra then vs[#vs + 1] = v end
  end
  local function first(v) r:first_pass(v, x:view(1, p.n), p.n) end
  local rows = hw.each(vs, first, names)
  local ok, crow = pcall(hw.each, {coop}, first, names)
  if ok then vs[#vs + 1], rows[#vs + 1] = coop, crow[1] else print("counters of " .. coop.name .. ": " .. crow) end
  -- The L2 may still hold up to its size of x from the run before: that much less from DRAM.
  local lo = 1 - dev.attr.l2_cache_size / (4 * p.n) - 0.01
  local hrows, by, best_dram, wrong_bytes = {}, {}, 0, {}
  for i, v in ipairs(vs) do
    local w = rows[i]
    w.conflicts, w.requests = w.shared_ld_conflicts + w.shared_st_conflicts, w.shared_ld_requests + w.shared_st_requests
    by[v.kernel], w.bytes = w, w.dram_read_bytes / (4 * p.n)
    hrows[i] = {v.name, w.requests > 0 and w.conflicts / w.requests or 0, w.stall_barrier, w.dram_peak_pct, w.bytes}
    if v.kind ~= "tree" then
      best_dram = math.max(best_dram, w.dram_peak_pct)
      if w.bytes < lo or w.bytes > 1.02 then wrong_bytes[#wrong_bytes + 1] = string.format("%s %.3f", v.name, w.bytes) end
    end
  end
  report.table(hrows, {title = "hardware counters, first pass at n = " .. reduce.size_name(p.n), columns = {"version",
               "bank conflicts/request", "barrier stall %", "DRAM % of peak", "DRAM bytes / 4n"},
               format = {["bank conflicts/request"] = "%.2f", ["barrier stall %"] = "%.1f", ["DRAM % of peak"] = "%.1f",
                         ["DRAM bytes / 4n"] = "%.3f"}})
  local st, sq = by.reduce_strided, by.reduce_sequential
  c:that(st.conflicts >= 0.5 * st.requests, "strided index: bank conflicts (>= 0.5 per shared request)",
         string.format("%d conflicts in %d requests", st.conflicts, st.requests))
  c:that(sq.conflicts <= 0.02 * sq.requests, "sequential addressing: next to no bank conflict (<= 0.02 per shared "
         .. "request)", string.format("%d conflicts in %d requests: %.4f", sq.conflicts, sq.requests,
         sq.requests > 0 and sq.conflicts / sq.requests or 0))
  c:that(#wrong_bytes == 0, string.format("the one-launch versions read 4n bytes from DRAM (%.3f..1.02 x: the L2 may "
         .. "hold some of x)", lo), table.concat(wrong_bytes, ", "))
  c:within(best_dram, 80, 100, "the best of them reads at >= 80 % of DRAM peak")
  c:that(by.reduce_shuffle.stall_barrier < sq.stall_barrier, "warp shuffle (one barrier) stalls at barriers less "
         .. "than sequential (one per level)", string.format("%.1f %% vs %.1f %%", by.reduce_shuffle.stall_barrier,
         sq.stall_barrier))
end
-- The third witness, at the line: both trees' first pass at 2^20 once more, collected by line.
if lw.witness(lclaims) then
  local tree = {}
  for _, v in ipairs(reduce.versions) do tree[v.kernel] = v end
  local rows = cuda.lines(function()
    for _, kn in ipairs{"reduce_strided", "reduce_sequential"} do r:first_pass(tree[kn], x:view(1, 1 << 20), 1 << 20) end
  end, "shared")
  local st, sq = lw.find(rows, "s[k] += s[k + d]", "reduce_strided"), lw.find(rows, "s[tid] += s[tid + d]", "reduce_sequential")
  c:that(st and st.shared_way >= 2, "strided index: its tree's add is at least 2-way at its line",
         st and string.format("%.2f-way", st.shared_way) or "no such line counted")
  c:near(sq and sq.shared_way or 0, 1, 0.01, "sequential addressing: its tree's add is 1-way at its line")
end
if p.save then
  local barsv = {}
  for i, t in ipairs(trows) do barsv[i] = {label = t[2], value = t[4]} end
  print("saved " .. report.svg_bars(barsv, "results/ladder.svg", {title = "sum of " .. reduce.size_name(p.n)
        .. " floats on " .. dev.name, xlabel = "GB/s", format = "%.0f", lines = {
        {label = "streaming read", value = m.read.gbs}, {label = "d2d copy (r + w)", value = m.copy.gbs}}}))
  print("saved " .. report.save("results/ladder.csv", trows, {columns = tcols}))
  print("saved " .. report.save("results/ladder_check.json", matrix, {columns = ccols}))
end
c:summary()
