-- warplab/trace.lua: the host side of kernels_src/include/warplab/trace.cuh. Makes the
-- buffer, decodes its fixed-size u32 records into events, groups each warp's events into
-- steps (lanes that recorded together) and renders a per-warp timeline: rows = lanes,
-- columns = steps, cells = tags, in the terminal and as SVG (warplab.trace_svg).
-- Depends on: warplab.util; the global `cuda` only in trace.buffer (decoding is pure Lua).
local util = require "warplab.util"

local trace = {}

-- The layout trace.cuh writes; see the comment at the top of that file.
trace.HEADER_WORDS = 4
trace.RECORD_WORDS = 8
trace.MAGIC = 0x574C5431 -- "WLT1"
local FULL = 0xffffffff

-- The header words for an empty buffer of `capacity` records.
function trace.header(capacity)
  if math.type(capacity) ~= "integer" or capacity < 1 then
    error("trace.header: capacity must be a positive integer of records, got "
          .. tostring(capacity), 2)
  end
  return {0, capacity, trace.MAGIC, trace.RECORD_WORDS}
end

-- A zeroed device buffer for `capacity` records with its header written: pass it as the
-- kernel's `unsigned* trace` argument. Needs the cuda module (warplab run).
function trace.buffer(capacity)
  local cuda = rawget(_G, "cuda")
  if type(cuda) ~= "table" then error("trace.buffer: needs the cuda module (warplab run)", 2) end
  local header = trace.header(capacity)
  local buf = cuda.array("u32", trace.HEADER_WORDS + capacity * trace.RECORD_WORDS):zero()
  return buf:set(header, 1)
end

-- Empty a buffer for the next launch (the record area need not be cleared: only slots
-- below the event count are read).
function trace.reset(buf)
  buf:set({0}, 1)
  return buf
end

-- trace.decode(words) -> {capacity, claimed, dropped, events}. `words` is a Lua list of
-- u32 (1-based) or a cuda.array, read with :get(). Events come in slot order (the order
-- lanes claimed them); `seq` is that slot, from 0.
function trace.decode(words)
  if type(words) == "userdata" then words = words:get() end
  if type(words) ~= "table" then
    error("trace.decode: expected the trace buffer or its words, got " .. util.kind(words), 2)
  end
  if #words < trace.HEADER_WORDS or words[3] ~= trace.MAGIC then
    error(string.format("trace.decode: not a trace buffer (%d words, magic %s; expected %s:"
                        .. " make it with trace.buffer)", #words, tostring(words[3]),
                        string.format("0x%08X", trace.MAGIC)), 2)
  end
  local claimed, capacity, rw = words[1], words[2], words[4]
  if rw ~= trace.RECORD_WORDS or #words < trace.HEADER_WORDS + capacity * rw then
    error(string.format("trace.decode: %d words cannot hold %d records of %d words",
                        #words, capacity, rw), 2)
  end
  local n = math.min(claimed, capacity)
  local events = {}
  for i = 0, n - 1 do
    local b = trace.HEADER_WORDS + i * rw
    events[i + 1] = {seq = i, tag = words[b + 1], block = words[b + 2], warp = words[b + 3],
                     lane = words[b + 4], sm = words[b + 5], mask = words[b + 6],
                     clock = words[b + 7] | (words[b + 8] << 32)}
  end
  return {capacity = capacity, claimed = claimed, dropped = claimed - n, events = events}
end

-- A tag as text: the character for printable ASCII (WL_TRACE('A')), else the number.
function trace.tag_text(tag)
  if tag >= 33 and tag <= 126 then return string.char(tag) end
  return tostring(tag)
end

function trace.mask_hex(mask) return string.format("0x%08x", mask) end

-- Number of set bits of a 32-bit mask.
function trace.popcount(mask)
  local n = 0
  while mask ~= 0 do
    mask = mask & (mask - 1)
    n = n + 1
  end
  return n
end

-- The list of lanes set in a mask, ascending.
function trace.lanes(mask)
  local out = {}
  for l = 0, 31 do
    if (mask >> l) & 1 == 1 then out[#out + 1] = l end
  end
  return out
end

-- Group a warp's events into steps. Lanes that execute WL_TRACE together read the same
-- clock64 (one instruction for all active lanes), so a step is one (clock, tag, mask);
-- steps are ordered by clock, which is per-SM and monotonic, hence a warp's time order.
local function steps_of(events)
  local by_key, steps = {}, {}
  for _, e in ipairs(events) do
    local key = e.clock .. ":" .. e.tag .. ":" .. e.mask
    local s = by_key[key]
    if not s then
      s = {tag = e.tag, mask = e.mask, clock = e.clock, seq = e.seq, lanes = {}, n = 0}
      by_key[key] = s
      steps[#steps + 1] = s
    end
    s.lanes[e.lane] = true
    s.n = s.n + 1
    if e.seq < s.seq then s.seq = e.seq end
  end
  table.sort(steps, function(a, b)
    if a.clock ~= b.clock then return a.clock < b.clock end
    return a.seq < b.seq
  end)
  for i, s in ipairs(steps) do s.index = i end
  return steps
end

-- trace.warps(decoded or events) -> list of {block, warp, sm, events, steps}, ordered by
-- block then warp; each warp's events sorted by clock, then slot.
function trace.warps(t)
  local events = t.events or t
  local by_id, list = {}, {}
  for _, e in ipairs(events) do
    local id = e.block .. ":" .. e.warp
    local w = by_id[id]
    if not w then
      w = {block = e.block, warp = e.warp, sm = e.sm, events = {}}
      by_id[id] = w
      list[#list + 1] = w
    end
    w.events[#w.events + 1] = e
  end
  table.sort(list, function(a, b)
    if a.block ~= b.block then return a.block < b.block end
    return a.warp < b.warp
  end)
  for _, w in ipairs(list) do
    table.sort(w.events, function(a, b)
      if a.clock ~= b.clock then return a.clock < b.clock end
      return a.seq < b.seq
    end)
    w.steps = steps_of(w.events)
  end
  return list
end

-- The distinct masks a warp recorded with `tag` (in step order).
function trace.masks(w, tag)
  if type(tag) == "string" then tag = tag:byte() end
  local out, seen = {}, {}
  for _, s in ipairs(w.steps) do
    if s.tag == tag and not seen[s.mask] then
      seen[s.mask] = true
      out[#out + 1] = s.mask
    end
  end
  return out
end

-- Tag colours for the terminal: bold foreground from the 8 basic ANSI colours (every
-- terminal has them), assigned in order of first appearance.
local ANSI = {36, 33, 35, 32, 34, 31, 96, 93}

-- trace.timeline(w [, opts]) -> text, printed unless opts.print == false. Rows are lanes
-- 0..31, columns steps (3 characters each), a cell is the tag when the lane recorded in
-- that step and "." when it did not; the last row counts the lanes of each step.
-- opts.max_steps (default 32) cuts long timelines; opts.color; opts.title.
function trace.timeline(w, opts)
  opts = util.options(opts, "trace.timeline")
  if type(w) ~= "table" or type(w.steps) ~= "table" then
    error("trace.timeline: expected a warp from trace.warps, got " .. util.kind(w), 2)
  end
  local color = opts.color
  if color == nil then color = require("warplab.report").color end
  local max_steps = opts.max_steps or 32
  local shown = math.min(#w.steps, max_steps)
  local out = {}
  out[#out + 1] = opts.title or string.format("block %d warp %d (SM %d): %d events in %d steps",
                                              w.block, w.warp, w.sm, #w.events, #w.steps)
  local colors, ncolors = {}, 0
  local header = {"step    "}
  for i = 1, shown do header[#header + 1] = string.format("%3d", i - 1) end
  out[#out + 1] = table.concat(header)
  local max_lane = 31
  for _, e in ipairs(w.events) do max_lane = math.max(max_lane, e.lane) end
  for lane = 0, max_lane do
    local row = {string.format("lane %2d ", lane)}
    for i = 1, shown do
      local s = w.steps[i]
      local cell = "  ."
      if s.lanes[lane] then
        local text = trace.tag_text(s.tag)
        cell = util.pad_left(text, 3)
        if color then
          if not colors[s.tag] then
            ncolors = ncolors + 1
            colors[s.tag] = ANSI[(ncolors - 1) % #ANSI + 1]
          end
          cell = string.format("%s\27[1;%dm%s\27[0m", string.rep(" ", 3 - #text), colors[s.tag], text)
        end
      end
      row[#row + 1] = cell
    end
    out[#out + 1] = table.concat(row)
  end
  local counts = {"lanes   "}
  for i = 1, shown do counts[#counts + 1] = string.format("%3d", trace.popcount(w.steps[i].mask)) end
  out[#out + 1] = table.concat(counts)
  if shown < #w.steps then
    out[#out + 1] = string.format("(%d more steps not shown; opts.max_steps)", #w.steps - shown)
  end
  local text = table.concat(out, "\n")
  if opts.print ~= false then print(text) end
  return text
end

-- trace.steps_table(w) -> rows for report.table: step, tag, mask, lanes, cycles since the
-- warp's first step. The numbers behind the picture.
function trace.steps_table(w)
  local rows, t0 = {}, w.steps[1] and w.steps[1].clock or 0
  for i, s in ipairs(w.steps) do
    rows[i] = {step = i - 1, tag = trace.tag_text(s.tag), mask = trace.mask_hex(s.mask),
               lanes = trace.popcount(s.mask), cycle = s.clock - t0,
               full = (s.mask == FULL) and "full" or ""}
  end
  return rows
end

-- trace.brief(w) -> one line: the warp's steps as tag(lanes), e.g. "S(32) A(16) B(16)
-- J(32)": a compact timeline for warps that do not need the full picture.
function trace.brief(w)
  local parts = {}
  for i, s in ipairs(w.steps) do
    parts[i] = string.format("%s(%d)", trace.tag_text(s.tag), trace.popcount(s.mask))
  end
  return string.format("block %d warp %d: %s", w.block, w.warp, table.concat(parts, " "))
end

-- trace.svg(warps, path [, opts]): the same timelines as an SVG file (warplab.trace_svg).
function trace.svg(warps, path, opts)
  return require("warplab.trace_svg").write(warps, path, util.options(opts, "trace.svg"), trace)
end

return util.api("trace", trace)
