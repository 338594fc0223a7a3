-- its_spinlock.lua: a spin lock contended by the lanes of ONE warp completes (sm_70+).
-- Shows:  all 32 lanes of a single warp take one global lock `iters` times each with the
--         textbook loop `while (atomicCAS(lock, 0, 1) != 0) {}`, critical section, release.
--         Before Volta the warp kept running the spinning lanes and the winner never
--         released: a deadlock. Each spin has a %globaltimer deadline, so a failure is
--         reported as "deadlocked" instead of hanging the GPU.
-- Expect: counter = 32 x iters exactly (the critical section's read-modify-write is not
--         atomic), every lane finished, no lane hit the deadline, no lane ever found another
--         inside; in the trace every critical section (L) runs with exactly one lane.
-- Run:    warplab run examples/warps/its_spinlock.lua   (-p iters=64 -p timeout_ms=2000)
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local trace = require "warplab.trace"
local p = params{iters = 64, timeout_ms = 2000, save = false}

local dev = cuda.device()
print(dev)
local m = assert(cuda.compile("warps/its_spinlock.cu"))
local k = m.its_spinlock
print(k)
print(string.format("plan: one warp; each lane acquires the lock %d times; deadline %d ms", p.iters,
                    p.timeout_ms))
if not dev.live then
  print("no GPU here (" .. dev.source .. "): the kernel compiled; the lock needs one")
  require("warplab.experiment").skipped(p.save and {"results/its_spinlock_order.svg", "results/its_spinlock_trace.svg", "results/its_spinlock.csv"})
  return
end
local c = check.new("its_spinlock")
c:that(tonumber(dev.cc:match("^(%d+)")) >= 7, "the GPU has independent thread scheduling (sm_70+)",
       dev.arch)

local ws = dev.attr.warp_size
local total = ws * p.iters
local lock <close> = cuda.array("u32", 1):zero()
local counter <close> = cuda.array("u32", 1):zero()
local done <close> = cuda.array("u32", ws):zero()
local order <close> = cuda.array("u32", total):zero()
local status <close> = cuda.array("u32", 4):zero()
local t0, t1 = cuda.event(), cuda.event()
t0:record()
k:launch(1, ws, p.iters, p.timeout_ms * 1000000, lock, counter, done, order, status, nil)
t1:record()
t1:synchronize()
local ms = t0:elapsed(t1)
local st, n, per_lane = status:get(), counter[1], done:get()
local finished = 0
for _, d in ipairs(per_lane) do if d == p.iters then finished = finished + 1 end end

if st[1] > 0 then
  print(string.format("deadlocked: %d of %d lanes gave up waiting %d ms for the lock", st[1], ws,
                      p.timeout_ms))
end
c:eq(st[1], 0, "no lane hit the deadline (not deadlocked)")
c:eq(n, total, "counter = lanes x iters: no update lost")
c:eq(finished, ws, "every lane completed its " .. p.iters .. " acquisitions")
c:eq(st[3], 0, "no lane ever entered while another was inside")
c:eq(lock[1], 0, "the lock is free at the end")
report.table({{ws, p.iters, n, st[2], string.format("%.3f", ms),
               string.format("%.0f", ms * 1e6 / total)}},
             {columns = {"lanes", "iters", "counter", "failed CAS", "ms", "ns per acquisition"}})

-- Who got the lock when: row r holds acquisitions 32r .. 32r+31, the colour is the lane.
local ord = order:get()
local shown = {}
for i = 1, math.min(#ord, 16 * ws) do shown[i] = ord[i] end
report.heatmap(shown, {cols = ws, title = "acquisition order (first " .. #shown // ws .. " rows of "
                       .. ws .. "; colour = lane that held the lock)", legend = "lane", min = 0,
                       max = ws - 1, labels = true,
                       svg = p.save and "results/its_spinlock_order.svg" or nil})

-- Two acquisitions per lane, traced: L when a lane holds the lock, U just before release.
lock:zero(); counter:zero(); status:zero()
local buf <close> = trace.buffer(4 * ws * 2)
k:launch(1, ws, 2, p.timeout_ms * 1000000, lock, counter, done, order, status, buf)
local warps = trace.warps(trace.decode(buf))
local w = warps[1]
print("\nper-lane trace of 2 acquisitions per lane (first 32 steps):")
trace.timeline(w)
local alone = true
for _, s in ipairs(w.steps) do
  if s.tag == string.byte("L") and trace.popcount(s.mask) ~= 1 then alone = false end
end
c:that(alone and #w.events == 4 * ws, "trace: every critical section ran with exactly one lane",
       #w.events .. " events in " .. #w.steps .. " steps")
if p.save then
  trace.svg(warps, "results/its_spinlock_trace.svg", {title = "spin lock inside one warp"})
  report.save("results/its_spinlock.csv", {{ws, p.iters, n, st[2], ms}},
              {columns = {"lanes", "iters", "counter", "failed_cas", "ms"}})
end
c:summary()
