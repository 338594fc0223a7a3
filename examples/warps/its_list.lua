-- its_list.lua: a doubly linked list with one lock per node stays consistent under
-- thousands of concurrent insert_after calls, many from lanes of the same warp (sm_70+).
-- Shows:  the whitepaper's starvation-free example: insert_after(a, b) locks a, then a's
--         successor c, links a <-> b <-> c and unlocks. Groups of 4 neighbouring lanes
--         insert after the same node, so lanes of one warp wait on each other's locks.
-- Expect: no lock wait reaches its %globaltimer deadline; walking next from the head and
--         prev from the tail gives the same order, and every node appears exactly once;
--         each new node sits between its target and the initial node after the target.
-- Run:    warplab run examples/warps/its_list.lua   (-p inserts=8192 -p nodes=64 -p save=true)
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local p = params{inserts = 8192, nodes = 64, block = 256, timeout_ms = 2000, save = false}

local dev = cuda.device()
print(dev)
local m = assert(cuda.compile("warps/its_list.cu"))
local k = m.its_list_insert
print(k)
local K, N = p.nodes, p.inserts
print(string.format("plan: an initial list of %d nodes (0 = head, %d = tail); %d threads each insert"
                    .. " one new node after one of nodes 0..%d", K, K - 1, N, K - 2))
if not dev.live then
  print("no GPU here (" .. dev.source .. "): the kernel compiled; the inserts need one")
  require("warplab.experiment").skipped(p.save and {"results/its_list.csv"})
  return
end
local c = check.new("its_list")
c:that(tonumber(dev.cc:match("^(%d+)")) >= 7, "the GPU has independent thread scheduling (sm_70+)",
       dev.arch)
assert(K >= 2, "nodes must be at least 2 (head and tail)")

-- The initial list 0 <-> 1 <-> ... <-> K-1; new nodes K..K+N-1 start unlinked.
local NONE, total = 0xffffffff, K + N
local nx, pv, target = {}, {}, {}
for i = 0, total - 1 do
  nx[i + 1] = (i < K - 1) and i + 1 or NONE
  pv[i + 1] = (i > 0 and i < K) and i - 1 or NONE
end
-- Thread t inserts after a node picked by t // 4 (a multiplicative hash), never the tail.
for t = 0, N - 1 do target[t + 1] = ((t // 4) * 2654435761 >> 7) % (K - 1) end
local next_d <close> = cuda.array("u32", total):set(nx)
local prev_d <close> = cuda.array("u32", total):set(pv)
local locks <close> = cuda.array("u32", total):zero()
local target_d <close> = cuda.array("u32", N):set(target)
local status <close> = cuda.array("u32", 2):zero()
local t0, t1 = cuda.event(), cuda.event()
t0:record()
k:launch((N + p.block - 1) // p.block, p.block, N, K, target_d, next_d, prev_d, locks,
         p.timeout_ms * 1000000, status)
t1:record()
t1:synchronize()
local ms = t0:elapsed(t1)
local st, nxt, prv, lk = status:get(), next_d:get(), prev_d:get(), locks:get()

if st[1] > 0 then
  print(string.format("deadlocked: %d inserts gave up waiting %d ms for a lock", st[1], p.timeout_ms))
end
c:eq(st[1], 0, "no insert gave up at the deadline (not deadlocked)")
-- Walk both ways, at most `total` steps each (a cycle must not hang the host either).
local fwd, bwd, seen, dup = {}, {}, {}, nil
local node = 0
while node ~= NONE and node < total and #fwd < total + 1 do
  fwd[#fwd + 1] = node
  if seen[node] then dup = dup or node end
  seen[node] = true
  node = nxt[node + 1]
end
node = K - 1
while node ~= NONE and node < total and #bwd < total + 1 do
  bwd[#bwd + 1] = node
  node = prv[node + 1]
end
local agree = #fwd == #bwd
for i = 1, #fwd do agree = agree and fwd[i] == bwd[#bwd + 1 - i] end
c:eq(#fwd, total, "the forward walk visits all " .. total .. " nodes")
c:that(dup == nil and fwd[#fwd] == K - 1, "no node appears twice, the walk ends at the tail",
       dup and ("node " .. dup .. " repeats") or nil)
c:that(agree, "the backward walk is the forward walk reversed", #bwd .. " nodes backward")
-- Each initial node i is followed by exactly the new nodes that targeted it.
local wanted, got = {}, {}
for t = 0, N - 1 do
  local a = target[t + 1]
  wanted[a] = (wanted[a] or 0) + 1
end
local owner, bad = nil, 0
for _, v in ipairs(fwd) do
  if v < K then owner = v else
    got[owner] = (got[owner] or 0) + 1
    if target[v - K + 1] ~= owner then bad = bad + 1 end
  end
end
c:eq(bad, 0, "every new node sits right after its own target, before the next initial node")
local free = true
for _, l in ipairs(lk) do free = free and l == 0 end
c:that(free, "every lock is free at the end")

local rows = {}
for i = 0, math.min(K - 2, 7) do rows[#rows + 1] = {i, wanted[i] or 0, got[i] or 0} end
report.table(rows, {title = "first initial nodes: inserts aimed at each, nodes found after it",
                    columns = {"node", "inserts", "found"}})
print(string.format("%d inserts in %.3f ms (%d failed lock attempts while spinning)", N, ms, st[2]))
if p.save then
  local all = {}
  for i = 0, K - 2 do all[#all + 1] = {i, wanted[i] or 0, got[i] or 0} end
  report.save("results/its_list.csv", all, {columns = {"node", "inserts", "found"}})
end
c:summary()
