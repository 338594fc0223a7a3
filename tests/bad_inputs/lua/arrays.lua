-- arrays.lua: cuda.host_array (pageable: it works offline) and cuda.array (needs a GPU)
-- with wrong element types, counts, lists, indices, values and options; NaN, infinities,
-- the integer limits and fractions in every numeric slot; views and use after free.
local cases = require "support.cases"
local function H(ty, n) return cuda.host_array(ty, n, {pinned = false}) end
local h = H("i32", 4)
local f = H("f16", 2)
local u = H("u64", 2)

cases.errors{
  -- construction
  {"type nil", "string expected, got nil", function() return H(nil, 4) end},
  {"type 5", "unknown element type '5' (one of i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64)", function() return H(5, 4) end},
  {"type ''", "unknown element type ''", function() return H("", 4) end},
  {"type 'f32\\0'", "unknown element type", function() return H("f32\0", 4) end},
  {"count 0", "the element count must be positive", function() return H("f32", 0) end},
  {"count -1", "the element count must be positive", function() return H("f32", -1) end},
  {"count {}", "the element count must be positive", function() return H("f32", {}) end},
  {"count 1.5", "number has no integer representation", function() return H("f32", 1.5) end},
  {"count nan", "number has no integer representation", function() return H("f32", 0 / 0) end},
  {"count inf", "number has no integer representation", function() return H("f32", math.huge) end},
  {"count maxinteger", "9223372036854775807 elements of u8 are more than any machine holds", function() return H("u8", math.maxinteger) end},
  {"count 2^62 f64", "elements of f64 are more than any machine holds", function() return H("f64", 1 << 62) end},
  {"count 2^50", "of pageable host memory is more than this machine's", function() return H("f32", 1 << 50) end},
  {"list nested", "element must be a number for an f32 array, got table", function() return H("f32", {{1}}) end},
  {"list hole", "element must be a number for an f32 array, got nil", function() return H("f32", {1, nil, 3}) end},
  {"list string", "element must be a number for an f32 array, got string", function() return H("f32", {"1", "x"}) end},
  {"list bool", "element must be a number for a u8 array, got boolean", function() return H("u8", {true}) end},
  {"list 300 for u8", "does not fit u8", function() return H("u8", {300}) end},
  {"list 1.5 for i32", "is not an integer (array type i32)", function() return H("i32", {1.5}) end},
  {"opts pinned 'no'", "cuda.host_array: pinned must be true or false, got string", function() return cuda.host_array("f32", 4, {pinned = "no"}) end},
  {"opts bogus", "cuda.host_array: unknown option 'bogus' (options: pinned)", function() return cuda.host_array("f32", 4, {bogus = 1}) end},
  {"opts 'x'", "table expected, got string", function() return cuda.host_array("f32", 4, "x") end},
  {"pinned offline", "no CUDA device: a pinned cuda.host_array needs a GPU", function() return cuda.host_array("f32", 4) end},
  {"cuda.array bad type", "unknown element type 'f33'", function() return cuda.array("f33", 4) end},
  {"cuda.array count -1", "the element count must be positive", function() return cuda.array("f32", -1) end},
  -- elements
  {"h[0]", "index 0 out of range: the host array has 4 elements (valid: 1..4)", function() return h[0] end},
  {"h[5]", "index 5 out of range", function() return h[5] end},
  {"h[maxinteger]", "index 9223372036854775807 out of range", function() return h[math.maxinteger] end},
  {"h[mininteger]", "index -9223372036854775808 out of range", function() return h[math.mininteger] end},
  {"h[1.5]", "number has no integer representation", function() return h[1.5] end},
  {"h[nan]", "number has no integer representation", function() return h[0 / 0] end},
  {"h['1']", "host array has no field or method '1'", function() return h["1"] end},
  {"h.nope", "host array has no field or method 'nope'", function() return h.nope end},
  {"h[1] = true", "value must be a number for an i32 array, got boolean", function() h[1] = true end},
  {"h[1] = nil", "value must be a number for an i32 array, got nil", function() h[1] = nil end},
  {"h[1] = 2^31", "value 2147483648 does not fit i32", function() h[1] = 2 ^ 31 end},
  {"h[1] = 1.5", "is not an integer (array type i32)", function() h[1] = 1.5 end},
  {"h[1] = nan", "is not an integer (array type i32)", function() h[1] = 0 / 0 end},
  {"h[1] = inf", "does not fit i32", function() h[1] = math.huge end},
  {"h[9] = 1", "index 9 out of range", function() h[9] = 1 end},
  {"h.type = x", "host array fields are read-only: h[i] = v takes an index 1..4", function() h.type = "f64" end},
  {"u[1] = -1", "value -1 does not fit u64", function() u[1] = -1 end},
  {"u[1] = 2^64", "does not fit u64", function() u[1] = 2 ^ 64 end},
  -- methods
  {"set('abc')", "table expected, got string", function() return h:set("abc") end},
  {"set(nil)", "table expected, got nil", function() return h:set(nil) end},
  {"set too many", "set: 5 values at index 1 do not fit in 4 elements", function() return h:set({1, 2, 3, 4, 5}) end},
  {"set at 0", "set: 1 values at index 0 do not fit in 4 elements", function() return h:set({1}, 0) end},
  {"set at 2^40", "set: 1 values at index 1099511627776 do not fit", function() return h:set({1}, 2 ^ 40) end},
  {"set at maxinteger", "at index 9223372036854775807 do not fit", function() return h:set({1}, math.maxinteger) end},
  {"set at nan", "number has no integer representation", function() return h:set({1}, 0 / 0) end},
  {"set {'x'}", "element must be a number for an i32 array, got string", function() return h:set({"x"}) end},
  {"fill()", "fill value must be a number for an i32 array, got no value", function() return h:fill() end},
  {"fill(2^31)", "fill value 2147483648 does not fit i32", function() return h:fill(2 ^ 31) end},
  {"fill(nan)", "i32", function() return h:fill(0 / 0) end},
  {"iota('a')", "number expected, got string", function() return h:iota("a") end},
  {"iota(0, nan)", "iota: start and step must be integers for an i32 array", function() return h:iota(0, 0 / 0) end},
  {"iota overflow", "iota: 4 elements from -2147483648 by -1 end at -2147483651, which does not fit i32", function() return h:iota(-2 ^ 31, -1) end},
  {"iota(maxinteger, maxinteger)", "does not fit", function() return H("i64", 4):iota(math.maxinteger, math.maxinteger) end},
  {"random('x')", "table expected, got string", function() return h:random("x") end},
  {"random{seed = nan}", "random: seed must be an integer, got", function() return h:random{seed = 0 / 0} end},
  {"random{seed = 1.5}", "random: seed must be an integer, got 1.5", function() return h:random{seed = 1.5} end},
  {"random{sed = 3}", "random: unknown option 'sed' (options: seed, lo, hi)", function() return h:random{sed = 3} end},
  {"random{lo = 'x'}", "random: lo must be a number, got x", function() return h:random{lo = "x"} end},
  {"random{hi = {}}", "random: hi must be a number, got table", function() return h:random{hi = {}} end},
  {"random lo > hi", "random: lo (10) must not exceed hi (1)", function() return h:random{lo = 10, hi = 1} end},
  {"random{lo = nan}", "must not exceed hi", function() return h:random{lo = 0 / 0} end},
  {"random range too wide", "random: [-1099511627776, 1099511627776] does not fit i32", function() return h:random{lo = -2 ^ 40, hi = 2 ^ 40} end},
  {"get(1)", "get() takes no arguments (a[i] reads one element", function() return h:get(1) end},
  {"view(0)", "view(0) does not fit in a host array of 4 elements", function() return h:view(0) end},
  {"view(2, 10)", "view(2, 10) does not fit", function() return h:view(2, 10) end},
  {"view(2, -1)", "view(2, -1) does not fit", function() return h:view(2, -1) end},
  {"view(1, 0)", "view(1, 0) does not fit", function() return h:view(1, 0) end},
  {"view(maxinteger)", "view(9223372036854775807) does not fit", function() return h:view(math.maxinteger) end},
  {"view(mininteger, 2)", "view(-9223372036854775808, 2) does not fit", function() return h:view(math.mininteger, 2) end},
  {"view(2, maxinteger)", "view(2, 9223372036854775807) does not fit", function() return h:view(2, math.maxinteger) end},
  {"view(nan)", "number has no integer representation", function() return h:view(0 / 0) end},
  {"copy other type", "copy needs the same type and length: i32[4] <- f32[4]", function() return h:copy(H("f32", 4)) end},
  {"copy other length", "copy needs the same type and length: i32[4] <- i32[5]", function() return h:copy(H("i32", 5)) end},
  {"copy(5)", "warplab.array expected, got number", function() return h:copy(5) end},
  {"copy(nil)", "warplab.array expected, got nil", function() return h:copy(nil) end},
  {"a host array as a kernel argument", "a cuda.host_array is host memory: copy it into a cuda.array (a:copy(h)) and pass that", function()
    local m = assert(cuda.compile{source = "__global__ void k(float* x) {}"})
    return m.k:launch(1, 1, H("f32", 1))
  end},
  -- after free
  {"use after free", "attempt to use a freed host array", function() local x = H("f32", 2); x:free(); return x[1] end},
  {"get after free", "attempt to use a freed host array", function() local x = H("f32", 2); x:free(); return x:get() end},
  {"#x after free", "attempt to use a freed host array", function() local x = H("f32", 2); x:free(); return #x end},
  {"a view after its base is freed", "attempt to use a freed host array", function() local x = H("f32", 4); local v = x:view(2, 2); x:free(); return v[1] end},
  {"copy from a freed array", "attempt to use a freed host array", function() local x = H("f32", 4); local y = H("f32", 4); y:free(); return x:copy(y) end},
  {"set on a freed view", "attempt to use a freed host array", function() local x = H("f32", 4); local v = x:view(1, 2); v:free(); return v:set({1}) end},
}

cases.fine{
  {"an array of more than 2^31 elements is counted as it is, in its name and its sentences", function()
    -- Offline a cuda.array is host memory, left untouched here (no page is written).
    local ok, a = pcall(cuda.array, "u8", (1 << 31) + 5)
    if not ok then  -- a machine with under 4 GiB refuses it: a sentence, then nothing to check
      assert(a:find("more than this machine's", 1, true), a)
      return
    end
    cases.eq(tostring(a), "cuda.array(u8, 2147483653)")
    cases.eq(#a, 2147483653)
    local bad, err = pcall(function() a.x = 1 end)
    assert(not bad and err:find("takes an index 1..2147483653", 1, true), err)
    -- a:get() refuses at once: no table of 2^31 elements is started
    bad, err = pcall(a.get, a)
    assert(not bad and err:find("get() of 2147483653 elements: a Lua table holds at most 2147483647", 1, true), err)
    a:free()
  end},
  {"aliases, integral floats and string numbers", function()
    local x = H("int", 2)
    x[1] = 127.0
    x[2] = "5"
    cases.eq(x:get(), {127, 5})
    cases.eq(x.type, "i32")
  end},
  {"f16: 1e10 is refused (it would be inf), inf and NaN stay, -0 keeps its sign", function()
    local ok, err = pcall(function() f[1] = 1e10 end)
    assert(not ok and err:find("value 10000000000 does not fit f16 (finite values up to ±65504)", 1, true), err)
    f[1] = math.huge
    cases.eq(f[1], math.huge)
    f[2] = 0 / 0
    assert(f[2] ~= f[2])
    f[1] = -0.0
    cases.eq(1 / f[1], -math.huge)
  end},
  {"u64 holds maxinteger; i64 holds both limits", function()
    u:fill(math.maxinteger)
    cases.eq(u[1], math.maxinteger)
    local i = H("i64", 2)
    i:set({math.mininteger, math.maxinteger})
    cases.eq(i:get(), {math.mininteger, math.maxinteger})
  end},
  {"a value that does not fit leaves the array as it was", function()
    local x = H("u8", 3):set({1, 2, 3})
    pcall(x.set, x, {4, 5, 300})
    cases.eq(x:get(), {1, 2, 3})
  end},
  {"free is idempotent; views detach; <close> frees", function()
    local x = H("f32", 4)
    local v = x:view(2)
    v:free()
    v:free()
    cases.eq(x[4], 0.0)
    x:free()
    x:free()
    cases.eq(x.freed, true)
    assert(tostring(x):find("freed", 1, true))
    do local c <close> = H("f32", 1) end
  end},
  {"copy onto itself and overlapping views", function()
    local x = H("i32", 6):iota(1)
    x:view(1, 4):copy(x:view(3, 4))
    cases.eq(x:get(), {3, 4, 5, 6, 5, 6})
    x:copy(x)
  end},
  {"random is the same for the same seed; negative seeds work", function()
    cases.eq(H("f32", 8):random{seed = -1}:get(), H("f32", 8):random{seed = -1}:get())
  end},
  {"many arrays, collected", function()
    for _ = 1, 2000 do H("u8", 64) end
    collectgarbage()
    collectgarbage()
  end},
}

local sweep = {}
local methods = {"get", "set", "fill", "iota", "random", "zero", "copy", "view", "free"}
for i = 1, cases.nvalues do
  local v = cases.values[i]
  sweep[#sweep + 1] = {"host_array(values[" .. i .. "], 4)", function() return H(v, 4) end}
  sweep[#sweep + 1] = {"host_array('f32', values[" .. i .. "])", function() return H("f32", v) end}
  sweep[#sweep + 1] = {"host_array('f32', 4, values[" .. i .. "])", function() return cuda.host_array("f32", 4, v) end}
  sweep[#sweep + 1] = {"cuda.array('f32', values[" .. i .. "])", function() return cuda.array("f32", v) end}
  sweep[#sweep + 1] = {"h[values[" .. i .. "]]", function() return h[v] end}
  sweep[#sweep + 1] = {"h[1] = values[" .. i .. "]", function() h[1] = v end}
  sweep[#sweep + 1] = {"f[1] = values[" .. i .. "]", function() f[1] = v end}
  for _, name in ipairs(methods) do
    sweep[#sweep + 1] = {"h:" .. name .. "(values[" .. i .. "], values[" .. i .. "])", function()
      local x = H("i8", 3)
      return x[name](x, v, v)
    end}
  end
end
cases.survives(sweep)
cases.run()
