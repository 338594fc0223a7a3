-- warplab/sync.lua: what the synchronization experiments (examples/sync) share: a
-- kernel's PTX body and instruction counts, the co-resident capacity of a grid, the
-- inversions of an order, a lock's first-acquisition sequence, nanosecond text, what a
-- feature needs of the compute capability, and a timed barrier loop's cost per round.
-- Depends on: warplab.util; the `cuda` global in sync.capacity (offline from the profile)
-- and sync.loop (a GPU).
local util = require "warplab.util"
local sync = {}

-- sync.ptx_body(m, k) -> the PTX text of kernel k's .entry in module m (nil if absent).
function sync.ptx_body(m, k)
  local from = m.ptx:find(".entry " .. k.mangled .. "(", 1, true)
  if not from then return nil end
  return m.ptx:sub(from, m.ptx:find("\n}\n", from, true) or #m.ptx)
end

-- sync.ptx_count(m, k, pattern, ...) -> how many times the Lua patterns occur in k's PTX.
function sync.ptx_count(m, k, ...)
  local body = sync.ptx_body(m, k)
  if not body then error("sync.ptx_count: no PTX body for " .. tostring(k.name), 2) end
  local n = 0
  for _, pat in ipairs{...} do n = n + select(2, body:gsub(pat, "")) end
  return n
end

-- The PTX patterns of a block barrier (__syncthreads: bar.sync / barrier.sync).
sync.BAR = {"bar%.sync", "barrier%.sync"}

-- sync.capacity(k, block [, shared]) -> {blocks_per_sm, sms, capacity, limiter}: how
-- many blocks of k can be resident at once on the device (the occupancy calculator).
function sync.capacity(k, block, shared)
  local occ = k:occupancy{block = block, shared = shared or 0}
  local sms = cuda.device().attr.multiprocessor_count
  return {blocks_per_sm = occ.blocks_per_sm, sms = sms, capacity = occ.blocks_per_sm * sms,
          limiter = occ.limiter}
end

-- sync.inversions(list) -> pairs i < j with list[i] > list[j] (0 for a sorted list,
-- n(n-1)/2 for a reversed one), by merge sort: O(n log n).
function sync.inversions(list)
  if type(list) ~= "table" then error("sync.inversions: expected a list of numbers", 2) end
  local a, tmp = {}, {}
  for i, v in ipairs(list) do a[i] = v end
  local count = 0
  local width, n = 1, #a
  while width < n do
    for lo = 1, n, 2 * width do
      local mid, hi = math.min(lo + width, n + 1), math.min(lo + 2 * width, n + 1)
      local i, j, k = lo, mid, lo
      while i < mid and j < hi do
        if a[j] < a[i] then
          tmp[k], j = a[j], j + 1
          count = count + (mid - i) -- every element left in the left run is larger
        else
          tmp[k], i = a[i], i + 1
        end
        k = k + 1
      end
      while i < mid do tmp[k], i, k = a[i], i + 1, k + 1 end
      while j < hi do tmp[k], j, k = a[j], j + 1, k + 1 end
    end
    a, tmp = tmp, a
    width = 2 * width
  end
  return count
end

-- sync.first_order(order) -> the values of `order` in their first appearance, in order:
-- the sequence in which blocks took a lock for the first time.
function sync.first_order(order)
  local seen, out = {}, {}
  for _, v in ipairs(order) do
    if not seen[v] then seen[v] = true; out[#out + 1] = v end
  end
  return out
end

-- sync.needs(dev, major, minor, what) -> nil when dev's compute capability is at least
-- major.minor, else the one sentence an experiment prints for the part it refuses:
-- "bulk copies need compute capability 9.0 (this is 8.0): refused".
function sync.needs(dev, major, minor, what)
  local cc = type(dev) == "table" and dev.cc
  if type(dev) == "userdata" then cc = select(2, pcall(function() return dev.cc end)) end -- a device has it
  local a, b = (type(cc) == "string" and cc or ""):match("^(%d+)%.(%d+)$")
  if not a then
    error("sync.needs: expected a device (cuda.device(), or a table with cc = \"9.0\"), got " ..
          (type(cc) == "string" and "cc = " .. string.format("%q", cc:sub(1, 40))
           or (type(dev) == "table" or type(dev) == "userdata") and "one whose cc is " .. util.kind(cc)
           or util.kind(dev)), 0)
  end
  if math.type(major) ~= "integer" or math.type(minor) ~= "integer" or major < 0 or minor < 0 then
    error("sync.needs: major and minor are the compute capability's integers (9, 0), got " .. util.kind(major) ..
          " and " .. util.kind(minor), 0)
  end
  if type(what) ~= "string" then error("sync.needs: what is the feature's name, got " .. util.kind(what), 0) end
  a, b = tonumber(a), tonumber(b)
  if a > major or (a == major and b >= minor) then return nil end
  local plural = what:find(" and ", 1, true) or what:match("s$")
  return string.format("%s need%s compute capability %d.%d (this is %s): refused", what, plural and "" or "s", major,
                       minor, cc)
end

-- sync.loop(k, cfg, args, rounds, out) -> ns, cycles per round: launches k once to load it
-- and once measured, with cfg (grid, block, cluster, cooperative) and args; the kernel
-- records each block's loop time in out (u64: [2b] %globaltimer ns, [2b + 1] clock64
-- cycles, as cost.cu and ladder.cu do); the slowest block counts.
function sync.loop(k, cfg, args, rounds, out)
  if type(cfg) ~= "table" then error("sync.loop: cfg is a launch table {grid =, block =}, got " .. util.kind(cfg), 0) end
  if math.type(rounds) ~= "integer" or rounds < 1 then
    error("sync.loop: rounds is an integer >= 1, got " .. (type(rounds) == "number" and util.repr(rounds)
          or util.kind(rounds)), 0)
  end
  local launch = {grid = cfg.grid, block = cfg.block, cluster = cfg.cluster, cooperative = cfg.cooperative,
                  args = args}
  k(launch)
  out:zero()
  k(launch)
  local o, grid = out:get(), type(cfg.grid) == "table" and cfg.grid[1] or cfg.grid
  if #o < 2 * grid then
    error(string.format("sync.loop: out holds %d values, the %d blocks record %d", #o, grid, 2 * grid), 0)
  end
  local ns, cyc = 0, 0
  for b = 0, grid - 1 do ns, cyc = math.max(ns, o[2 * b + 1]), math.max(cyc, o[2 * b + 2]) end
  return ns / rounds, cyc / rounds
end

-- sync.ns(v) -> "12.3 ns", "4.56 us", "1.20 ms", "3.40 s": a duration given in
-- nanoseconds. A negative duration keeps its sign and unit ("-4.56 us"), nan and inf read
-- as such ("nan ns"), beyond 10^4 s three digits ("1e+299 s"); anything but a number is
-- refused in one sentence.
function sync.ns(v)
  if type(v) ~= "number" then error("sync.ns: v is a duration in nanoseconds, got " .. util.kind(v), 2) end
  if v ~= v or v == math.huge or v == -math.huge then return util.repr(v) .. " ns" end
  local a = math.abs(v + 0.0)
  if a >= 1e13 then return string.format("%.3g s", v / 1e9) end
  if a >= 1e9 then return string.format("%.2f s", v / 1e9) end
  if a >= 1e6 then return string.format("%.2f ms", v / 1e6) end
  if a >= 1e3 then return string.format("%.2f us", v / 1e3) end
  return string.format("%.1f ns", v)
end

return util.api("sync", sync)
