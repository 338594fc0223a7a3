-- lib_trace.lua: warplab.trace on a synthetic buffer laid out as trace.cuh writes it:
-- decoding (fields, 64-bit clocks, dropped events), grouping into steps, the terminal
-- timeline (divergence = disjoint masks, reconvergence = full mask), the SVG, and errors.
-- Depends on: warplab.trace, warplab.test; writes one file under /tmp.
local t = require "warplab.test"
local trace = require "warplab.trace"

local EVEN, ODD, FULL = 0x55555555, 0xaaaaaaaa, 0xffffffff

-- Words of a buffer holding `steps` ({tag, block, warp, mask, clock, sm}) recorded in
-- order, each step one event per lane of its mask, lanes ascending, as the device would.
-- `capacity` defaults to the number of events; `extra` claims that many more (dropped).
local function buffer(steps, capacity, extra)
  local events = {}
  for _, s in ipairs(steps) do
    for _, lane in ipairs(trace.lanes(s[4])) do
      events[#events + 1] = {s[1]:byte(), s[2], s[3], lane, s[6] or 7, s[4], s[5]}
    end
  end
  capacity = capacity or #events
  local w = trace.header(capacity)
  w[1] = #events + (extra or 0)
  for i = 1, capacity do
    local e = events[i] or {0, 0, 0, 0, 0, 0, 0}
    local clock = e[7]
    for k = 1, 6 do w[#w + 1] = e[k] end
    w[#w + 1] = clock & 0xffffffff
    w[#w + 1] = clock >> 32
  end
  return w
end

-- A warp that splits by lane parity and reconverges; its clocks straddle 2^32 so the
-- high word matters. A second warp (block 1) runs converged.
local BASE = (1 << 32) - 20
local DIVERGENT = {
  {"S", 0, 0, FULL, BASE}, {"A", 0, 0, EVEN, BASE + 10}, {"B", 0, 0, ODD, BASE + 30},
  {"J", 0, 0, FULL, BASE + 50},
  {"S", 1, 0, FULL, 500, 9}, {"A", 1, 0, FULL, 510, 9}, {"J", 1, 0, FULL, 530, 9},
}

t.case("decode: header, fields, 64-bit clocks, slot order", function()
  local d = trace.decode(buffer(DIVERGENT))
  t.eq(d.capacity, 2 * (32 + 16 + 16 + 32))
  t.eq(#d.events, d.capacity)
  t.eq(d.dropped, 0)
  local e = d.events[33] -- first event of step A: lane 0
  t.eq({e.seq, string.char(e.tag), e.block, e.warp, e.lane, e.mask, e.sm},
       {32, "A", 0, 0, 0, EVEN, 7})
  t.eq(d.events[49].lane, 1, "B step starts at lane 1")
  t.eq(d.events[49].clock, BASE + 30)
  assert(d.events[49].clock > 0xffffffff, "clock keeps its high word")
end)

t.case("decode: events past capacity are counted as dropped, not read", function()
  local d = trace.decode(buffer(DIVERGENT, 40, 5))
  t.eq(#d.events, 40)
  t.eq(d.claimed, 192 + 5)
  t.eq(d.dropped, 192 + 5 - 40)
end)

t.case("warps and steps: one step per (clock, tag, mask), ordered by clock", function()
  local ws = trace.warps(trace.decode(buffer(DIVERGENT)))
  t.eq(#ws, 2)
  t.eq({ws[1].block, ws[1].warp, #ws[1].steps}, {0, 0, 4})
  t.eq({ws[2].block, ws[2].sm, #ws[2].steps}, {1, 9, 3})
  local tags, masks = {}, {}
  for i, s in ipairs(ws[1].steps) do tags[i], masks[i] = string.char(s.tag), s.mask end
  t.eq(tags, {"S", "A", "B", "J"})
  t.eq(masks, {FULL, EVEN, ODD, FULL})
  t.eq(trace.masks(ws[1], "A"), {EVEN})
  t.eq(trace.masks(ws[1], "Z"), {})
  t.eq(trace.brief(ws[1]), "block 0 warp 0: S(32) A(16) B(16) J(32)")
  local rows = trace.steps_table(ws[1])
  t.eq({rows[3].tag, rows[3].mask, rows[3].lanes, rows[3].cycle}, {"B", "0xaaaaaaaa", 16, 30})
end)

t.case("timeline: rows are lanes, cells tags, counts of active lanes below", function()
  local ws = trace.warps(trace.decode(buffer(DIVERGENT)))
  local text = trace.timeline(ws[1], {print = false, color = false})
  local lines = {}
  for line in text:gmatch("[^\n]+") do lines[#lines + 1] = line end
  t.eq(lines[1], "block 0 warp 0 (SM 7): 96 events in 4 steps")
  t.eq(lines[2], "step      0  1  2  3")
  t.eq(lines[3], "lane  0   S  A  .  J")
  t.eq(lines[4], "lane  1   S  .  B  J")
  t.eq(lines[34], "lane 31   S  .  B  J")
  t.eq(lines[35], "lanes    32 16 16 32")
  t.eq(#lines, 35)
end)

t.case("timeline: long traces are cut at max_steps and say so", function()
  local steps = {}
  for i = 1, 10 do steps[i] = {"L", 0, 0, 1 << (i - 1), 100 + i} end
  local ws = trace.warps(trace.decode(buffer(steps)))
  local text = trace.timeline(ws[1], {print = false, color = false, max_steps = 4})
  assert(text:find("lane  3   .  .  .  L\n", 1, true), text)
  assert(text:find("(6 more steps not shown; opts.max_steps)", 1, true), text)
end)

t.case("svg: one coloured cell per event, tags escaped, well formed", function()
  local steps = {{"<", 0, 0, EVEN, 1}, {"&", 0, 0, ODD, 2}}
  local ws = trace.warps(trace.decode(buffer(steps)))
  local path = os.tmpname()
  trace.svg(ws, path, {title = "a & b"})
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  os.remove(path)
  assert(s:find('^<svg xmlns="http://www.w3.org/2000/svg"'))
  assert(s:find("</svg>\n$"))
  local cells = 0
  for _ in s:gmatch("<rect [^>]*><title>lane %d+, step %d+") do cells = cells + 1 end
  t.eq(cells, 32)
  assert(s:find("tag &lt;, mask 0x55555555 (16 lanes), cycle +0", 1, true))
  assert(s:find(">a &amp; b</text>", 1, true))
  assert(not s:find("&[^#%w]"), "stray &")
end)

t.case("errors name the problem", function()
  t.checkerror("not a trace buffer", trace.decode, {1, 2, 3, 4})
  local w = buffer(DIVERGENT)
  w[#w] = nil
  t.checkerror("cannot hold 192 records of 8 words", trace.decode, w)
  t.checkerror("capacity must be a positive integer", trace.header, 0)
  t.checkerror("expected a warp from trace.warps", trace.timeline, {})
  t.checkerror("expected the trace buffer or its words", trace.decode, 5)
end)

t.run{exit = true}
