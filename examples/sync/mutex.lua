-- mutex.lua: an atomicCAS mutex between blocks keeps a plain counter exact, and the order in which blocks get the lock is no fixed order.
-- Shows:  thread 0 of every block takes one global lock `iters` times (atomicCAS spin with
--         a %globaltimer deadline), and inside reads the counter, records its block index
--         at that position and stores counter + 1 with plain loads and stores. The
--         recorded sequence is the order in which blocks held the lock.
-- Expect: counter = blocks x iters exactly, every block iters times in the sequence, no
--         wait hits the deadline; the first acquisitions are not in block-index order:
--         the inversions against it (pairs taken in the opposite order) are reported.
-- Run:    warplab run examples/sync/mutex.lua [-p blocks=0] [-p iters=4] [-p timeout_ms=2000] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local sync = require "warplab.sync"
local p = params{blocks = 0, block = 32, iters = 4, timeout_ms = 2000, save = false}

local dev = cuda.device()
local m = assert(cuda.compile("sync/mutex.cu"))
local k = m.mutex_counter
local c = check.new("mutex")
local cap = sync.capacity(k, p.block)
local grid = p.blocks > 0 and p.blocks or 4 * cap.sms
report.table({{k.name, k.regs, p.block, cap.blocks_per_sm, cap.capacity, grid, grid * p.iters}},
             {title = "plan (" .. dev.name .. "): one lock holder per block",
              columns = {"kernel", "regs", "block", "blocks/SM", "co-resident", "blocks", "acquisitions"}})
c:that(sync.ptx_count(m, k, "atom%.[%w%.]*cas") >= 1, "the lock is an atom.cas in the PTX") -- sm_120: atom.relaxed.global.cas
if ex.offline(dev, "taking the lock", p.save and {"results/mutex_order.svg", "results/mutex_order.csv"}) then
  return c:summary()
end

local total = grid * p.iters
local lock <close> = cuda.array("u32", 1):zero()
local counter <close> = cuda.array("u32", 1):zero()
local order <close> = cuda.array("u32", total):zero()
local status <close> = cuda.array("u32", 2):zero()
local e0, e1 = cuda.event(), cuda.event()
e0:record()
k:launch(grid, p.block, p.iters, p.timeout_ms * 1000000, lock, counter, order, status)
e1:record()
e1:synchronize()
local ms = e0:elapsed(e1)
local st, seq = status:get(), order:get()
local times = {}
for _, b in ipairs(seq) do times[b] = (times[b] or 0) + 1 end
local each_ok = true
for b = 0, grid - 1 do if times[b] ~= p.iters then each_ok = false end end

local first = sync.first_order(seq)
local inv = sync.inversions(first)
local max_inv = #first * (#first - 1) // 2
local at_index, ranks, index = 0, {}, {}
for r, b in ipairs(first) do
  if b == r - 1 then at_index = at_index + 1 end
  ranks[#ranks + 1], index[#index + 1] = r, b
end
report.table({{counter[1], total, st[1], st[2], string.format("%.2f", ms), string.format("%.0f", ms * 1e6 / total)}},
             {title = string.format("%d blocks x %d acquisitions", grid, p.iters),
              columns = {"counter", "expected", "timeouts", "failed CAS", "ms", "ns per acquisition"}})
local shown = {}
for i = 1, math.min(24, #first) do shown[i] = first[i] end
print("first acquisitions, in lock order (block indices): " .. table.concat(shown, " ") .. " ...")
report.table({{#first, inv, max_inv, string.format("%.1f %%", 100 * inv / math.max(1, max_inv)), at_index,
               #first >= 2 and string.format("%.2f", ex.spearman(ranks, index)) or "-"}},
             {title = "the first-acquisition order against block-index order",
              columns = {"blocks", "inversions", "max", "share", "at their index", "rank correlation"}})
print("inversions: pairs of blocks that took the lock in the opposite order to their indices (0 = index order, "
      .. "max = reversed); rank correlation near 1 would mean index order")
local head = {}
for i = 1, math.min(#seq, 16 * 32) do head[i] = seq[i] end
report.heatmap(head, {cols = 32, title = "who held the lock, in order (the first " .. #head // 32
                      .. " rows of 32 acquisitions; colour = block index)",
                      legend = "block", min = 0, max = grid - 1, svg = p.save and "results/mutex_order.svg" or nil})
c:eq(st[1], 0, "no wait hit the deadline")
c:eq(counter[1], total, "the counter is exact: blocks x iters, no update lost")
c:that(each_ok, "every block took the lock exactly iters times")
c:eq(lock[1], 0, "the lock is free at the end")
c:that(inv > 0, "the blocks did not take the lock in block-index order (no order is promised)",
       string.format("%d inversions of %d possible", inv, max_inv))
if p.save then
  local rows = {}
  for i, b in ipairs(seq) do rows[i] = {i - 1, b} end
  print("saved " .. report.save("results/mutex_order.csv", rows, {columns = {"acquisition", "block"}}))
end
c:summary()
