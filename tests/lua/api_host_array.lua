-- api_host_array.lua: cuda.host_array: pageable host arrays everywhere (fields, elements,
-- views, host copies, release and use after it, bad input with its sentence); offline a
-- pinned one raises the "no CUDA device" sentence; on a GPU, pinned ones and copies to and
-- from device arrays both ways, through views, intact. Run offline (h200 profile) and
-- live by CTest (cmake/tests.cmake: lua.api_host_array and lua.api_host_array.gpu).
local t = require "warplab.test"

local live = cuda.device().live
local PAGE = {pinned = false}

t.case("a pageable host array: fields, zeroed, elements", function()
  local h = cuda.host_array("f32", 10, PAGE)
  t.eq({h.type, h.bytes, #h, h.pinned, h.freed}, {"f32", 40, 10, false, false})
  t.eq(tostring(h), "cuda.host_array(f32, 10, pageable)")
  for i = 1, #h do t.eq(h[i], 0.0, "starts zeroed at " .. i) end
  h[3] = 1.5
  t.eq(h[3], 1.5)
  t.eq(h:fill(2):get(), {2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0})
  t.eq(h:iota(1, 2):get(), {1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0, 17.0, 19.0})
  t.eq(h:set({-1, -2}, 9):get()[10], -2.0)
  t.eq(h:zero():get()[1], 0.0)
  local r1 = cuda.host_array("u16", 50, PAGE):random{seed = 9, lo = 10, hi = 20}:get()
  local r2 = cuda.host_array("u16", 50, PAGE):random{seed = 9, lo = 10, hi = 20}:get()
  t.eq(r1, r2, "same seed, same values")
  for _, v in ipairs(r1) do assert(v >= 10 and v <= 20, v) end
  local l = cuda.host_array("i64", {math.mininteger, -1, math.maxinteger}, PAGE)
  t.eq(l:get(), {math.mininteger, -1, math.maxinteger})
  t.eq(cuda.host_array("f16", {0.1, 65504, math.huge}, PAGE):get(), {0.0999755859375, 65504.0, math.huge})
  t.checkerror("element 65520 does not fit f16 (finite values up to ±65504)", cuda.host_array, "f16", {65520}, PAGE)
end)

t.case("views and host-to-host copies", function()
  local h = cuda.host_array("i32", 8, PAGE):iota(1)
  local v = h:view(3, 4)
  t.eq({#v, v[1], tostring(v)}, {4, 3, "cuda.host_array(i32, 4, pageable) view"})
  v:fill(0)
  t.eq(h:get(), {1, 2, 0, 0, 0, 0, 7, 8})
  local g = cuda.host_array("i32", 4, PAGE):iota(10)
  h:view(5, 4):copy(g)
  t.eq(h:get(), {1, 2, 0, 0, 10, 11, 12, 13})
  h:view(1, 4):copy(h:view(3, 4)) -- overlapping views of one buffer
  t.eq(h:get(), {0, 0, 10, 11, 10, 11, 12, 13})
  t.checkerror("copy needs the same type and length: i32[8] <- i32[4]", h.copy, h, g)
  t.checkerror("copy needs the same type and length: f32[4] <- i32[4]", function()
    cuda.host_array("f32", 4, PAGE):copy(g)
  end)
  t.checkerror("view(8, 2) does not fit in a host array of 8 elements", h.view, h, 8, 2)
  t.checkerror("view(0, 1) does not fit in a host array of 8 elements", h.view, h, 0, 1)
end)

t.case("free, <close>, use after free", function()
  local h = cuda.host_array("u8", 16, PAGE)
  local v = h:view(2)
  h:free()
  h:free() -- idempotent: a double free is no error
  t.eq({h.freed, tostring(h)}, {true, "cuda.host_array (freed)"})
  t.checkerror("attempt to use a freed host array", function() return h[1] end)
  t.checkerror("attempt to use a freed host array", function() h[1] = 1 end)
  t.checkerror("attempt to use a freed host array", function() return #h end)
  t.checkerror("attempt to use a freed host array", h.get, h)
  t.checkerror("attempt to use a freed host array", h.fill, h, 1)
  t.checkerror("attempt to use a freed host array", function() return v[1] end)
  t.checkerror("attempt to use a freed host array", function() return h.pinned end)
  v:free()
  local kept
  do
    local c <close> = cuda.host_array("f64", 4, PAGE)
    kept = c
    t.eq(c.freed, false)
  end
  t.eq(kept.freed, true)
end)

t.case("bad input is one sentence", function()
  local types = "(one of i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64)"
  t.checkerror("unknown element type 'f33' " .. types, cuda.host_array, "f33", 4, PAGE)
  t.checkerror("unknown element type '4'", cuda.host_array, 4, 4)
  t.checkerror("string expected, got table", cuda.host_array, {}, 4)
  t.checkerror("the element count must be positive", cuda.host_array, "f32", 0, PAGE)
  t.checkerror("the element count must be positive", cuda.host_array, "f32", -3, PAGE)
  t.checkerror("the element count must be positive", cuda.host_array, "f32", {}, PAGE)
  t.checkerror("number has no integer representation", cuda.host_array, "f32", 2.5, PAGE)
  t.checkerror("number expected, got no value", cuda.host_array, "f32")
  t.checkerror("cuda.host_array: 2305843009213693952 elements of f64 are more than any machine holds",
               cuda.host_array, "f64", 1 << 61, PAGE)
  t.checkerror("4 TiB of pageable host memory is more than this machine's", cuda.host_array, "f32", 1 << 40, PAGE)
  t.checkerror("cuda.host_array: unknown option 'pined' (options: pinned)", cuda.host_array, "f32", 4, {pined = false})
  t.checkerror("cuda.host_array: pinned must be true or false, got string", cuda.host_array, "f32", 4, {pinned = "no"})
  t.checkerror("bad argument #3", cuda.host_array, "f32", 4, false)
  t.checkerror("(table expected, got boolean)", cuda.host_array, "f32", 4, false)
  t.checkerror("element 300 does not fit u8", cuda.host_array, "u8", {1, 300}, PAGE)
  local h = cuda.host_array("u8", 4, PAGE)
  t.checkerror("value 256 does not fit u8", function() h[1] = 256 end)
  t.checkerror("value 1.5 is not an integer (array type u8)", function() h[2] = 1.5 end)
  t.checkerror("index 5 out of range: the host array has 4 elements (valid: 1..4)", function() return h[5] end)
  t.checkerror("index 0 out of range: the host array has 4 elements (valid: 1..4)", function() h[0] = 1 end)
  t.checkerror("host array fields are read-only: h[i] = v takes an index 1..4", function() h.type = "f32" end)
  t.checkerror("host array has no field or method 'nope'", function() return h.nope end)
  t.checkerror("set: 3 values at index 3 do not fit in 4 elements", h.set, h, {1, 2, 3}, 3)
  t.checkerror("fill value -1 does not fit u8", h.fill, h, -1)
  -- A bad value in a set leaves the array as it was.
  h:set({1, 2, 3, 4})
  t.checkerror("element 999 does not fit u8", h.set, h, {9, 999})
  t.eq(h:get(), {1, 2, 3, 4})
end)

t.case("a host array is not a kernel argument", function()
  local m = assert(cuda.compile{source = "__global__ void k(float* a, int n) { if (n) a[0] = 1; }"})
  local h = cuda.host_array("f32", 4, PAGE)
  t.checkerror("argument 1 (float*) of k: a cuda.host_array is host memory: copy it into a "
               .. "cuda.array (a:copy(h)) and pass that", m.k.launch, m.k, 1, 32, h, 0)
end)

if not live then
  t.case("offline, a pinned host array raises the no-device sentence", function()
    local why = "(working from profile 'h200')"
    t.checkerror("no CUDA device: a pinned cuda.host_array needs a GPU " .. why, cuda.host_array, "f32", 4)
    t.checkerror("no CUDA device: a pinned cuda.host_array needs a GPU", cuda.host_array, "f32", 4, {pinned = true})
    t.checkerror("no CUDA device: a pinned cuda.host_array needs a GPU", cuda.host_array, "u8", {1, 2})
    -- Misuse is still reported first.
    t.checkerror("unknown element type 'f33'", cuda.host_array, "f33", 4)
    t.checkerror("the element count must be positive", cuda.host_array, "f32", 0)
  end)
else
  t.case("a pinned host array", function()
    local h = cuda.host_array("u32", 1000)
    t.eq({h.pinned, #h, h.bytes, tostring(h)}, {true, 1000, 4000, "cuda.host_array(u32, 1000, pinned)"})
    t.eq(h[1000], 0, "starts zeroed")
    t.eq(h:iota(5):get()[1000], 1004)
    h:free()
    h:free()
    t.checkerror("attempt to use a freed host array", h.get, h)
  end)

  t.case("copies between device and host arrays, both kinds, both ways", function()
    for _, pinned in ipairs{true, false} do
      local n = 3000
      local h = cuda.host_array("f32", n, {pinned = pinned}):iota(0.5)
      local d = cuda.array("f32", n):zero()
      t.eq(d:copy(h), d, "a:copy returns a")
      t.eq(d[n], n - 0.5)
      local back = cuda.host_array("f32", n, {pinned = not pinned})
      t.eq(back:copy(d), back, "h:copy returns h")
      t.eq(back:get(), h:get(), "round trip, pinned = " .. tostring(pinned))
      -- Views at offsets on both sides.
      d:view(11, 5):copy(h:view(101, 5))
      t.eq(d:view(10, 7):get(), {9.5, 100.5, 101.5, 102.5, 103.5, 104.5, 15.5})
      back:zero():view(2, 3):copy(d:view(12, 3))
      t.eq(back:view(1, 5):get(), {0.0, 101.5, 102.5, 103.5, 0.0})
      t.checkerror("copy needs the same type and length: f32[3000] <- f32[5]", d.copy, d, h:view(1, 5))
      t.checkerror("copy needs the same type and length: i32[3000] <- f32[3000]", function()
        cuda.array("i32", n):copy(h)
      end)
      t.checkerror("copy needs the same type and length: f32[5] <- f32[3000]", function() h:view(1, 5):copy(d) end)
      d:free()
      t.checkerror("attempt to use a freed array", h.copy, h, d)
      h:free()
      t.checkerror("attempt to use a freed host array", function() cuda.array("f32", n):copy(h) end)
    end
  end)

  t.case("a kernel's output lands in a host array; 64 MiB arrive intact", function()
    local m = assert(cuda.compile{source = [[
__global__ void sq(unsigned* a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i * i;
}]]})
    local n = 16 << 20
    local d = cuda.array("u32", n)
    m.sq:launch((n + 255) // 256, 256, d, n)
    for _, pinned in ipairs{true, false} do
      local h = cuda.host_array("u32", n, {pinned = pinned}):copy(d)
      for _, i in ipairs{1, 2, 4097, n // 2, n} do t.eq(h[i], ((i - 1) * (i - 1)) & 0xffffffff, "element " .. i) end
      d:zero():copy(h)
      t.eq(d[n], ((n - 1) * (n - 1)) & 0xffffffff)
      h:free()
    end
  end)

  t.case("cuda.bench times copies", function()
    local h = cuda.host_array("u8", 1 << 20)
    local d = cuda.array("u8", 1 << 20)
    local st = cuda.bench(function() d:copy(h) end, {warmup = 1, reps = 5})
    assert(st.median > 0 and st.n == 5, st.median)
  end)
end

t.run{exit = true}
