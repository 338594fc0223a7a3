-- syncblocks.lua: the Handbook's home-made __syncblocks() (atomic counter + spin) works while the whole grid is resident and deadlocks one block past it.
-- Shows:  grids from half the co-resident capacity (blocks per SM x SMs) to twice it run
--         `rounds` barriers, each followed by a read of the neighbour block's value. The
--         spin has a %globaltimer deadline, so a grid that cannot all be resident reports
--         "deadlocked" instead of hanging. Then the same kernel launched cooperatively:
--         fine within capacity, refused before launch above it. With -p forever=true the
--         version without a deadline is launched above capacity: it never ends, and only
--         `warplab --timeout S` stops it (exit 7, naming the grid against the capacity).
-- Expect: grid <= capacity: every block completes every round, no mismatch; grid >
--         capacity: the resident blocks give up at the deadline and exactly grid -
--         capacity blocks start only after that; the cooperative launch within capacity
--         completes, one block more is refused with one sentence.
-- Run:    warplab run examples/sync/syncblocks.lua [-p block=256] [-p rounds=3] [-p timeout_ms=100] [-p save=true]
--         warplab --timeout 2 run examples/sync/syncblocks.lua -p forever=true   (only with --timeout)
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local sync = require "warplab.sync"
local p = params{block = 256, rounds = 3, timeout_ms = 100, forever = false, save = false}

local dev = cuda.device()
local m = assert(cuda.compile("sync/syncblocks.cu"))
local k, kf = m.syncblocks, m.syncblocks_forever
local c = check.new("syncblocks")
local cap = sync.capacity(k, p.block)
local occ = k:occupancy{block = p.block}
print(string.format("%s: %s, block %d: %d blocks per SM (limited by %s) x %d SMs = %d co-resident blocks%s", dev.name,
      k.name, p.block, cap.blocks_per_sm, cap.limiter, cap.sms, cap.capacity,
      occ.driver_blocks_per_sm and string.format(" (the driver says %d per SM)", occ.driver_blocks_per_sm) or ""))
if occ.driver_blocks_per_sm then
  c:eq(occ.driver_blocks_per_sm, cap.blocks_per_sm, "the occupancy calculator agrees with the driver")
end
local grids = {cap.capacity // 2, cap.capacity, cap.capacity + 1, 2 * cap.capacity}
local NAMES = {[grids[1]] = "capacity / 2", [grids[2]] = "capacity", [grids[3]] = "capacity + 1", [grids[4]] = "2 x capacity"}
local plan = {}
for i, g in ipairs(grids) do
  plan[i] = {g, cap.capacity, NAMES[g],
             g <= cap.capacity and "completes" or "deadlocks: " .. g - cap.capacity .. " block(s) cannot start"}
end
local pcols = {"grid", "co-resident", "grid is", "prediction"}
report.table(plan, {title = "capacity against grid", columns = pcols})
if p.save then print("saved " .. report.save("results/syncblocks_predicted.csv", plan, {columns = pcols})) end
local over = cap.capacity + 1
local ok, why = k:check{grid = over, block = p.block, cooperative = true}
local refusal = string.format("cooperative grid of %d blocks exceeds the %d co-resident blocks (%d per SM × %d SMs)",
                              over, cap.capacity, cap.blocks_per_sm, cap.sms)
c:eq(ok, false, "k:check refuses a cooperative grid one block above capacity")
c:eq(why, refusal, "with the sentence")
c:eq(k:check{grid = cap.capacity, block = p.block, cooperative = true}, true, "and accepts it at capacity")
if ex.offline(dev, "running the barriers", p.save and {"results/syncblocks.csv"}) then return c:summary() end

local timeout = p.timeout_ms * 1000000
local count <close> = cuda.array("u32", 1)
local data <close> = cuda.array("u32", p.rounds * grids[#grids])
local status <close> = cuda.array("u32", 3)
local start <close> = cuda.array("u64", grids[#grids])
if p.forever then
  print(string.format("\nsyncblocks_forever: grid %d > %d co-resident, no deadline. This launch never ends by "
                      .. "itself: run it under `warplab --timeout S` (or stop it with Ctrl-C).", 2 * cap.capacity, cap.capacity))
  count:zero()
  kf:launch(2 * cap.capacity, p.block, p.rounds, count, data, status)
  print("blocks arrived: " .. count[1]) -- waits for the kernel: the watchdog fires here
  return c:summary()
end

-- One launch of `grid` blocks: {completed, deadlocked, mismatches, late starters, ms}.
local function run(grid, cooperative)
  count:zero(); status:zero(); start:zero()
  local e0, e1 = cuda.event(), cuda.event()
  e0:record()
  k{grid = grid, block = p.block, cooperative = cooperative, args = {p.rounds, timeout, count, data, status, start}}
  e1:record()
  e1:synchronize()
  local st, s = status:get(), start:get()
  local first = math.huge
  for b = 1, grid do first = math.min(first, s[b]) end
  local late = 0
  for b = 1, grid do if s[b] - first > timeout / 2 then late = late + 1 end end
  return {grid = grid, vs_capacity = NAMES[grid], cooperative = cooperative and "yes" or "no",
          completed = st[1], deadlocked = st[2], mismatches = st[3], late_starters = late, ms = e0:elapsed(e1)}
end

local res = {}
for i, g in ipairs(grids) do res[i] = run(g, false) end
res[#res + 1] = run(cap.capacity, true)
for _, r in ipairs(res) do
  r.verdict = r.deadlocked > 0 and "deadlocked (the deadline broke the spin)" or "completed"
end
local cols = {"grid", "vs_capacity", "cooperative", "completed", "deadlocked", "mismatches", "late_starters", "ms", "verdict"}
report.table(res, {title = string.format("%d rounds of __syncblocks, deadline %d ms, capacity %d blocks", p.rounds,
                   p.timeout_ms, cap.capacity), columns = cols, format = {ms = "%.1f"}})
print("late_starters: blocks that started more than half a deadline after the first block, i.e. only once "
      .. "resident blocks had given up and left their SMs")
for _, r in ipairs(res) do
  local what = string.format("grid %d%s", r.grid, r.cooperative == "yes" and " (cooperative)" or "")
  if r.grid <= cap.capacity then
    c:eq({r.completed, r.deadlocked, r.mismatches, r.late_starters}, {r.grid, 0, 0, 0},
         what .. " <= capacity: every block completed every round, read its neighbour's value, none started late")
  else
    c:that(r.deadlocked > 0 and r.late_starters == r.grid - cap.capacity,
           what .. " > capacity: deadlocked, and exactly grid - capacity blocks could not start until others gave up",
           string.format("%d blocks deadlocked, %d started late", r.deadlocked, r.late_starters))
  end
end
local launched, err = pcall(function()
  k{grid = over, block = p.block, cooperative = true, args = {p.rounds, timeout, count, data, status, start}}
end)
c:that(not launched and err:find(refusal, 1, true) ~= nil,
       "a cooperative launch one block above capacity is refused before it runs", err)
if p.save then print("saved " .. report.save("results/syncblocks.csv", res, {columns = cols})) end
c:summary()
