-- trace.lua: the per-lane trace: WL_TRACE(tag) in a kernel, one timeline per warp here.
-- Shows:  a warp that splits at an if/else (lanes 0-15 | 16-31); one side runs a loop of
--         lane % 4 iterations (lanes drop out one by one), the other splits again by
--         parity; then __syncwarp() and J. Rows = lanes, columns = steps in clock order,
--         cells = tags, bottom row = lanes in the step. Records are 8 u32 each
--         {tag, block, warp, lane, SM, active mask, clock lo, clock hi}: see trace.cuh.
-- Expect: each lane's tags in clock order are exactly its path through the code; no step
--         mixes lanes of the two sides; loop step k holds only lanes with lane % 4 > k;
--         J is one step of all 32 lanes.
-- Run:    warplab run examples/warps/trace.lua   (-p warps=2 -p save=true)
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local trace = require "warplab.trace"
local p = params{warps = 2, save = false}

local dev = cuda.device()
print(dev)
local m = assert(cuda.compile("warps/divergence.cu"))
local k = m.divergence_nested
print(k)
local PER_WARP = 136 -- S 32 + a 16 + loop 24 + b 16 + e/o 16 + J 32
print(string.format("plan: %d warps of divergence_nested, %d trace events each", p.warps, PER_WARP))
if not dev.live then
  print("no GPU here (" .. dev.source .. "): the kernel compiled; tracing needs one")
  require("warplab.experiment").skipped(p.save and {"results/trace.svg"})
  return
end
local c = check.new("trace")
local ws = dev.attr.warp_size
local buf <close> = trace.buffer(PER_WARP * p.warps)
k:launch(1, ws * p.warps, buf)
local d = trace.decode(buf)

local raw = {}
for i = 1, 6 do
  local e = d.events[i]
  raw[i] = {e.seq, trace.tag_text(e.tag), e.block, e.warp, e.lane, e.sm, trace.mask_hex(e.mask),
            e.clock}
end
report.table(raw, {title = "the first decoded records (slot order)",
                   columns = {"slot", "tag", "block", "warp", "lane", "SM", "mask", "clock"}})
local warps = trace.warps(d)
print()
trace.timeline(warps[1])
for i = 2, #warps do print(trace.brief(warps[i])) end
report.table(trace.steps_table(warps[1]), {title = "warp 0 step by step",
             columns = {"step", "tag", "mask", "lanes", "cycle", "full"}})

-- The path each lane must take through the kernel, as tags.
local function path(lane)
  local tags = {"S"}
  if lane < 16 then
    tags[#tags + 1] = "a"
    for i = 0, lane % 4 - 1 do tags[#tags + 1] = tostring(i) end
  else
    tags[#tags + 1] = "b"
    tags[#tags + 1] = (lane % 2 == 1) and "o" or "e"
  end
  tags[#tags + 1] = "J"
  return table.concat(tags, " ")
end
-- Lanes a step with this tag may contain (a mask), by the code's structure.
local LOW, HIGH, EVEN, ODD = 0x0000ffff, 0xffff0000, 0x55555555, 0xaaaaaaaa
local function allowed(tag)
  if tag == "a" then return LOW end
  if tag == "b" then return HIGH end
  if tag == "e" then return HIGH & EVEN end
  if tag == "o" then return HIGH & ODD end
  local it = tonumber(tag)
  if it then
    local mk = 0
    for l = 0, 15 do if l % 4 > it then mk = mk | (1 << l) end end
    return mk
  end
  return 0xffffffff
end

local paths_ok, sides_ok, self_ok, order_ok, j_ok = 0, true, true, true, true
for _, w in ipairs(warps) do
  local by_lane = {}
  for _, e in ipairs(w.events) do -- clock order
    by_lane[e.lane] = by_lane[e.lane] or {}
    table.insert(by_lane[e.lane], e)
    self_ok = self_ok and (e.mask >> e.lane) & 1 == 1
  end
  for lane = 0, ws - 1 do
    local tags, evs = {}, by_lane[lane] or {}
    for i, e in ipairs(evs) do
      tags[i] = trace.tag_text(e.tag)
      if i > 1 then order_ok = order_ok and e.seq > evs[i - 1].seq end
    end
    if table.concat(tags, " ") == path(lane) then paths_ok = paths_ok + 1 end
  end
  for _, s in ipairs(w.steps) do
    sides_ok = sides_ok and s.mask & ~allowed(trace.tag_text(s.tag)) == 0
  end
  local js = trace.masks(w, "J")
  j_ok = j_ok and #js == 1 and js[1] == 0xffffffff
end
c:eq(#d.events, PER_WARP * p.warps, "every WL_TRACE was recorded, none dropped")
c:eq(paths_ok, ws * #warps, "each lane's tags in clock order are its path through the code")
c:that(order_ok, "per lane, clock order = the order its events were recorded")
c:that(self_ok, "every event's active mask contains the recording lane")
c:that(sides_ok, "no step mixes the sides; loop step k has only lanes with lane % 4 > k")
c:that(j_ok, "J after __syncwarp() is one step of all 32 lanes in every warp")
if p.save then
  print("wrote " .. trace.svg(warps, "results/trace.svg",
                              {title = "divergence_nested: per-lane trace"}))
end
c:summary()
