-- warplab/reduce.lua: what the reduction experiments share: the versions of the ladder
-- and how each is launched (passes over partials, grid-stride, single pass, atomics),
-- the rounding bound each is checked against, and the double / integer references.
-- Depends on: the `cuda` global (compiling works offline; launches need a GPU) and the
-- kernels in kernels_src/reductions (ladder.cu, grid.cu, single_pass.cu, reference.cu);
-- warplab.util.
local util = require "warplab.util"
local reduce = {}

reduce.U = 2.0 ^ -24 -- float's unit roundoff: |fl(a + b) - (a + b)| <= U |a + b|
reduce.SIZES = {1, 31, 32, 33, 1000, (1 << 20) + 7, 1 << 24, 1 << 28}

-- kind: how the host drives the kernel. tree: passes of one or two loads per thread and
-- a block tree, repeated over the partials until one remains; vec4: grid-stride, then one
-- block over the partials; last / coop: one launch; atomic: one atomicAdd per element;
-- int: u32 data. pt: elements per thread per pass; depth: levels of the block sum
-- (nil: log2(block)); block: a fixed block size.
local V = {
  {"interleaved", "reduce_interleaved", "tree", pt = 1, dyn = true, what = "tid % (2d) == 0: divergent warps"},
  {"strided index", "reduce_strided", "tree", pt = 1, dyn = true, what = "index 2*d*tid: bank conflicts"},
  {"sequential", "reduce_sequential", "tree", pt = 1, dyn = true, what = "tid < d: contiguous, conflict-free"},
  {"first add", "reduce_first_add", "tree", pt = 2, dyn = true, what = "two loads and an add per thread"},
  {"unrolled warp (volatile)", "reduce_unroll_volatile", "tree", pt = 2, dyn = true, what = "last warp without barriers"},
  {"unrolled warp (__syncwarp)", "reduce_unroll_syncwarp", "tree", pt = 2, dyn = true, what = "last warp, Volta-safe"},
  {"warp shuffle", "reduce_shuffle", "tree", pt = 2, depth = 10, what = "registers, one barrier"},
  {"vec4 grid-stride", "reduce_vec4", "vec4", what = "float4 loads, several in flight, 2 launches"},
  {"single pass (last block)", "reduce_last_block", "last", what = "atomic ticket + __threadfence"},
  {"single pass (grid sync)", "reduce_grid_sync", "coop", what = "cooperative grid.sync()"},
  {"sumWithinBlock (text)", "sum_within_block", "tree", pt = 1, block = 256, extra = true, what = "the __syncthreads text"},
  {"atomics only", "reduce_atomic", "atomic", extra = true, what = "atomicAdd per element"},
  {"__reduce_add_sync (u32)", "reduce_redux", "int", extra = true, what = "integers: exact in any order"},
}
reduce.versions = {}
for i, v in ipairs(V) do
  v.name, v.kernel, v.kind = v[1], v[2], v[3]
  reduce.versions[i] = v
end

local function log2ceil(n)
  local d = 0
  while (1 << d) < n do d = d + 1 end
  return d
end

-- gamma(L [, u]) = L u / (1 - L u): |sum - exact| <= gamma(L) * sum|x| for any order of
-- additions in which no element passes through more than L roundings (Higham, Accuracy
-- and Stability of Numerical Algorithms, 2nd ed., section 4.2). math.huge once L u >=
-- 1/2: gamma would be >= 1, a bound no better than sum|x| itself.
function reduce.gamma(L, u)
  u = u or reduce.U
  if L * u >= 0.5 then return math.huge end
  return L * u / (1 - L * u)
end

-- Roundings on an element's path through thread_sum4 (reduce.cuh) when T threads with U
-- float4 loads in flight, added into A float4 accumulators (default U), share n
-- elements: its accumulator lane, the combine, head and tail.
function reduce.thread_levels(n, threads, unroll, acc)
  acc = acc or unroll
  local k4 = (((n + 3) // 4) + threads - 1) // threads
  return (k4 + unroll - 1) // unroll * (unroll // acc) + unroll + 2 + (acc - 1) + 2
end

local Runner = {}
Runner.__index = Runner

-- reduce.runner{block =, grid =, unroll =, acc =, load =, min_blocks =, layout =, finish =}
-- compiles every version (offline too). grid 0: SMs x resident blocks of each
-- grid-stride kernel (one full wave); acc 0: as many float4 accumulators as loads in
-- flight (unroll); min_blocks > 0: __launch_bounds__(block, min_blocks) on the
-- grid-stride kernels; layout, finish: WL_LAYOUT, WL_FINISH (reduce.cuh).
function reduce.runner(o)
  local r = setmetatable({block = o.block or 256, unroll = o.unroll or 4, load = o.load or 3,
                          layout = o.layout or 1, finish = o.finish or 1}, Runner)
  if r.layout ~= 0 and r.layout ~= 1 and r.layout ~= 2 then
    error(string.format("reduce.runner: layout %s must be 0 (grid-stride), 1 (tiles) or 2 (runs of tiles)",
                        tostring(r.layout)), 2)
  end
  if math.type(r.finish) ~= "integer" or r.finish < 1 or r.finish > 64 then
    error(string.format("reduce.runner: finish %s must be an integer from 1 to 64", tostring(r.finish)), 2)
  end
  r.acc = (o.acc or 0) > 0 and o.acc or r.unroll
  if r.unroll < 1 or r.unroll % r.acc ~= 0 then
    error(string.format("reduce.runner: acc %d must divide unroll %d (each load goes to one accumulator)",
                        r.acc, r.unroll), 2)
  end
  if r.block % 32 ~= 0 or r.block & (r.block - 1) ~= 0 or r.block < 64 or r.block > 1024 then
    error(string.format("reduce.runner: block %d: the ladder needs a power of two from 64 to 1024", r.block), 2)
  end
  r.dev = cuda.device()
  r.k = {}
  local defines = {WL_UNROLL = r.unroll, WL_ACC = r.acc, WL_LOAD = r.load, WL_LAYOUT = r.layout}
  if r.finish > 1 then defines.WL_FINISH = r.finish end
  if (o.min_blocks or 0) > 0 then defines.WL_MIN_BLOCKS, defines.WL_BLOCK = o.min_blocks, r.block end
  for _, f in ipairs{"ladder", "grid", "single_pass", "reference"} do
    -- lineinfo: the line table (no change to the code), for ladder.lua's per-line witness.
    local m, diag = cuda.compile{file = "reductions/" .. f .. ".cu", defines = defines, lineinfo = true}
    if not m then error(diag, 2) end -- the diagnostics themselves: `warplab run` exits 5
    for _, name in ipairs(m.kernels) do r.k[name:match("^[%w_]+")] = m[name] end
  end
  local sms = r.dev.attr.multiprocessor_count
  r.resident = sms * r.k.reduce_last_block:occupancy{block = r.block}.blocks_per_sm
  r.grid = (o.grid or 0) > 0 and o.grid or r.resident
  r.coop_grid = math.min(r.grid, sms * r.k.reduce_grid_sync:occupancy{block = r.block}.blocks_per_sm)
  r.int_grid = (o.grid or 0) > 0 and o.grid or sms * r.k.reduce_redux:occupancy{block = r.block}.blocks_per_sm
  return r
end

function Runner:kernel(v) return self.k[v.kernel] end

-- Scratch for sums of up to max_n elements (needs a GPU).
function Runner:alloc(max_n)
  local per = (max_n + 63) // 64 -- partials of the first pass with the smallest block
  self.ping = {cuda.array("f32", per), cuda.array("f32", per)}
  self.part = cuda.array("f32", math.max(self.grid, self.coop_grid))
  self.part64 = cuda.array("u64", self.int_grid)
  self.ticket = cuda.array("u32", 1):zero()
  self.out, self.out64 = cuda.array("f32", 1), cuda.array("u64", 1)
  self.ref_part, self.ref_abs = cuda.array("f64", 1024), cuda.array("f64", 1024)
  self.ref_u64 = cuda.array("u64", 1)
end

-- Launches version v over x (an f32 array or view; u32 for kind "int") of n elements;
-- no wait. The sum is then Runner:result(v).
function Runner:launch(v, x, n)
  local k, b = self.k[v.kernel], v.block or self.block
  if v.kind == "tree" then
    local src, m, i = x, n, 0
    repeat
      local g = (m + b * v.pt - 1) // (b * v.pt)
      local dst = self.ping[i % 2 + 1]
      k{grid = g, block = b, shared = v.dyn and 4 * b or 0, args = {src, dst, m}}
      src, m, i = dst, g, i + 1
    until m == 1
    self.last = src
  elseif v.kind == "vec4" then
    k{grid = self.grid, block = b, args = {x, n, self.part}}
    k{grid = 1, block = b, args = {self.part, self.grid, self.out}}
    self.last = self.out
  elseif v.kind == "last" then
    k{grid = self.grid, block = b, args = {x, n, self.part, self.ticket, self.out}}
    self.last = self.out
  elseif v.kind == "coop" then
    k{grid = self.coop_grid, block = b, cooperative = true, args = {x, n, self.part, self.out}}
    self.last = self.out
  elseif v.kind == "atomic" then
    self.out:zero()
    k{grid = (n + b - 1) // b, block = b, args = {x, self.out, n}}
    self.last = self.out
  else
    k{grid = self.int_grid, block = b, args = {x, n, self.part64, self.ticket, self.out64}}
    self.last = self.out64
  end
end

-- Launches only the first pass of version v over x: one launch, the one that reads the n
-- elements (what a version's hardware counters describe; the passes over partials that
-- follow are small). No wait; no result to read.
function Runner:first_pass(v, x, n)
  local k, b = self.k[v.kernel], v.block or self.block
  if v.kind == "tree" then
    k{grid = (n + b * v.pt - 1) // (b * v.pt), block = b, shared = v.dyn and 4 * b or 0, args = {x, self.ping[1], n}}
  elseif v.kind == "vec4" then
    k{grid = self.grid, block = b, args = {x, n, self.part}}
  else
    self:launch(v, x, n) -- one launch already
  end
end

function Runner:result() return self.last[1] end

function Runner:sum(v, x, n)
  self:launch(v, x, n)
  return self:result()
end

-- The most roundings on any element's path in version v over n elements (nil for the
-- integer version, which does not round).
function Runner:levels(v, n)
  local b = v.block or self.block
  local depth = v.depth or log2ceil(b)
  if v.kind == "tree" then
    local L, m = 0, n
    repeat
      L, m = L + (v.pt - 1) + depth, (m + b * v.pt - 1) // (b * v.pt)
    until m == 1
    return L
  elseif v.kind == "atomic" then
    return n - 1
  elseif v.kind == "int" then
    return nil
  end
  local g = v.kind == "coop" and self.coop_grid or self.grid
  local first = reduce.thread_levels(n, g * b, self.unroll, self.acc) + 10
  if v.kind == "vec4" then return first + reduce.thread_levels(g, b, self.unroll, self.acc) + 10 end
  return first + (g + b - 1) // b + 10 -- the finishing block: partials per thread, block sum
end

-- The float sum's bound for v over n elements with sum|x| = abs (math.huge: no bound;
-- nil for the integer version, which must be exact).
function Runner:bound(v, n, abs)
  local L = self:levels(v, n)
  return L and reduce.gamma(L) * abs
end

-- The double sum of x[1..n] and of |x| on the GPU (sum_f64, then the blocks' partials
-- added here), and a bound on its own error.
function Runner:reference(x, n)
  local g = math.min(1024, (n + 255) // 256)
  self.k.sum_f64{grid = g, block = 256, args = {x, n, self.ref_part, self.ref_abs}}
  local p, a = self.ref_part:view(1, g):get(), self.ref_abs:view(1, g):get()
  local s, sa = 0.0, 0.0
  for i = 1, g do s, sa = s + p[i], sa + a[i] end
  local L = (n + g * 256 - 1) // (g * 256) + 8 + g
  return {sum = s, abs = sa, err = reduce.gamma(L + 1, 2.0 ^ -53) * sa}
end

-- The exact sum of n u32 elements (sum_u64: integers add exactly in any order).
function Runner:reference_u64(x, n)
  self.ref_u64:zero()
  self.k.sum_u64{grid = math.min(1024, (n + 255) // 256), block = 256, args = {x, n, self.ref_u64}}
  return self.ref_u64[1]
end

-- The sum and absolute sum of an array's elements, added in Lua in order (doubles or
-- integers), with the double sum's own bound.
function reduce.lua_sum(t)
  local s, a = 0, 0
  for i = 1, #t do
    local v = t[i]
    s, a = s + v, a + (v < 0 and -v or v)
  end
  return {sum = s, abs = a, err = reduce.gamma(#t, 2.0 ^ -53) * a}
end

-- "2^24", "2^20 + 7", "1000": a size as the experiments name it.
function reduce.size_name(n)
  for e = 62, 10, -1 do
    local p = 1 << e
    if n == p then return "2^" .. e end
    if n > p and n - p < 64 then return "2^" .. e .. " + " .. (n - p) end
  end
  return tostring(n)
end

return util.api("reduce", reduce, Runner, "runner")
