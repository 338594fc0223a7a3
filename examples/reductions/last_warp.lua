-- last_warp.lua: the unrolled last warp of a tree reduction needs volatile or __syncwarp: without them the compiler keeps the sum in a register.
-- Shows:  three kernels of ladder.cu run the same tree down to 64 partial sums and let the
--         last warp finish without __syncthreads: plain shared memory, the classic
--         `volatile float*`, and __syncwarp() between every read and write. The PTX shows
--         what the compiler made of each tail; the GPU shows what it computes.
-- Expect: the plain tail stores to shared memory once instead of six times (its lanes
--         read partners that never wrote), so its block sums are wrong, every block;
--         volatile and __syncwarp give bitwise the same sums (the same additions in the
--         same order), within the rounding bound of each block's double sum.
-- Run:    warplab run examples/reductions/last_warp.lua [-p n=1048576] [-p runs=50] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local progress = require "warplab.progress"
local ex = require "warplab.experiment"
local reduce = require "warplab.reduce"
local p = params{n = 1 << 20, runs = 50, seed = 3, save = false}

local BLOCK = 256
local dev = cuda.device()
local m = assert(cuda.compile("reductions/ladder.cu"))
local names = {"reduce_unroll_plain", "reduce_unroll_volatile", "reduce_unroll_syncwarp"}
local c = check.new("last_warp")

-- The PTX of each kernel: shared-memory stores and warp barriers in its body.
local function body(k)
  local from = m.ptx:find(".entry " .. k.mangled .. "(", 1, true)
  return from and m.ptx:sub(from, (m.ptx:find("\n}\n", from, true) or #m.ptx))
end
local function count(s, pat) return select(2, s:gsub(pat, "")) end
local ptx, rows = {}, {}
for i, name in ipairs(names) do
  local b = assert(body(m[name]), "no PTX body for " .. name)
  ptx[name] = {stores = count(b, "st%.shared%.") + count(b, "st%.volatile%.shared%."),
               loads = count(b, "ld%.shared%.") + count(b, "ld%.volatile%.shared%."), syncs = count(b, "bar%.warp%.sync")}
  rows[i] = {name, ptx[name].loads, ptx[name].stores, ptx[name].syncs, m[name].regs}
end
report.table(rows, {title = "the compiler's view (" .. m.arch .. " PTX): whole kernel, 2 stores before the tail",
                    columns = {"kernel", "shared loads", "shared stores", "__syncwarp", "regs"}})
local elided = ptx.reduce_unroll_plain.stores < ptx.reduce_unroll_volatile.stores
c:that(elided, "plain: the compiler dropped the tail's intermediate shared stores (volatile keeps all 6)",
       string.format("%d shared stores against %d", ptx.reduce_unroll_plain.stores, ptx.reduce_unroll_volatile.stores))
c:eq(ptx.reduce_unroll_syncwarp.stores, ptx.reduce_unroll_volatile.stores,
     "__syncwarp: every store stays, as with volatile, without volatile")
if ex.offline(dev, "running the three tails", p.save and {"results/last_warp.csv"}) then return c:summary() end

-- Each block sums 2 x BLOCK consecutive elements; Lua's double sum of each is the reference.
local per = 2 * BLOCK
local n = (p.n + per - 1) // per * per
local blocks = n // per
local x <close> = cuda.array("f32", n):random{seed = p.seed}
local out <close> = cuda.array("f32", blocks)
local host = x:get()
local want, abs = {}, {}
for b = 1, blocks do
  local s, a = 0.0, 0.0
  for i = (b - 1) * per + 1, b * per do s, a = s + host[i], a + math.abs(host[i]) end
  want[b], abs[b] = s, a
end
local bound_levels = 1 + 8 -- the first add, then log2(256) levels (the tail's 6 included)
local function run(name)
  m[name]{grid = blocks, block = BLOCK, shared = 4 * BLOCK, args = {x, out, n}}
  return out:get()
end

local got, wrong, bad_bound, differ, bar = {}, {}, 0, 0, progress.new(p.runs * #names, "runs")
for _, name in ipairs(names) do wrong[name] = 0 end
for _ = 1, p.runs do
  for _, name in ipairs(names) do got[name] = run(name); bar:step() end
  for b = 1, blocks do
    for _, name in ipairs(names) do
      local bound = reduce.gamma(bound_levels) * abs[b] + reduce.gamma(per, 2.0 ^ -53) * abs[b]
      if math.abs(got[name][b] - want[b]) > bound then wrong[name] = wrong[name] + 1 end
    end
    if got.reduce_unroll_syncwarp[b] ~= got.reduce_unroll_volatile[b] then differ = differ + 1 end
  end
end
bar:done()
local total = blocks * p.runs
c:eq(wrong.reduce_unroll_syncwarp, 0, "__syncwarp: every block sum within its rounding bound")
c:eq(differ, 0, "volatile: bitwise the same block sums as __syncwarp (this GPU ran the tail warp-synchronously)")
c:that(not elided or wrong.reduce_unroll_plain == total, "plain: every block sum is wrong",
       string.format("%d of %d block sums outside the bound", wrong.reduce_unroll_plain, total))

-- Block 0 as lane 0 of the plain tail summed it: its own slot and the 6 it read, as they
-- were after the barriers (the 64 partials from the tree).
local s64 = {}
for t = 1, 64 do
  local v = 0.0
  for j = 0, BLOCK // 64 - 1 do
    local i = t + 64 * j
    v = v + host[i] + host[i + BLOCK]
  end
  s64[t] = v
end
local seven = s64[1] + s64[33] + s64[17] + s64[9] + s64[5] + s64[3] + s64[2]
report.table({{"reduce_unroll_plain", got.reduce_unroll_plain[1]}, {"reduce_unroll_volatile", got.reduce_unroll_volatile[1]},
              {"reduce_unroll_syncwarp", got.reduce_unroll_syncwarp[1]}, {"double sum of the block", want[1]},
              {"7 of the 64 partials (s[0] + s[32] + s[16] + ... + s[1])", seven}},
             {title = "block 0", columns = {"what", "sum"}, format = {sum = "%.4f"}})
local rows2 = {}
for i, name in ipairs(names) do rows2[i] = {name, wrong[name], total} end
report.table(rows2, {title = p.runs .. " runs of " .. blocks .. " blocks", columns = {"kernel", "wrong", "blocks"}})
if p.save then print("saved " .. report.save("results/last_warp.csv", rows2, {columns = {"kernel", "wrong", "blocks"}})) end
c:summary()
