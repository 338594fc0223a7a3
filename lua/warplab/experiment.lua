-- warplab/experiment.lua: pieces the warps and scheduling experiments share: the offline
-- notice, grouping, rank correlation, clustering, and the block-residency measurement
-- (kernels_src/scheduling/residency.cu): where and when each block ran, how many blocks
-- overlapped on each SM, and a per-SM timeline.
-- Depends on: the `cuda` global (compiles offline; residency runs need a GPU), warplab.util.
local util = require "warplab.util"
local experiment = {}

-- experiment.offline(dev, what [, skipped]) -> true (after saying so) when `dev` is a
-- profile, not a GPU: the script prints (and with -p save=true saves) its predictions
-- first, then returns. `skipped`: with -p save=true, the files only measurements make (a
-- list; nil or false without save), named so that a user sees what was not written.
function experiment.offline(dev, what, skipped)
  if dev.live then return false end
  print(string.format("\nno GPU here (%s): %s needs one. Everything above came from the "
                      .. "compiler and the occupancy calculator.", dev.source, what))
  experiment.skipped(skipped)
  return true
end

-- experiment.skipped(paths): the note for `skipped` above, for scripts that test dev.live
-- themselves. Nothing when paths is nil, false or empty.
function experiment.skipped(paths)
  if type(paths) == "table" and #paths > 0 then
    print("-p save=true: not written without a GPU (they hold measurements): " .. table.concat(paths, ", "))
  end
end

-- experiment.warp_lanes(n, ws) -> active lanes of each warp of an n-thread block: full
-- warps of ws lanes, the remainder in the last ({32, 32, 2} for 66 threads).
function experiment.warp_lanes(n, ws)
  if math.type(n) ~= "integer" or n < 1 or math.type(ws) ~= "integer" or ws < 1 then
    error("experiment.warp_lanes: expected positive integers n and ws", 2)
  end
  local lanes = {}
  for w = 1, (n + ws - 1) // ws do lanes[w] = math.min(ws, n - (w - 1) * ws) end
  return lanes
end

-- experiment.lane_picture(title, lanes, ws) prints one line per warp: # for an active
-- lane, . for an idle one, and the counts; returns the text.
function experiment.lane_picture(title, lanes, ws)
  local out = {title}
  for w, active in ipairs(lanes) do
    out[#out + 1] = string.format("  warp %d  %s%s  %2d active, %2d idle", w - 1, string.rep("#", active),
                                  string.rep(".", ws - active), active, ws - active)
  end
  local text = table.concat(out, "\n")
  print(text)
  return text
end

-- experiment.group(list, key_fn) -> groups (key -> list, in list order), keys (sorted).
function experiment.group(list, key_fn)
  if type(list) ~= "table" or type(key_fn) ~= "function" then
    error("experiment.group: expected a list and a key function", 2)
  end
  local groups, keys = {}, {}
  for _, v in ipairs(list) do
    local k = key_fn(v)
    if groups[k] == nil then groups[k] = {}; keys[#keys + 1] = k end
    local g = groups[k]
    g[#g + 1] = v
  end
  table.sort(keys)
  return groups, keys
end

-- Ranks 1..n of the values, ties sharing their average rank.
local function ranks(v)
  local idx = {}
  for i = 1, #v do idx[i] = i end
  table.sort(idx, function(a, b) return v[a] < v[b] end)
  local r, i = {}, 1
  while i <= #idx do
    local j = i
    while j < #idx and v[idx[j + 1]] == v[idx[i]] do j = j + 1 end
    for t = i, j do r[idx[t]] = (i + j) / 2 end
    i = j + 1
  end
  return r
end

-- experiment.spearman(x, y) -> rank correlation in -1..1 (0 when either is constant).
function experiment.spearman(x, y)
  if type(x) ~= "table" or type(y) ~= "table" or #x ~= #y or #x < 2 then
    error("experiment.spearman: expected two lists of the same length >= 2", 2)
  end
  local rx, ry, n = ranks(x), ranks(y), #x
  local mx, my = (n + 1) / 2, (n + 1) / 2
  local sxy, sxx, syy = 0, 0, 0
  for i = 1, n do
    sxy = sxy + (rx[i] - mx) * (ry[i] - my)
    sxx = sxx + (rx[i] - mx) ^ 2
    syy = syy + (ry[i] - my) ^ 2
  end
  if sxx == 0 or syy == 0 then return 0 end
  return sxy / math.sqrt(sxx * syy)
end

-- experiment.clusters(values, gap) -> list of {lo =, hi =, n =}: the sorted values cut
-- wherever two neighbours are more than `gap` apart.
function experiment.clusters(values, gap)
  local s = {}
  for i, v in ipairs(values) do s[i] = v end
  table.sort(s)
  local out = {}
  for _, v in ipairs(s) do
    local last = out[#out]
    if last and v - last.hi <= gap then
      last.hi, last.n = v, last.n + 1
    else
      out[#out + 1] = {lo = v, hi = v, n = 1}
    end
  end
  return out
end

-- experiment.max_overlap(intervals) -> the most {start, stop} intervals covering one
-- instant. A start at the very time another interval stops does not overlap it: a
-- block that replaces a finished one reads the timer after that one's last read.
function experiment.max_overlap(intervals)
  local ev = {}
  for _, iv in ipairs(intervals) do
    ev[#ev + 1] = {iv[1], 1}
    ev[#ev + 1] = {iv[2], -1}
  end
  table.sort(ev, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    return a[2] < b[2] -- stops before starts at equal times
  end)
  local cur, best = 0, 0
  for _, e in ipairs(ev) do
    cur = cur + e[2]
    if cur > best then best = cur end
  end
  return best
end

-- Fields of one block's record in residency.cu (u64 each).
local START, STOP, SM, TICKET, FIELDS = 1, 2, 3, 4, 4

-- experiment.residency_kernel{nacc =, smem =, max_registers =, bounds = {threads,
-- min_blocks}} -> the residency kernel compiled with those knobs (see residency.cu).
function experiment.residency_kernel(o)
  o = o or {}
  local defines = {NACC = o.nacc or 4, SMEM_STATIC = o.smem or 0}
  if o.bounds then
    defines.BOUNDS_THREADS, defines.BOUNDS_MIN_BLOCKS = o.bounds[1], o.bounds[2]
  end
  local m, diag = cuda.compile{file = "scheduling/residency.cu", defines = defines,
                               max_registers = o.max_registers}
  if not m then error(diag, 2) end -- the diagnostics themselves: `warplab run` exits 5
  return m.residency
end

-- experiment.residency(k, {blocks =, block =, shared =, spin_us =}) -> one record per
-- block {block (0-based), sm, start, stop (ns after the earliest start), ticket}.
function experiment.residency(k, o)
  if type(o) ~= "table" or not o.blocks or not o.block then
    error("experiment.residency: expected {blocks =, block =, spin_us =}", 2)
  end
  local rec <close> = cuda.array("u64", o.blocks * FIELDS):zero()
  local counter <close> = cuda.array("u32", 1):zero()
  local sink <close> = cuda.array("f32", 1):zero()
  k{grid = o.blocks, block = o.block, shared = o.shared or 0,
    args = {rec, counter, sink, math.floor((o.spin_us or 1000) * 1000), o.iters or 0}}
  cuda.synchronize()
  local raw = rec:get()
  local t0 = math.huge
  for b = 0, o.blocks - 1 do t0 = math.min(t0, raw[b * FIELDS + START]) end
  local out = {}
  for b = 0, o.blocks - 1 do
    local at = b * FIELDS
    out[b + 1] = {block = b, sm = raw[at + SM], start = raw[at + START] - t0,
                  stop = raw[at + STOP] - t0, ticket = raw[at + TICKET]}
  end
  return out
end

-- experiment.residency_summary(records) -> {sms = distinct SMs, max = most blocks at
-- once on one SM, min = fewest (over SMs that ran any), at_max = SMs that reached max,
-- mode = the per-SM maximum most SMs show, per_sm = {sm -> most at once}, sm_list =
-- sorted SM ids}.
function experiment.residency_summary(recs)
  local by_sm, sms = experiment.group(recs, function(r) return r.sm end)
  local s = {sms = #sms, max = 0, min = math.huge, at_max = 0, per_sm = {}, sm_list = sms}
  for _, sm in ipairs(sms) do
    local iv = {}
    for _, r in ipairs(by_sm[sm]) do iv[#iv + 1] = {r.start, r.stop} end
    local m = experiment.max_overlap(iv)
    s.per_sm[sm] = m
    s.max, s.min = math.max(s.max, m), math.min(s.min, m)
  end
  local count = {}
  for _, sm in ipairs(sms) do
    if s.per_sm[sm] == s.max then s.at_max = s.at_max + 1 end
    count[s.per_sm[sm]] = (count[s.per_sm[sm]] or 0) + 1
  end
  for m, n in pairs(count) do
    if not s.mode or n > count[s.mode] or (n == count[s.mode] and m < s.mode) then s.mode = m end
  end
  return s
end

-- experiment.timeline(records, sm_list, buckets [, value]) -> rows (one per SM in
-- sm_list) of `buckets` cells: the blocks resident on that SM at the middle of each time
-- slice; with value(record), the largest value among them instead (0 when none).
function experiment.timeline(recs, sm_list, buckets, value)
  local last = 0
  for _, r in ipairs(recs) do last = math.max(last, r.stop) end
  local row_of, rows = {}, {}
  for i, sm in ipairs(sm_list) do
    row_of[sm] = i
    rows[i] = {}
    for b = 1, buckets do rows[i][b] = 0 end
  end
  local width = math.max(1, last) / buckets
  for _, r in ipairs(recs) do
    local row = rows[row_of[r.sm] or 0]
    if row then
      for b = 1, buckets do
        local t = (b - 0.5) * width
        if t >= r.start and t < r.stop then
          row[b] = value and math.max(row[b], value(r)) or row[b] + 1
        end
      end
    end
  end
  return rows
end

-- experiment.out_of_order(records) -> how many blocks did not arrive at the rank their
-- index would give them (ticket ~= block index), and the arrival order as a list of
-- records sorted by ticket.
function experiment.out_of_order(recs)
  local moved, order = 0, {}
  for _, r in ipairs(recs) do
    if r.ticket ~= r.block then moved = moved + 1 end
    order[#order + 1] = r
  end
  table.sort(order, function(a, b) return a.ticket < b.ticket end)
  return moved, order
end

return util.api("experiment", experiment)
