-- warplab/memory.lua: the models the memory experiments check against: which 32-byte
-- sectors a warp's loads touch (global memory), how many words one shared-memory bank
-- must serve for a warp's access (bank conflicts), and size helpers for copy sweeps.
-- Pure Lua, no GPU; the numbers of the memory system that no device attribute reports
-- (the sector, the bank count and width) are named here once, with where they come from.
-- Depends on: warplab.util (scripts pass dev.attr.warp_size).
local util = require "warplab.util"
local memory = {}

-- Global memory is served in 32-byte sectors (four per 128-byte cache line) on every GPU
-- since Pascal (CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory").
memory.SECTOR = 32
-- Shared memory: 32 banks, each 4 bytes wide, one word per bank per cycle (CUDA C++
-- Programming Guide, "Shared Memory", compute capability 5.x and later).
memory.BANKS, memory.BANK_WIDTH = 32, 4

-- A warp has at most 1024 lanes here (a block's limit): a larger ws would loop for ages.
local MAX_LANES = 1024

local function need_int(v, name, who, min, max)
  if math.type(v) ~= "integer" or v < min or (max and v > max) then
    error(string.format("memory.%s: %s must be an integer %s, got %s", who, name,
                        max and string.format("from %d to %d", min, max) or (">= " .. min),
                        type(v) == "string" and string.format("%q", v) or tostring(v)), 3)
  end
end

-- memory.sectors(stride, ws [, elem]) -> the distinct sectors one warp touches when lane l
-- reads the elem-byte element l * stride of a sector-aligned array (ws lanes; elem 4).
function memory.sectors(stride, ws, elem)
  need_int(stride, "stride", "sectors", 0)
  need_int(ws, "ws", "sectors", 1, MAX_LANES)
  elem = elem or 4
  need_int(elem, "elem", "sectors", 1)
  local seen, n = {}, 0
  for l = 0, ws - 1 do
    local s = (l * stride * elem) // memory.SECTOR
    if not seen[s] then seen[s], n = true, n + 1 end
  end
  return n
end

-- memory.useful(stride, ws [, elem]) -> the fraction of the fetched sector bytes the warp
-- asked for: ws * elem / (sectors * 32). 1 for consecutive floats, 1/8 for a stride >= 8.
function memory.useful(stride, ws, elem)
  elem = elem or 4
  return math.min(1, ws * elem / (memory.sectors(stride, ws, elem) * memory.SECTOR))
end

-- memory.bank_ways(stride, ws) -> the most distinct 4-byte words one bank must serve when
-- lane l reads word l * stride (stride 0: every lane the same word, a broadcast: 1).
-- Equals gcd(stride, 32) for 32 lanes; the hardware serves them one after another.
function memory.bank_ways(stride, ws)
  need_int(stride, "stride", "bank_ways", 0)
  need_int(ws, "ws", "bank_ways", 1, MAX_LANES)
  local words = {} -- bank -> set of words
  local most = 0
  for l = 0, ws - 1 do
    local w = l * stride
    local b = w % memory.BANKS
    words[b] = words[b] or {n = 0}
    if not words[b][w] then
      words[b][w] = true
      words[b].n = words[b].n + 1
      most = math.max(most, words[b].n)
    end
  end
  return most
end

-- memory.sizes(lo, hi, factor) -> lo, lo * factor, ... up to hi (integers).
function memory.sizes(lo, hi, factor)
  need_int(lo, "lo", "sizes", 1)
  need_int(hi, "hi", "sizes", lo)
  need_int(factor, "factor", "sizes", 2)
  local out, s = {}, lo
  while s <= hi do
    out[#out + 1] = s
    if s > hi // factor then break end -- the next would pass hi (or wrap past 2^63)
    s = s * factor
  end
  return out
end

-- memory.bytes_name(b) -> "4 KiB", "64 MiB", "1.5 GiB": binary units for sizes. A
-- fraction keeps one decimal ("0.5 B"), a negative size its sign ("-2 KiB"), nan and inf
-- read as such ("inf B"), a size past 1024 EiB in three digits ("8.67e+289 EiB"); anything
-- but a number is refused in one sentence.
local UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
function memory.bytes_name(b)
  if type(b) ~= "number" then error("memory.bytes_name: b is a number of bytes, got " .. util.kind(b), 2) end
  if b ~= b or b == math.huge or b == -math.huge then return util.repr(b) .. " B" end
  local sign, a = "", b
  if b < 0 then sign, a = "-", -(b + 0.0) end -- (as a float: -math.mininteger wraps)
  local u = 1
  while a >= 1024 and u < #UNITS do
    a, u = a / 1024, u + 1
  end
  if a >= 1024 then return string.format("%s%.3g %s", sign, a, UNITS[u]) end
  local whole = math.tointeger(a)
  if whole then return string.format("%s%d %s", sign, whole, UNITS[u]) end
  return string.format("%s%.1f %s", sign, a, UNITS[u])
end

-- memory.pow2_at_least(x) -> the smallest power of two >= x (x >= 1).
function memory.pow2_at_least(x)
  if type(x) ~= "number" or x ~= x or x > 1 << 62 then
    error("memory.pow2_at_least: x must be a number up to 2^62, got "
          .. (type(x) == "number" and util.repr(x) or util.kind(x)), 2)
  end
  local p = 1
  while p < x do p = p * 2 end
  return p
end

return util.api("memory", memory)
