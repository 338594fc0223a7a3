-- lib_warpmodel.lua: the CPU model of warp votes and shuffles that examples/warps/vote.lua
-- checks the GPU against, on cases worked out by hand from the CUDA and PTX documentation
-- (segments of `width` lanes, out-of-segment reads returning the lane's own value).
-- Depends on: warplab.warpmodel, warplab.test.
local t = require "warplab.test"
local model = require "warplab.warpmodel"

local lanes = {}
for l = 0, 31 do lanes[l + 1] = 100 + l end -- value = 100 + lane: the result names its source

local function sources(out)
  local r = {}
  for l = 0, 31 do r[l + 1] = out[l + 1] and out[l + 1] - 100 or false end
  return r
end

t.case("ballot, all, any over the full warp and over a partial mask", function()
  local preds = {}
  for l = 0, 31 do preds[l + 1] = l % 3 == 0 end
  t.eq(model.ballot(preds), 0x49249249)
  t.eq(model.ballot(preds, 0x55555555), 0x41041041, "only even lanes count")
  t.eq(model.all(preds), 0)
  t.eq(model.all(preds, 0x49249249), 1, "all holds over exactly the lanes where it holds")
  t.eq(model.any(preds, 0x00000022), 0, "lanes 1 and 5: neither divisible by 3")
  t.eq(model.any(preds, 0x00000022 | 8), 1, "lane 3 is")
end)

t.case("match_any groups lanes by key, only inside the mask", function()
  local keys = {}
  for l = 0, 31 do keys[l + 1] = l % 4 end
  local out = model.match_any(keys)
  t.eq(out[1], 0x11111111)
  t.eq(out[32], 0x88888888)
  local part = model.match_any(keys, 0x0000000f)
  t.eq({part[1], part[4], part[5]}, {1, 8, nil})
end)

t.case("shfl idx: source modulo width, inside the lane's own segment", function()
  local out = sources(model.shfl(lanes, "idx", 3, 32))
  t.eq({out[1], out[17], out[32]}, {3, 3, 3}, "broadcast of lane 3")
  out = sources(model.shfl(lanes, "idx", 11, 8))
  t.eq({out[1], out[8], out[9], out[25]}, {3, 3, 11, 27}, "11 mod 8 = 3 in each segment")
end)

t.case("shfl up/down clamp at the segment edge: those lanes keep their own value", function()
  local up = sources(model.shfl(lanes, "up", 1, 32))
  t.eq({up[1], up[2], up[32]}, {0, 0, 30})
  up = sources(model.shfl(lanes, "up", 2, 8))
  t.eq({up[9], up[10], up[11]}, {8, 9, 8}, "lanes 8, 9 start a segment")
  local down = sources(model.shfl(lanes, "down", 1, 16))
  t.eq({down[1], down[16], down[17], down[32]}, {1, 15, 17, 31})
end)

t.case("shfl xor: partners across segments, earlier ones only", function()
  local x = sources(model.shfl(lanes, "xor", 1, 32))
  t.eq({x[1], x[2], x[32]}, {1, 0, 30})
  x = sources(model.shfl(lanes, "xor", 8, 8))
  t.eq({x[1], x[8]}, {0, 7}, "segment 0 would read segment 1 (later): own value")
  t.eq({x[9], x[16], x[25]}, {0, 7, 16}, "segment 1 reads segment 0 (earlier)")
end)

t.case("partial masks leave other lanes out; lowest finds the leader", function()
  local x = sources(model.shfl(lanes, "xor", 2, 32, 0x55555555))
  t.eq({x[1], x[2], x[3], x[31]}, {2, false, 0, 28})
  local d = sources(model.shfl(lanes, "down", 2, 32, 0x55555555))
  t.eq({d[29], d[31]}, {30, 30}, "lane 30 + 2 leaves the warp: own value")
  t.eq(model.lowest(0x00f0), 4)
  t.eq(model.lowest(0), nil)
end)

t.case("errors", function()
  t.checkerror("width must be a power of two", model.shfl_source, 0, "up", 1, 12)
  t.checkerror("unknown shuffle mode 'rot'", model.shfl_source, 0, "rot", 1, 32)
end)

t.run{exit = true}
