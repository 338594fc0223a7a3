-- warplab/warpmodel.lua: a CPU model of one 32-lane warp's vote, match and shuffle
-- intrinsics, for checking what the GPU returned. Lists are 1-based by lane + 1.
-- The shuffle rules follow the PTX ISA's description of shfl.sync (source lane, segment
-- of `width` lanes, clamp): out-of-segment reads return the lane's own value.
-- Depends on: warplab.util (errors at the script's line); pure Lua 5.4.
local util = require "warplab.util"
local model = {}

model.WARP = 32
model.FULL = 0xffffffff

local function in_mask(mask, lane) return (mask >> lane) & 1 == 1 end

-- __ballot_sync(mask, pred): bit l set when lane l is in mask and its predicate holds.
function model.ballot(preds, mask)
  mask = mask or model.FULL
  local b = 0
  for lane = 0, 31 do
    if in_mask(mask, lane) and preds[lane + 1] then b = b | (1 << lane) end
  end
  return b
end

-- __all_sync / __any_sync over the lanes in mask (1 or 0, as the intrinsics return).
function model.all(preds, mask)
  mask = mask or model.FULL
  for lane = 0, 31 do
    if in_mask(mask, lane) and not preds[lane + 1] then return 0 end
  end
  return 1
end

function model.any(preds, mask)
  return model.ballot(preds, mask) ~= 0 and 1 or 0
end

-- __match_any_sync(mask, key): for each lane in mask, the lanes in mask with its key.
function model.match_any(keys, mask)
  mask = mask or model.FULL
  local out = {}
  for lane = 0, 31 do
    if in_mask(mask, lane) then
      local m = 0
      for other = 0, 31 do
        if in_mask(mask, other) and keys[other + 1] == keys[lane + 1] then m = m | (1 << other) end
      end
      out[lane + 1] = m
    end
  end
  return out
end

-- The lane a shuffle reads for `lane` (0-based), or the lane itself when the source
-- falls outside its segment. mode: "idx" (b = source lane), "up", "down" (b = delta),
-- "xor" (b = lane mask); width a power of two 1..32.
function model.shfl_source(lane, mode, b, width)
  width = width or 32
  if width < 1 or width > 32 or width & (width - 1) ~= 0 then
    error("warpmodel.shfl_source: width must be a power of two from 1 to 32, got " .. tostring(width), 2)
  end
  local first = lane & ~(width - 1) & 31 -- segment start
  local last = first | (width - 1)       -- segment end
  local j
  if mode == "idx" then
    return first | (b & (width - 1))
  elseif mode == "up" then
    j = lane - b
    return (j >= first) and j or lane
  elseif mode == "down" then
    j = lane + b
  elseif mode == "xor" then
    j = lane ~ b
  else
    error("warpmodel.shfl_source: unknown shuffle mode '" .. tostring(mode) .. "'", 2)
  end
  -- down and xor may read any lane up to the end of their own segment (xor can thus
  -- reach an earlier segment, never a later one).
  return (j <= last) and j or lane
end

-- The whole warp's shuffle: out[lane + 1] = values[source + 1] for lanes in mask.
function model.shfl(values, mode, b, width, mask)
  mask = mask or model.FULL
  local out = {}
  for lane = 0, 31 do
    if in_mask(mask, lane) then out[lane + 1] = values[model.shfl_source(lane, mode, b, width) + 1] end
  end
  return out
end

-- The lowest set lane of a mask (__ffs(mask) - 1), or nil for an empty mask.
function model.lowest(mask)
  for lane = 0, 31 do
    if in_mask(mask, lane) then return lane end
  end
  return nil
end

return util.api("warpmodel", model)
