-- arrays.lua (GPU): cuda.array for every element type: round trips through device memory
-- (extremes, f32/f16 rounding, u64 past 2^53, negative integers), values out of a type's
-- range rejected with the sentence, views, copy, fill, iota, random (same seed, same
-- values), zero, free/<close>/use after free, a[i] and its bounds, large transfers
-- (the pinned staging path). Run by CTest (cmake/tests.cmake) on a GPU.
local t = require "warplab.test"

assert(cuda.device().live, "needs a GPU")

-- The float a double becomes when stored as f32.
local function f32(x) return (string.unpack("f", string.pack("f", x))) end

t.case("round trip of every type at its extremes", function()
  local cases = {
    i8 = {-128, -1, 0, 1, 127},
    i16 = {-32768, -1, 0, 32767},
    i32 = {-2147483648, -7, 0, 2147483647},
    i64 = {math.mininteger, -1, 0, math.maxinteger},
    u8 = {0, 1, 255},
    u16 = {0, 1, 65535},
    u32 = {0, 1, 4294967295},
    u64 = {0, 9007199254740993, math.maxinteger},  -- 2^53 + 1 is exact: integers all the way
    f16 = {0.0, 0.5, -2.25, 65504.0, 2^-24, -1024.0},
    f32 = {0.0, 0.5, -2.25, f32(1e30), 2^-149},
    f64 = {0.1, -1e300, math.pi, 2^-1074, math.huge},
  }
  local n = 0
  for name, values in pairs(cases) do
    local a = cuda.array(name, values)
    t.eq({a.type, #a}, {name, #values})
    t.eq(a:get(), values, name)
    for i, v in ipairs(values) do t.eq(a[i], v, name .. "[" .. i .. "]") end
    n = n + 1
  end
  t.eq(n, 11)
  for _, v in ipairs(cuda.array("i64", {math.mininteger}):get()) do t.eq(math.type(v), "integer") end
  t.eq(math.type(cuda.array("f32", {1}):get()[1]), "float")
end)

t.case("f32 and f16 round to nearest (even)", function()
  t.eq(cuda.array("f32", {0.1, 1 / 3, 16777217}):get(), {f32(0.1), f32(1 / 3), 16777216.0})
  -- binary16: 10 mantissa bits; 2049 is a tie (to even: 2048), 2051 too (to 2052);
  -- 65519 rounds down to the largest half; 65520 would round up to infinity, so it is
  -- refused (infinity itself is written as asked); 3e-8 rounds to the smallest subnormal
  -- 2^-24, 1e-8 to zero.
  t.eq(cuda.array("f16", {0.1, 1 / 3, 2049, 2051, 65519, math.huge, -math.huge, 3e-8, 1e-8}):get(),
       {0.0999755859375, 0.333251953125, 2048.0, 2052.0, 65504.0, math.huge, -math.huge, 2^-24, 0.0})
  t.checkerror("element 65520 does not fit f16 (finite values up to ±65504)", cuda.array, "f16", {65520})
  t.checkerror("element -65520 does not fit f16", cuda.array, "f16", {1, -65520})
end)

t.case("values out of a type's range are rejected", function()
  t.checkerror("element 256 does not fit u8", cuda.array, "u8", {1, 256})
  t.checkerror("element -129 does not fit i8", cuda.array, "i8", {-129})
  t.checkerror("element -1 does not fit u64", cuda.array, "u64", {-1})
  t.checkerror("element 4294967296 does not fit u32", cuda.array, "u32", {1 << 32})
  t.checkerror("element 9.2233720368548e+18 does not fit u64", cuda.array, "u64", {2^63})
  t.checkerror("element 1.5 is not an integer (array type i32)", cuda.array, "i32", {1.5})
  t.checkerror("element must be a number for an i32 array, got string", cuda.array, "i32", {"x"})
  local a = cuda.array("i16", 4)
  t.checkerror("value 70000 does not fit i16", function() a[1] = 70000 end)
  t.checkerror("value 2.5 is not an integer (array type i16)", function() a[2] = 2.5 end)
  t.checkerror("fill value -1 does not fit u32", function() cuda.array("u32", 2):fill(-1) end)
  t.checkerror("set: 3 values at index 3 do not fit in 4 elements", a.set, a, {1, 2, 3}, 3)
  t.eq(a:zero():get(), {0, 0, 0, 0})  -- nothing above wrote
end)

t.case("a[i], a.type, a.bytes, a.ptr, #a, tostring and bounds", function()
  local a = cuda.array("f64", 10):iota(1)
  t.eq({a.type, a.bytes, #a, a[1], a[10]}, {"f64", 80, 10, 1.0, 10.0})
  assert(math.type(a.ptr) == "integer" and a.ptr ~= 0)
  t.eq(tostring(a), "cuda.array(f64, 10)")
  a[3] = -4.5
  t.eq(a[3], -4.5)
  t.checkerror("index 0 out of range: the array has 10 elements (valid: 1..10)", function() return a[0] end)
  t.checkerror("index 11 out of range: the array has 10 elements (valid: 1..10)", function() a[11] = 1 end)
  t.checkerror("number has no integer representation", function() return a[1.5] end)
  t.checkerror("array has no field or method 'size'", function() return a.size end)
  t.checkerror("array fields are read-only: a[i] = v takes an index 1..10", function() a.type = "i32" end)
end)

t.case("set at an offset, fill, iota, zero; methods chain", function()
  local a = cuda.array("i32", 6)
  t.eq(a:zero():set({7, 8}, 3):get(), {0, 0, 7, 8, 0, 0})
  t.eq(a:fill(-3):get(), {-3, -3, -3, -3, -3, -3})
  t.eq(a:iota():get(), {0, 1, 2, 3, 4, 5})
  t.eq(a:iota(10, -2):get(), {10, 8, 6, 4, 2, 0})
  t.eq(cuda.array("f32", 4):iota(0, 0.5):get(), {0.0, 0.5, 1.0, 1.5})
  t.eq(cuda.array("f32", 3):fill(1.5):get(), {1.5, 1.5, 1.5})
  t.checkerror("iota: start and step must be integers for an i32 array", a.iota, a, 0.5)
  t.checkerror("iota: 300 elements from 0 by 1 end at 299, which does not fit u8",
               function() cuda.array("u8", 300):iota() end)
  t.eq(cuda.array("u8", 256):iota()[256], 255)
end)

t.case("random: same seed same values, ranges respected", function()
  local a = cuda.array("f32", 1000):random{seed = 7}
  local b = cuda.array("f32", 1000):random{seed = 7}
  local c = cuda.array("f32", 1000):random{seed = 8}
  t.eq(a:get(), b:get())
  local av, cv, same = a:get(), c:get(), 0
  for i = 1, #av do if av[i] == cv[i] then same = same + 1 end end
  assert(same < 10, same .. " of 1000 values equal with another seed")
  for _, v in ipairs(a:get()) do assert(v >= 0 and v < 1, v) end
  local ints = cuda.array("i32", 2000):random{seed = 1, lo = -3, hi = 3}:get()
  local seen = {}
  for _, v in ipairs(ints) do
    assert(math.type(v) == "integer" and v >= -3 and v <= 3, v)
    seen[v] = true
  end
  for v = -3, 3 do assert(seen[v], "value " .. v .. " never drawn") end
  for _, v in ipairs(cuda.array("u8", 500):random():get()) do assert(v >= 0 and v <= 100, v) end
  local f = cuda.array("f64", 500):random{seed = 3, lo = 10, hi = 20}:get()
  for _, v in ipairs(f) do assert(v >= 10 and v < 20, v) end
  t.checkerror("random: no integer lies in [0.5, 0.7]", function() cuda.array("i32", 2):random{lo = 0.5, hi = 0.7} end)
  t.checkerror("random: [0, 1000] does not fit u8", function() cuda.array("u8", 2):random{hi = 1000} end)
  t.checkerror("random: lo (2) must not exceed hi (1)", function() cuda.array("f32", 2):random{lo = 2, hi = 1} end)
end)

t.case("views share memory; views of views; bounds", function()
  local a = cuda.array("i32", 10):iota()
  local v = a:view(3, 4)
  t.eq({#v, v.bytes, v:get()}, {4, 16, {2, 3, 4, 5}})
  t.eq(v.ptr, a.ptr + 2 * 4)
  t.eq(tostring(v), "cuda.array(i32, 4) view")
  v:fill(7)
  v[1] = 9
  t.eq(a:get(), {0, 1, 9, 7, 7, 7, 6, 7, 8, 9})
  t.eq(v:view(2, 2):get(), {7, 7})
  t.eq(a:view(8):get(), {7, 8, 9})
  t.checkerror("view(0) does not fit in an array of 10 elements", a.view, a, 0)
  t.checkerror("view(8, 4) does not fit in an array of 10 elements", a.view, a, 8, 4)
  t.checkerror("view(11) does not fit in an array of 10 elements", a.view, a, 11)
  t.checkerror("view(2, 9223372036854775807) does not fit", a.view, a, 2, math.maxinteger)
end)

t.case("copy: same type and length, views included", function()
  local a = cuda.array("f32", 5):iota(1)
  local b = cuda.array("f32", 5)
  t.eq(b:copy(a):get(), {1.0, 2.0, 3.0, 4.0, 5.0})
  b:view(1, 2):copy(a:view(4, 2))
  t.eq(b:get(), {4.0, 5.0, 3.0, 4.0, 5.0})
  t.checkerror("copy needs the same type and length: f32[5] <- i32[5]", b.copy, b, cuda.array("i32", 5))
  t.checkerror("copy needs the same type and length: f32[5] <- f32[4]", b.copy, b, cuda.array("f32", 4))
end)

t.case("free, <close> and use after free", function()
  local a = cuda.array("u16", 8):fill(3)
  local v = a:view(2, 2)
  t.eq(a.freed, false)
  a:free()
  a:free()  -- idempotent
  t.eq({a.freed, v.freed, tostring(a)}, {true, true, "cuda.array (freed)"})
  t.checkerror("attempt to use a freed array", a.get, a)
  t.checkerror("attempt to use a freed array", function() return a[1] end)
  t.checkerror("attempt to use a freed array", function() return #a end)
  t.checkerror("attempt to use a freed array", v.get, v)  -- the owner took the memory
  -- Freeing a view only detaches the view.
  local b = cuda.array("u16", 4):iota()
  local w = b:view(1, 2)
  w:free()
  t.eq({w.freed, b:get()}, {true, {0, 1, 2, 3}})
  local escaped
  do
    local c <close> = cuda.array("f32", 4)
    escaped = c
    t.eq(c.freed, false)
  end
  t.eq(escaped.freed, true)
  collectgarbage()
end)

t.case("large arrays (the pinned staging path) and table sources", function()
  local n = 1 << 20  -- 4 MiB of f32: above the 1 MiB staging threshold
  local a = cuda.array("f32", n):iota()
  local h = a:get()
  t.eq({#h, h[1], h[n // 2 + 1], h[n]}, {n, 0.0, n / 2, n - 1.0})
  local src = {}
  for i = 1, n do src[i] = i % 251 end
  local b = cuda.array("u8", src)
  local back = b:get()
  t.eq({#back, back[1], back[250], back[251], back[n]}, {n, 1, 250, 0, n % 251})
  a:free()
  b:free()
end)

t.run{exit = true}
