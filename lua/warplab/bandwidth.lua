-- warplab/bandwidth.lua: the memory bandwidth a memory-bound kernel is compared with,
-- measured in the same run: a streaming read of an array (stream_read in
-- kernels_src/reductions/reference.cu: 16-byte loads, nothing written) and a
-- device-to-device copy (read + write). GB/s = 10^9 bytes per second.
-- Depends on: the `cuda` global (compiling works offline; measuring needs a GPU), warplab.util.
local util = require "warplab.util"
local bandwidth = {}

local kernel -- stream_read, compiled on first use

-- bandwidth.kernel([load]) -> the stream_read kernel; load as WL_LOAD (reduce.cuh:
-- 0 __ldg, 1 __ldcs, 2 L1::no_allocate, 3 plus an L2::256B prefetch, 4 plus an evict-first
-- policy; default 3).
function bandwidth.kernel(load)
  if load ~= nil and (math.type(load) ~= "integer" or load < 0 or load > 4) then
    error("bandwidth.kernel: load is an integer 0..4 (reduce.cuh's WL_LOAD), got " .. util.repr(load), 2)
  end
  if kernel and kernel.load == (load or 3) then return kernel.k end
  local m, diag = cuda.compile{file = "reductions/reference.cu", defines = {WL_LOAD = load or 3}}
  -- The diagnostics themselves: `warplab run` ends a raised compile failure with exit 5.
  if not m then error(diag, 2) end
  kernel = {k = m.stream_read, load = load or 3}
  return kernel.k
end

-- GB/s for `bytes` moved in `ms` milliseconds (inf for 0 ms, as the division says);
-- anything but two numbers is refused in one sentence.
function bandwidth.gbs(bytes, ms)
  if type(bytes) ~= "number" or type(ms) ~= "number" then
    error("bandwidth.gbs: bytes and ms are numbers, got " .. util.kind(bytes) .. " and " .. util.kind(ms), 2)
  end
  return bytes / (ms * 1e6)
end

-- bandwidth.read(x [, {reps =, warmup =, block =, load =}]) -> {ms, gbs, bytes, grid}:
-- every float4 of the f32 array (or view) x (its bytes / 16, from a 16-byte-aligned
-- start) read once per rep; median of reps. The grid: SMs x resident blocks (every block resident at once).
-- A cuda.array (or a view) by what it says it is.
local function is_array(x)
  return x ~= nil and type(x) ~= "string" and tostring(x):find("^cuda%.array") ~= nil
end

function bandwidth.read(x, o)
  if not is_array(x) then error("bandwidth.read: expected a cuda.array, got " .. type(x), 2) end
  o = o or {}
  local k = bandwidth.kernel(o.load)
  local block = o.block or 256
  local dev = cuda.device()
  local grid = dev.attr.multiprocessor_count * k:occupancy{block = block}.blocks_per_sm
  local n4 = x.bytes // 16
  local sink <close> = cuda.array("u32", 1):zero()
  local st = k:bench{grid = grid, block = block, args = {x, n4, sink}, warmup = o.warmup or 3,
                     reps = o.reps or 20}
  return {ms = st.median, gbs = bandwidth.gbs(16 * n4, st.median), bytes = 16 * n4, grid = grid}
end

-- bandwidth.copy(dst, src [, {reps =, warmup =}]) -> {ms, gbs, bytes}: dst:copy(src)
-- (cuMemcpyDtoD), counting the bytes read and the bytes written (2 x src.bytes).
function bandwidth.copy(dst, src, o)
  if not is_array(dst) or not is_array(src) then error("bandwidth.copy: expected two cuda.arrays", 2) end
  o = o or {}
  local st = cuda.bench(function() dst:copy(src) end, {warmup = o.warmup or 3, reps = o.reps or 20})
  return {ms = st.median, gbs = bandwidth.gbs(2 * src.bytes, st.median), bytes = 2 * src.bytes}
end

-- bandwidth.measure(x [, opts]) -> {read = bandwidth.read(x), copy = a copy of x into
-- a new array of its type and length (freed again)}.
function bandwidth.measure(x, o)
  local r = bandwidth.read(x, o)
  local dst <close> = cuda.array(x.type, #x)
  return {read = r, copy = bandwidth.copy(dst, x, o)}
end

-- "93.1 %": value as a percentage of base. A base of 0 (or nan, inf) gives "nan %" or
-- "inf %", as the division does; a percentage past a million three digits ("1e+308 %");
-- anything but two numbers is refused in one sentence.
function bandwidth.pct(value, base)
  if type(value) ~= "number" or type(base) ~= "number" then
    error("bandwidth.pct: value and base are numbers, got " .. util.kind(value) .. " and " .. util.kind(base), 2)
  end
  local p = (value + 0.0) / base * 100 -- (the ratio first: 1e308 / 1e300 is no overflow)
  if p ~= p or p == math.huge or p == -math.huge then return util.repr(p) .. " %" end
  if math.abs(p) >= 1e6 then return string.format("%.3g %%", p) end
  return string.format("%.1f %%", p)
end

return util.api("bandwidth", bandwidth)
