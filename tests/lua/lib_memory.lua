-- lib_memory.lua: warplab.memory's models on cases worked out by hand: sectors a warp's
-- loads touch and the fraction of them used (coalescing.lua's predictions), words per bank
-- (banks.lua's: gcd(stride, 32), 1 for a broadcast and for odd strides), size lists and
-- names, and the errors for bad arguments.
-- Depends on: warplab.memory, warplab.test.
local t = require "warplab.test"
local mem = require "warplab.memory"

local function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a end

t.case("the constants", function()
  t.eq({mem.SECTOR, mem.BANKS, mem.BANK_WIDTH}, {32, 32, 4})
end)

t.case("sectors per warp load and the bytes used", function()
  -- 32 floats: 128 bytes at stride 1 = 4 sectors; every lane in its own sector from 8 on.
  local want = {[1] = 4, [2] = 8, [4] = 16, [8] = 32, [16] = 32, [32] = 32, [3] = 12}
  for s, n in pairs(want) do t.eq(mem.sectors(s, 32), n, "stride " .. s) end
  t.eq(mem.sectors(0, 32), 1, "every lane on one float: one sector")
  t.eq(mem.useful(1, 32), 1.0)
  t.eq(mem.useful(2, 32), 0.5)
  t.eq(mem.useful(4, 32), 0.25)
  t.eq(mem.useful(32, 32), 0.125)
  t.eq(mem.useful(0, 32), 1, "a broadcast uses its sector (capped at 1)")
  t.eq(mem.sectors(1, 32, 8), 8, "doubles: 256 bytes")
  t.eq(mem.useful(4, 32, 8), 0.25, "doubles 32 bytes apart: 8 of each 32")
  t.eq(mem.sectors(1, 16), 2, "a 16-lane warp")
end)

t.case("words per bank: gcd(stride, 32), a broadcast 1", function()
  for s = 1, 70 do t.eq(mem.bank_ways(s, 32), gcd(s, 32), "stride " .. s) end
  t.eq(mem.bank_ways(0, 32), 1)
  t.eq(mem.bank_ways(33, 32), 1, "a padded row")
  t.eq(mem.bank_ways(64, 32), 32)
  t.eq(mem.bank_ways(32, 8), 8, "8 lanes, one bank")
end)

t.case("sizes, names, powers of two", function()
  t.eq(mem.sizes(4096, 1 << 20, 4), {4096, 16384, 65536, 262144, 1048576})
  t.eq(mem.sizes(3, 3, 2), {3})
  t.eq(mem.bytes_name(4096), "4 KiB")
  t.eq(mem.bytes_name(256 << 20), "256 MiB")
  t.eq(mem.bytes_name(3 << 29), "1.5 GiB")
  t.eq(mem.bytes_name(100), "100 B")
  t.eq(mem.pow2_at_least(1), 1)
  t.eq(mem.pow2_at_least(26214400), 1 << 25)
  t.eq(mem.pow2_at_least(1 << 25), 1 << 25)
end)

t.case("bytes_name: a sane text for any number, one sentence for anything else", function()
  t.eq(mem.bytes_name(1e308), "8.67e+289 EiB", "past the largest unit: three digits, no 300-digit number")
  t.eq(mem.bytes_name(math.maxinteger), "8 EiB")
  t.eq(mem.bytes_name(math.mininteger), "-8 EiB")
  t.eq(mem.bytes_name(-4096), "-4 KiB")
  t.eq(mem.bytes_name(-1.5), "-1.5 B")
  t.eq(mem.bytes_name(0.5), "0.5 B")
  t.eq(mem.bytes_name(0), "0 B")
  t.eq(mem.bytes_name(4096.0), "4 KiB", "a float with no fraction reads as a whole number")
  t.eq(mem.bytes_name(1536.0), "1.5 KiB")
  t.eq(mem.bytes_name(0 / 0), "nan B")
  t.eq(mem.bytes_name(math.huge), "inf B")
  t.eq(mem.bytes_name(-math.huge), "-inf B")
  t.checkerror("memory.bytes_name: b is a number of bytes, got nil", mem.bytes_name, nil)
  t.checkerror("memory.bytes_name: b is a number of bytes, got a string", mem.bytes_name, "4096")
end)

t.case("bad arguments name the function and the argument", function()
  t.checkerror("memory.sectors: stride must be an integer >= 0, got -1", mem.sectors, -1, 32)
  t.checkerror("memory.sectors: ws must be an integer from 1 to 1024, got 0", mem.sectors, 1, 0)
  t.checkerror("memory.bank_ways: stride must be an integer >= 0, got 1.5", mem.bank_ways, 1.5, 32)
  t.checkerror("memory.sizes: factor must be an integer >= 2, got 1", mem.sizes, 1, 4, 1)
  t.checkerror("memory.sizes: hi must be an integer >= 8, got 4", mem.sizes, 8, 4, 2)
end)

t.run{exit = true}
