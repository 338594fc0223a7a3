-- divergent_barrier.lua: __syncthreads() in a branch not every thread takes, measured: who waits, for how long, and what the barrier joins.
-- Shows:  one block, two groups: A calls __syncthreads() inside a branch, B does not (it
--         waits for A to come out, with a %globaltimer deadline, then calls a
--         __syncthreads() of its own). Five arrangements: warps split, lanes split,
--         if/else with a barrier on each side, B's warps exiting, B's lanes exiting.
-- Expect: (sm_70+: a barrier waits for every thread that has not exited, at any call
--         site) split by warps or by lanes, A is held until B's deadline: without it the
--         block would hang (the text's deadlock); the if/else barriers act as one
--         barrier (every thread sees every flag set before it); exited threads do not
--         hold it. `warplab run --sanitize synccheck` reports the divergent barrier.
--         Lanes split (mode 1) is not run unless asked for: __syncthreads() compiles to
--         bar.sync, which is barrier.sync.aligned, so every lane of a warp must reach the
--         same barrier; split inside a warp the block may hang past any deadline (only
--         `warplab --timeout` ends it: `--timeout 10 run ... -p modes=1`).
-- Run:    warplab run examples/sync/divergent_barrier.lua [-p block=256] [-p timeout_ms=50] [-p modes=0,2,3,4] [-p save=true]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local sync = require "warplab.sync"
local p = params{block = 256, timeout_ms = 50, modes = "0,2,3,4", save = false}
local run = {}
for w in tostring(p.modes):gmatch("[^,]+") do
  local mode = tonumber(w)
  if not mode or mode ~= math.floor(mode) or mode < 0 or mode > 4 then
    error(string.format("modes: '%s' is not a mode number 0..4 (a comma-separated list)", w), 0)
  end
  run[mode + 1] = true
end

if p.block < 64 or p.block > 1024 or p.block % 64 ~= 0 then
  error(string.format("block %d: needs a multiple of 64 from 64 to 1024", p.block), 0)
end
local dev = cuda.device()
local m = assert(cuda.compile("sync/divergent_barrier.cu"))
local k = m.divergent_barrier
local c = check.new("divergent_barrier")
local MODES = {
  {"warps split", "first half of the warps", "the other warps wait for A, then __syncthreads()"},
  {"lanes split", "even lanes of every warp", "odd lanes wait for A, then __syncthreads()"},
  {"if/else", "first half of the warps", "__syncthreads() in the else branch"},
  {"warps exit", "first half of the warps", "return before any barrier"},
  {"lanes exit", "even lanes of every warp", "odd lanes return before any barrier"},
}
report.table(MODES, {title = "the arrangements (one block of " .. p.block .. " threads)", columns = {"mode", "A: calls __syncthreads() in the branch", "B"}})
local bars = sync.ptx_count(m, k, table.unpack(sync.BAR))
report.table({{k.name, k.regs, bars, k.barriers}}, {title = "the compiler's view (" .. m.arch .. ")",
             columns = {"kernel", "regs", "barriers in the PTX", "named barriers (ptxas)"}})
c:that(bars >= 2, "two __syncthreads() call sites in the PTX, one barrier (0) in hardware", bars .. " bar.sync")
if ex.offline(dev, "measuring the barriers", p.save and {"results/divergent_barrier.csv"}) then return c:summary() end

local cc = tonumber(dev.cc:match("^(%d+)"))
local timeout = p.timeout_ms * 1000000
local F = {group = 1, arrive = 2, pass = 3, seen = 4, timed_out = 5, partner = 6, n = 6}
local flags <close> = cuda.array("u32", p.block)
local rec <close> = cuda.array("u64", p.block * F.n)
local status <close> = cuda.array("u32", 1)
local res = {}
for mode = 0, #MODES - 1 do
  if not run[mode + 1] then goto next_mode end
  flags:zero(); rec:zero(); status:zero()
  k:launch(1, p.block, mode, timeout, flags, rec, status)
  local r = rec:get()
  local s = {mode = MODES[mode + 1][1], a = 0, b = 0, b_timed_out = 0, a_wait_min = math.huge, a_wait_max = 0, a_pass_min = math.huge, a_after_b = 0,
             seen_min = math.huge, seen_max = 0}
  for t = 0, p.block - 1 do
    local at = t * F.n
    local group = r[at + F.group]
    if group == 1 then
      s.a = s.a + 1
      local wait = r[at + F.pass] - r[at + F.arrive]
      s.a_wait_min, s.a_wait_max = math.min(s.a_wait_min, wait), math.max(s.a_wait_max, wait)
      s.a_pass_min = math.min(s.a_pass_min, r[at + F.pass])
      s.a_after_b = s.a_after_b + r[at + F.partner]
    else
      s.b = s.b + 1
      s.b_timed_out = s.b_timed_out + r[at + F.timed_out]
    end
    if group == 1 or mode < 3 then -- B threads that exited recorded nothing
      s.seen_min, s.seen_max = math.min(s.seen_min, r[at + F.seen]), math.max(s.seen_max, r[at + F.seen])
    end
  end
  -- Held: every A thread found, after its barrier, that its partner in B had already
  -- given up. An order, not a time: on the H100 the %globaltimer reads around bar.sync
  -- came out equal (ptxas may move them), so the stamps are printed but not relied on.
  local held = s.a > 0 and s.a_after_b == s.a
  s.a_out = sync.ns(s.a_pass_min)
  s.verdict = held and "A held until B gave up: would hang" or (s.seen_min == p.block and "one barrier for all"
              or "A passed at once")
  s.a_waited = sync.ns(s.a_wait_min) .. " .. " .. sync.ns(s.a_wait_max)
  res[mode + 1] = s
  ::next_mode::
end
local shown = {}
for i = 1, #MODES do if res[i] then shown[#shown + 1] = res[i] end end
local cols = {"mode", "a", "b", "a_waited", "a_out", "a_after_b", "b_timed_out", "seen_min", "seen_max", "verdict"}
report.table(shown, {title = string.format("measured on %s (sm_%d%s), B's deadline %d ms", dev.name, cc,
                   dev.cc:match("%.(%d+)"), p.timeout_ms), columns = cols})
print("a_waited: time A's threads spent in their barrier (least .. most); a_out: the earliest A thread out of it, from the kernel's start (timer stamps: see the note in the .cu); a_after_b: A threads that found their B partner had given up when they left the barrier; b_timed_out: B threads whose wait "
      .. "for A hit the deadline; seen: flags a thread found set after its barrier (B set theirs before waiting)")
local half = p.block // 2
for i = 1, 2 do
  if not res[i] then goto skip_held end
  c:that(res[i].b_timed_out == half and res[i].a_after_b == res[i].a,
         res[i].mode .. ": the barrier held A until B's deadline (every B timed out): a deadlock without it",
         string.format("%d of %d B timed out; %d of %d A left the barrier after their B partner gave up", res[i].b_timed_out,
                       half, res[i].a_after_b, res[i].a))
  c:eq({res[i].seen_min, res[i].seen_max}, {p.block, p.block}, res[i].mode .. ": after it every thread saw every flag")
  ::skip_held::
end
if res[3] then c:that(res[3].seen_min == p.block and res[3].a_wait_max < timeout / 2,
       "if/else: the two call sites acted as one barrier", string.format("fewest flags seen %d of %d", res[3].seen_min, p.block)) end
for i = 4, 5 do
  if res[i] then c:that(res[i].a_wait_max < timeout / 2 and res[i].seen_max == half,
         res[i].mode .. ": exited threads do not hold the barrier", "A waited at most " .. sync.ns(res[i].a_wait_max)) end
end
if p.save then print("saved " .. report.save("results/divergent_barrier.csv", shown, {columns = cols})) end
c:summary()
