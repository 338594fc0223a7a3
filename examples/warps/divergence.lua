-- divergence.lua: an if/else that splits the lanes of a warp costs both paths; one that
-- splits whole warps costs each warp only its own path.
-- Shows:  clock64 cycles per warp for path A alone, path B alone, even lanes A / odd lanes B,
--         and even warps A / odd warps B; then the per-lane trace of both splits.
-- Expect: lane split = T(A) + T(B) and warp split = T(own path), each within 25 % (the
--         paths are balanced first, so the two outcomes differ by a factor 2); in the
--         trace the two sides carry disjoint lane masks and J, after __syncwarp, all 32.
--         The hardware counters agree: threads per instruction halve for the lane split
--         (16 of 32) and not for the warp split (32), whose branches never diverge; and at
--         the line: path A's FMA line runs 16 lanes per instruction, the if a divergent branch.
-- Run:    warplab run examples/warps/divergence.lua   (-p iters=8192 -p reps=5 -p save=true)
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local stats = require "warplab.stats"
local trace = require "warplab.trace"
local hw = require "warplab.counters"
local lw = require "warplab.lines"
local p = params{iters = 8192, reps = 5, tol = 0.25, save = false}

local dev = cuda.device()
print(dev)
local m = assert(cuda.compile{file = "warps/divergence.cu", lineinfo = true}) -- lineinfo: the per-line witness
local k = m.divergence
print(k)
local c = check.new("divergence")

-- The PTX must keep the two paths as separate loops (path A's FMAs multiply by a
-- constant, path B's square): then the if/else is a real branch, not predicated or merged.
local body = m.ptx:match("%.entry _Z10divergence[%w_]*%s*%b()%s*(%b{})")
local lines, at, kinds = {}, {}, {}
for line in body:gmatch("[^\n]+") do
  lines[#lines + 1] = line
  local label = line:match("^(%$[%w_]+):")
  if label then at[label] = #lines end
end
for i, line in ipairs(lines) do
  local target = line:match("bra[%.%w]*%s+(%$[%w_]+);")
  if target and at[target] and at[target] < i then -- a backward branch closes a loop
    local a, b = 0, 0
    for j = at[target], i do
      local x, y = lines[j]:match("fma%.rn%.f32%s+%%f%d+,%s*(%%f%d+),%s*([%%%w]+)")  -- y: a register or an immediate
      if x then if x == y then b = b + 1 else a = a + 1 end end
    end
    if a > 0 and b == 0 then kinds.A = (kinds.A or 0) + 1 end
    if b > 0 and a == 0 then kinds.B = (kinds.B or 0) + 1 end
  end
end
c:that(kinds.A and kinds.B, "the PTX keeps path A and path B as separate loops",
       string.format("%d loop(s) of A's FMAs, %d of B's", kinds.A or 0, kinds.B or 0))

print(string.format("plan: one block of 4 warps (one per scheduler); %d iterations x 8 FMA chains"
                    .. " per path; modes all-A, all-B, lane split, warp split; best of %d",
                    p.iters, p.reps))
local claims = {"threads_per_instruction: half a warp (within 5 %) for the lane split, a whole warp (within 2 %) for "
                .. "the warp split and for all lanes on path A",
                "divergent_branches: at least one per warp for the lane split, none for the warp split; "
                .. "branch_efficiency 100 % for the warp split, below it for the lane split"}
local lclaims = {"path A's FMA line (f[c] = fmaf(f[c], 0.9999f, 0.5f)): 16 lanes per warp instruction for the lane "
                 .. "split, 32 for the warp split; the line `if (take_a)`: a divergent branch per warp for the lane "
                 .. "split, none for the warp split"}
if not dev.live then
  print("no GPU here (" .. dev.source .. "): the kernels compiled; timing and tracing need one")
  hw.witness(claims)
  lw.witness(lclaims)
  require("warplab.experiment").skipped(p.save and {"results/divergence.csv", "results/divergence_trace.svg"})
  return c:summary()
end

local ws = dev.attr.warp_size
local WARPS = 4
local block = WARPS * ws
local cycles <close> = cuda.array("u64", block)
local sink <close> = cuda.array("u32", block)
-- Cycles per warp: the slowest lane of the warp, the best of `reps` launches (the first
-- launch also pays instruction-cache misses).
local function measure(mode, ia, ib)
  local best = {}
  for _ = 1, p.reps do
    k:launch(1, block, mode, ia, ib, cycles, sink, nil)
    local cyc = cycles:get()
    for w = 1, WARPS do
      local worst = 0
      for l = 1, ws do worst = math.max(worst, cyc[(w - 1) * ws + l]) end
      best[w] = math.min(best[w] or math.huge, worst)
    end
  end
  return best
end

-- Balance the paths: scale B's trip count by the measured cost ratio, so the lane
-- split (A + B) and the warp split (A or B) differ by a factor 2.
local ta, tb = measure(0, p.iters, p.iters), measure(1, p.iters, p.iters)
local iters_b = math.max(1, math.floor(p.iters * stats.median(ta) / stats.median(tb) + 0.5))
local A, B = measure(0, p.iters, iters_b), measure(1, p.iters, iters_b)
local L, W = measure(2, p.iters, iters_b), measure(3, p.iters, iters_b)
local rows = {}
for w = 1, WARPS do
  local own = (w % 2 == 1) and A[w] or B[w]
  rows[w] = {warp = w - 1, A = A[w], B = B[w], lane_split = L[w], lane_ratio = L[w] / (A[w] + B[w]),
             warp_split = W[w], own = (w % 2 == 1) and "A" or "B", warp_ratio = W[w] / own}
  c:near(L[w], A[w] + B[w], p.tol, string.format("warp %d, lanes split: cycles = T(A) + T(B)", w - 1))
  c:near(W[w], own, p.tol,
         string.format("warp %d, warps split: cycles = T(%s) alone", w - 1, rows[w].own))
end
print(string.format("path B runs %d iterations to cost what A's %d do", iters_b, p.iters))
report.table(rows, {title = "clock64 cycles per warp (slowest lane, best of " .. p.reps .. ")",
                    columns = {"warp", "A", "B", "lane_split", "lane_ratio", "warp_split", "own",
                               "warp_ratio"},
                    format = {lane_ratio = "%.2f", warp_ratio = "%.2f"}})
print("lane_ratio = lane split / (T(A) + T(B)); warp_ratio = warp split / T(own path): both ~1")

-- The second witness: all A, the lane split and the warp split once more, counted. Most
-- instructions are the paths' loops, so threads per instruction follow the lanes on each
-- path; branch efficiency moves less (each loop's own branches stay uniform).
if hw.witness(claims) then
  local modes = {{0, "all lanes on path A"}, {2, "lanes split"}, {3, "warps split"}}
  local rows = hw.each(modes, function(m) k:launch(1, block, m[1], p.iters, iters_b, cycles, sink, nil) end,
                       {"threads_per_instruction", "branch_efficiency", "divergent_branches"})
  local all, lane, warp = rows[1], rows[2], rows[3]
  report.table({{modes[1][2], all.threads_per_instruction, all.branch_efficiency, all.divergent_branches},
                {modes[2][2], lane.threads_per_instruction, lane.branch_efficiency, lane.divergent_branches},
                {modes[3][2], warp.threads_per_instruction, warp.branch_efficiency, warp.divergent_branches}},
               {title = "hardware counters", columns = {"launch", "threads/instruction", "branch efficiency %",
                "divergent branches"}, format = {["threads/instruction"] = "%.2f", ["branch efficiency %"] = "%.2f"}})
  c:near(all.threads_per_instruction, ws, 0.02, "all lanes on one path: a whole warp per instruction")
  c:near(lane.threads_per_instruction, ws / 2, 0.05, "lanes split: half a warp per instruction (each path, half the lanes)")
  c:near(warp.threads_per_instruction, ws, 0.02, "warps split: a whole warp per instruction")
  c:that(lane.divergent_branches >= WARPS, "lanes split: every warp's branch diverges",
         lane.divergent_branches .. " divergent branches in " .. WARPS .. " warps")
  c:eq(warp.divergent_branches, 0, "warps split: no branch diverges")
  c:that(warp.branch_efficiency >= 99.9 and lane.branch_efficiency < warp.branch_efficiency,
         "branch efficiency: 100 % for the warp split, less for the lane split",
         string.format("%.3f %% and %.3f %%", warp.branch_efficiency, lane.branch_efficiency))
end

-- The third witness, at the line: both splits once more (64 iterations), collected by line.
if lw.witness(lclaims) then
  local splits = {{2, "lanes split", ws // 2, WARPS}, {3, "warps split", ws, 0}}
  local rows = lw.each(splits, function(sp) k:launch(1, block, sp[1], 64, 64, cycles, sink, nil) end, "instructions")
  for i, sp in ipairs(splits) do
    local fma, br = lw.find(rows[i], "fmaf(f[c], 0.9999f"), lw.find(rows[i], "if (take_a)")
    c:near(fma and fma.thread_inst / fma.inst or 0, sp[3], 0.001, sp[2] .. ": path A's FMA line runs " .. sp[3]
           .. " lanes per warp instruction")
    local div = br and br.divergent_branches or -1
    c:that(sp[4] > 0 and div >= sp[4] or div == sp[4], sp[2] .. ": the if line's divergent branches "
           .. (sp[4] > 0 and "(one per warp at least)" or "(none)"), div .. " counted")
  end
end

-- The same kernel traced with a few iterations: who ran what, and with which lanes.
local buf <close> = trace.buffer(8 * block)
local EVEN, ODD, FULL = 0x55555555, 0xaaaaaaaa, 0xffffffff
local function within(masks, allowed)
  for _, mk in ipairs(masks) do if mk & ~allowed ~= 0 then return false end end
  return #masks > 0
end
local svg_warps = {}
for _, mode in ipairs{2, 3} do
  k:launch(1, block, mode, 8, 8, cycles, sink, trace.reset(buf))
  local d = trace.decode(buf)
  local warps = trace.warps(d)
  local name = (mode == 2) and "lanes split" or "warps split"
  local sides_ok, joined = true, true
  print(string.format("\n%s, per-lane trace (S start, A..a path A, B..b path B, J after __syncwarp):",
                      name))
  if mode == 2 then trace.timeline(warps[1]) end
  for _, w in ipairs(warps) do
    print("  " .. trace.brief(w))
    if mode == 2 then
      sides_ok = sides_ok and within(trace.masks(w, "A"), EVEN) and within(trace.masks(w, "a"), EVEN)
                 and within(trace.masks(w, "B"), ODD) and within(trace.masks(w, "b"), ODD)
    else
      local tag = (w.warp % 2 == 0) and "A" or "B"
      sides_ok = sides_ok and trace.masks(w, tag)[1] == FULL and #trace.masks(w, tag) == 1
    end
    joined = joined and #trace.masks(w, "J") == 1 and trace.masks(w, "J")[1] == FULL
  end
  c:eq(#d.events, 4 * block, name .. ": 4 trace events per lane")
  c:that(sides_ok, name .. (mode == 2 and ": path A ran with even lanes only, path B with odd only"
                                       or ": each warp ran its path with all its lanes"))
  c:that(joined, name .. ": J, after __syncwarp, ran with all lanes in every warp")
  svg_warps[#svg_warps + 1] = warps[1]
  svg_warps[#svg_warps + 1] = warps[2]
end
if p.save then
  report.save("results/divergence.csv", rows)
  print("wrote " .. trace.svg(svg_warps, "results/divergence_trace.svg",
                              {title = "lanes split (warps 0, 1), then warps split (0, 1)"}))
end
c:summary()
