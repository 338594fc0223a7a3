-- reduce_sweep.lua: a search over how the fastest sum is built and launched, at 2^28 floats:
-- every configuration checked against the double sum, then timed with events (median), as
-- bench/reduce.lua times it. Kernels: reductions/tuning.cu, whose PTX is checked at the start
-- to be that of reduce_last_block and reduce_vec4 for the same defines.
-- Stage 1 (structure): WL_LAYOUT 0/1/2 x unroll/acc (float4 loads in flight, accumulators) x
--   __launch_bounds__ for 2048 threads per SM, each at 1, 2, 5 and 10 waves of resident
--   blocks; blocks of 256, load 3, finish 8; and CUB's own scheme. Stage 2 (policy): the best
--   4 structures with every load (0..4) and finish (1, 8), then blocks of 128 and 512. Final:
--   the best `top`, bench/reduce.lua's default through reduce.runner ("bench-default"), CUB's
--   scheme and the two-launch finish of the best two, in `rounds` interleaved rounds of
--   `final` calls: the median of the rounds' medians.
-- Shows:  tables of GB/s (4n bytes / time) and x CUB (-p cub=<GB/s of cub_reduce, same call>);
--         "best1 <name> <GB/s> x<CUB> RP=<bench/reduce.lua options>", "best2 ...", "only <names>"
--         (the best two, CUB's scheme and the default: what scripts/reduce-sweep profiles).
-- Expect: every sum within its bound (else exit 1 after everything is printed and saved).
-- Run:    warplab run bench/reduce_sweep.lua [-p cub=0] [-p csv=PATH.csv] [-p n=268435456] [-p reps=20]
--         [-p final=100] [-p rounds=5] [-p top=6] [-p budget=150] [-p only=NAME,NAME] [-p once=false]
--         only: these configurations (names as printed), final stage only; once=true: each
--         launched once and checked, nothing timed (for ncu). Offline: their registers, then a skip.
local params = require "warplab.params"
local reduce = require "warplab.reduce"
local bw = require "warplab.bandwidth"
local report = require "warplab.report"
local p = params{n = 1 << 28, reps = 20, final = 100, rounds = 5, top = 6, cub = 0.0, csv = "", budget = 150,
                 only = "", once = false, seed = 1}
local t0, dev = cuda.clock(), cuda.device()
local function note(fmt, ...) io.stderr:write(string.format("reduce_sweep: " .. fmt .. "\n", ...)) end
local function elapsed() return (cuda.clock() - t0) / 1000 end

-- A configuration: kind ("last": one launch; "two": reduce_vec4 then 1 block; "bench": the
-- bench's own kernel), layout, unroll, acc, load, block, min_blocks, finish, waves.
local KEYS = {"layout", "unroll", "acc", "load", "block", "min_blocks", "finish", "waves"}
local TAGS = {"L", "U", "A", "ld", "b", "m", "f", "w"}
local DEFAULT = {kind = "bench", name = "bench-default"}
local function named(c)
  if c.kind == "bench" then return DEFAULT end
  local t = {c.kind}
  for i, k in ipairs(KEYS) do t[#t + 1] = TAGS[i] .. c[k] end
  c.name = table.concat(t, "-")
  return c
end
local function with(c, o)
  local d = {}
  for k, v in pairs(c) do d[k] = v end
  for k, v in pairs(o) do d[k] = v end
  return named(d)
end
local function parse(name)
  if name == DEFAULT.name then return DEFAULT end
  local c, i = {kind = name:match("^(%a+)%-")}, 0
  for tag, v in name:gmatch("%-(%a+)(%d+)") do
    i = i + 1
    if tag ~= TAGS[i] then c.kind = nil end
    c[KEYS[i] or "?"] = tonumber(v)
  end
  if (c.kind ~= "last" and c.kind ~= "two") or i ~= #KEYS then
    error(string.format("reduce_sweep: '%s' is not a configuration name (e.g. last-L2-U4-A2-ld3-b256-m0-f8-w5)", name), 0)
  end
  if c.layout > 2 or c.load > 4 or c.unroll < 1 or c.acc < 1 or c.unroll % c.acc ~= 0 or c.block % 32 ~= 0
     or c.block < 32 or c.block > 1024 or c.finish < 1 or c.waves < 1 or c.waves > 10 then
    error(string.format("reduce_sweep: '%s': layout 0..2, load 0..4, acc dividing unroll, a block of 32..1024 "
                        .. "threads in warps, finish >= 1 and 1..10 waves", name), 0)
  end
  return named(c)
end

-- Compiled modules by defines (block enters only through __launch_bounds__).
local modules = {}
local function defines(c)
  local d = {WL_LAYOUT = c.layout, WL_UNROLL = c.unroll, WL_ACC = c.acc, WL_LOAD = c.load, WL_FINISH = c.finish}
  if c.min_blocks > 0 then d.WL_MIN_BLOCKS, d.WL_BLOCK = c.min_blocks, c.block end
  return d
end
local function module(file, d)
  local keys = {}
  for k, v in pairs(d) do keys[#keys + 1] = k .. "=" .. v end
  table.sort(keys)
  local key = file .. " " .. table.concat(keys, " ")
  if not modules[key] then
    local m, diag = cuda.compile{file = "reductions/" .. file .. ".cu", defines = d}
    if not m then error("reduce_sweep: reductions/" .. file .. ".cu did not compile:\n" .. diag, 0) end
    modules[key] = m
  end
  return modules[key]
end
local function kernel(c)
  return module("tuning", defines(c))[c.kind == "two" and "tuned_vec4" or "tuned_last_block"]
end
local function per_sm(c) return kernel(c):occupancy{block = c.block}.blocks_per_sm end

-- tuning.cu's kernels against the originals: the PTX of each entry, names made neutral.
local function body(ptx, name)
  local mangled = ptx:match("%.entry (_Z%d+" .. name .. "[%w_]*)%(")
  local s = mangled and ptx:match("%.entry " .. mangled:gsub("%p", "%%%0") .. "%(.-\n}\n") or ""
  return (s:gsub(mangled and mangled:gsub("%p", "%%%0") or "^$", "K"):gsub("%d+" .. name, "K")
           :gsub("%$L__BB%d+_", "$L__BB_"))
end
local function same_code(d)
  local t = module("tuning", d).ptx
  local last, vec4 = body(t, "tuned_last_block"), body(t, "tuned_vec4")
  return last ~= "" and vec4 ~= "" and last == body(module("single_pass", d).ptx, "reduce_last_block")
         and vec4 == body(module("grid", d).ptx, "reduce_vec4")
end

local r = reduce.runner{block = 256} -- bench/reduce.lua's default: its kernel and the references
local only = {}
for name in p.only:gmatch("[^,%s]+") do only[#only + 1] = parse(name) end
if not same_code({}) then
  error("reduce_sweep: reductions/tuning.cu no longer has the PTX of reduce_last_block and reduce_vec4", 0)
end
note("%s: tuning.cu has the code of reduce_last_block and reduce_vec4", dev.name)

local WAVES = {1, 2, 5, 10}
-- What cub::DeviceReduce::Sum does on sm_90 (CUB's Policy600: 256 threads, 16 floats each as 4
-- float4 loads through ld.global.nc into one sum; even-share runs of tiles; 5 waves of
-- resident blocks), with the last-block finish in place of its second kernel.
local CUB_LIKE = named{kind = "last", layout = 2, unroll = 4, acc = 1, load = 0, block = 256, min_blocks = 0,
                       finish = 8, waves = 5}
local UA = {{4, 4}, {4, 2}, {4, 1}, {8, 8}, {8, 4}, {8, 2}, {8, 1}, {2, 2}, {2, 1}, {16, 4}}
local function stage1()
  local list = {}
  for _, layout in ipairs{1, 2, 0} do
    for _, ua in ipairs(UA) do
      local c = named{kind = "last", layout = layout, unroll = ua[1], acc = ua[2], load = 3, block = 256,
                      min_blocks = 0, finish = 8, waves = 1}
      list[#list + 1] = c
      if ua[1] <= 4 then list[#list + 1] = with(c, {min_blocks = 8}) end -- 32 registers, no spills
    end
  end
  list[#list + 1] = CUB_LIKE
  return list
end

if not dev.live then
  for _, c in ipairs(only) do
    if c.kind ~= "bench" then
      local k = kernel(c)
      note("%s: %d regs, %d blocks of %d per SM, %s B spilled; %s", c.name, k.regs, per_sm(c), c.block,
           tostring(k.spill_bytes), same_code(defines(c)) and "the same code as the originals" or "CODE DIFFERS")
    end
  end
  print(string.format("skipped: no GPU (cuda.bench needs a GPU); stage 1 would time %d configurations x %d grids",
                      #stage1(), #WAVES))
  return
end

-- The data, the double reference and the buffers every configuration shares.
local sms = dev.attr.multiprocessor_count
r:alloc(1024)
local x <close> = cuda.array("f32", p.n):random{seed = p.seed}
local ref = r:reference(x, p.n)
local part <close> = cuda.array("f32", sms * 32 * WAVES[#WAVES]):zero()
local ticket <close> = cuda.array("u32", 1):zero()
local out <close> = cuda.array("f32", 1):zero()
local V9 = reduce.versions[9]

local function grid_of(c) return c.kind == "bench" and r.grid or sms * per_sm(c) * c.waves end
local function launch(c, g)
  if c.kind == "bench" then return r:launch(V9, x, p.n) end
  local k = kernel(c)
  if c.kind == "last" then
    k{grid = g, block = c.block, args = {x, p.n, part, ticket, out}}
  else
    k{grid = g, block = c.block, args = {x, p.n, part}}
    k{grid = 1, block = c.block, args = {part, g, out}}
  end
end
local function levels(c, g)
  if c.kind == "bench" then return r:levels(V9, p.n) end
  local first = reduce.thread_levels(p.n, g * c.block, c.unroll, c.acc) + 10
  if c.kind == "two" then return first + reduce.thread_levels(g, c.block, c.unroll, c.acc) + 10 end
  return first + (g + c.block - 1) // c.block + 10
end
-- One launch, its sum against the reference: the row of the configuration.
local function check(c)
  local g = grid_of(c)
  launch(c, g)
  local got = c.kind == "bench" and r:result() or out[1]
  local bound = reduce.gamma(levels(c, g)) * ref.abs + ref.err
  local k = c.kind == "bench" and r.k.reduce_last_block or kernel(c)
  local row = {name = c.name, kind = c.kind, grid = g, regs = k.regs, spill = k.spill_bytes or -1,
               per_sm = k:occupancy{block = c.block or r.block}.blocks_per_sm, sum = got,
               err_per_bound = math.abs(got - ref.sum) / bound, ok = math.abs(got - ref.sum) <= bound, config = c}
  for _, key in ipairs(KEYS) do row[key] = c[key] or -1 end
  if not row.ok then note("WRONG: %s: sum %.9g, double %.9g, bound %.2e", c.name, got, ref.sum, bound) end
  return row
end
local function timed(row, reps)
  local g = row.grid
  row.ms = cuda.bench(function() launch(row.config, g) end, {warmup = 3, reps = reps}).median
  row.gbs = bw.gbs(4 * p.n, row.ms)
  row.x_cub = p.cub > 0 and row.gbs / p.cub or 0
  return row
end

if p.once then -- for ncu: one launch each (the check), nothing timed
  for _, c in ipairs(only) do
    local row = check(c)
    note("%s: grid %d, sum %.9g (%s)", c.name, row.grid, row.sum, row.ok and "ok" or "WRONG")
  end
  return
end

local rows = {}
local function over() return elapsed() > p.budget end
-- Each configuration at each number of waves; a __launch_bounds__ copy that changes nothing
-- (the plain build already holds 2048 threads per SM) is skipped; past the budget, the rest.
local function run(stage, list)
  local got, skipped = {}, 0
  for _, c in ipairs(list) do
    if over() then
      skipped = skipped + 1
    elseif c.min_blocks == 0 or per_sm(with(c, {min_blocks = 0})) * c.block < 2048 then
      for _, w in ipairs(WAVES) do
        local row = timed(check(with(c, {waves = w})), p.reps)
        row.stage = stage
        got[#got + 1], rows[#rows + 1] = row, row
      end
    end
  end
  note("stage %d: %d timings, %.0f s so far%s", stage, #got, elapsed(),
       skipped > 0 and string.format(" (budget spent: %d configurations not built)", skipped) or "")
  return got
end
local function ranked(list, kind)
  local s = {}
  for _, row in ipairs(list) do if row.ok and row.gbs and (not kind or row.kind == kind) then s[#s + 1] = row end end
  table.sort(s, function(a, b) return a.gbs > b.gbs end)
  return s
end
-- The best k rows that passed their check, then (final table) every one that did not.
local function show(title, list, k, base, wrong_too)
  local shown = {}
  for i, row in ipairs(ranked(list)) do if i <= k then shown[#shown + 1] = row end end
  for _, row in ipairs(list) do if wrong_too and not row.ok then shown[#shown + 1] = row end end
  for _, row in ipairs(shown) do
    row.x_default = base and row.gbs / base or nil
    row.check = row.ok and "ok" or "WRONG"
  end
  print()
  report.table(shown, {title = title, columns = {"name", "grid", "regs", "per_sm", "spill", "ms", "gbs", "spread",
                                                  "x_cub", "x_default", "check"},
                       format = {ms = "%.4f", gbs = "%.1f", x_cub = "%.4f", x_default = "%.4f"}})
end

if #only == 0 then
  local st1 = run(1, stage1())
  show("stage 1: structure (block 256, load 3, finish 8): the best 15", st1, 15)
  local list, seen = {}, {}
  for _, row in ipairs(ranked(st1)) do
    local c = row.config
    local key = string.format("%d %d %d %d", c.layout, c.unroll, c.acc, c.min_blocks)
    if not seen[key] and #list < 4 * 11 then
      seen[key] = true
      for _, ld in ipairs{0, 1, 2, 3, 4} do
        for _, f in ipairs{1, 8} do
          if ld ~= 3 or f ~= 8 then list[#list + 1] = with(c, {load = ld, finish = f, waves = 1}) end
        end
      end
      for _, b in ipairs{128, 512} do
        list[#list + 1] = with(c, {block = b, min_blocks = c.min_blocks > 0 and 2048 // b or 0, waves = 1})
      end
    end
  end
  show("stage 2: load policy, finish, block: the best 15", run(2, list), 15)
  local names = {}
  for _, row in ipairs(ranked(rows)) do
    if #only < p.top and not names[row.name] then names[row.name] = true; only[#only + 1] = row.config end
  end
end

-- Final: the chosen ones, the bench's default, the two-launch finish of the best two; rounds
-- interleaved so that drift hits all alike.
local final = {}
for _, c in ipairs(only) do final[#final + 1] = c end
for _, extra in ipairs{DEFAULT, CUB_LIKE} do
  local has = false
  for _, c in ipairs(final) do has = has or c.name == extra.name end
  if not has then final[#final + 1] = extra end
end
for i = 1, math.min(2, #only) do
  if only[i].kind == "last" then final[#final + 1] = with(only[i], {kind = "two"}) end
end
local fin, ms = {}, {}
for i, c in ipairs(final) do fin[i], ms[i] = check(c), {} end
for _ = 1, p.rounds do
  for i, row in ipairs(fin) do ms[i][#ms[i] + 1] = timed(row, p.final).ms end
end
local stats = require "warplab.stats"
local base
for i, row in ipairs(fin) do
  local st = stats.summary(ms[i])
  row.ms, row.gbs = st.median, bw.gbs(4 * p.n, st.median)
  row.spread = string.format("%.1f-%.1f", bw.gbs(4 * p.n, st.max), bw.gbs(4 * p.n, st.min)) -- GB/s of the rounds
  row.x_cub, row.stage = p.cub > 0 and row.gbs / p.cub or 0, 3
  rows[#rows + 1] = row
  if row.name == DEFAULT.name then base = row.gbs end
end
local m = bw.measure(x, {reps = p.final, warmup = 5})
show(string.format("final: median of %d rounds of %d calls (read %.1f GB/s, copy %.1f GB/s; cub %.1f)", p.rounds,
                   p.final, m.read.gbs, m.copy.gbs, p.cub), fin, #fin, base, true)
local names = {}
for i, row in ipairs(ranked(fin, "last")) do
  if i > 2 then break end
  local c = row.config
  print(string.format("best%d %s %.1f GB/s x%.4f CUB RP=-p layout=%d -p unroll=%d -p acc=%d -p load=%d -p block=%d"
                      .. " -p min_blocks=%d -p finish=%d -p grid=%d", i, row.name, row.gbs, row.x_cub, c.layout,
                      c.unroll, c.acc, c.load, c.block, c.min_blocks, c.finish, row.grid))
  names[#names + 1] = row.name
end
if names[1] ~= CUB_LIKE.name and names[2] ~= CUB_LIKE.name then names[#names + 1] = CUB_LIKE.name end
names[#names + 1] = DEFAULT.name
print("only " .. table.concat(names, ","))
if p.csv ~= "" then
  report.save(p.csv, rows, {columns = {"stage", "name", "kind", "layout", "unroll", "acc", "load", "block",
                                       "min_blocks", "finish", "waves", "grid", "regs", "per_sm", "spill", "ms", "gbs",
                                       "x_cub", "err_per_bound", "ok"}})
end
note("%d timings in %.0f s", #rows, elapsed())
for _, row in ipairs(rows) do
  if not row.ok then error("reduce_sweep: " .. row.name .. ": the sum is outside its rounding bound", 0) end
end
