-- tensor_map.lua: cuda.tensor_map with every rule broken once (rank, sizes, box, strides,
-- element strides, swizzle, L2 promotion, NaN fill, type, a misaligned view, a tensor larger
-- than its array, a freed array), its fields and use after free, a map passed where a
-- kernel wants one (and where it does not), and a sweep of hostile values; offline (h100),
-- where a map is made and checked but not encoded and the launch needs a GPU.
local cases = require "support.cases"
local a = cuda.array("u32", 1 << 16)
local f = cuda.array("f32", 1024)
local function TM(arr, o) return cuda.tensor_map(arr, o) end
local m = assert(cuda.compile{source = [[
typedef struct alignas(64) CUtensorMap_st { unsigned long long opaque[16]; } CUtensorMap;
__global__ void takes_map(const __grid_constant__ CUtensorMap map, unsigned* out) { if (out) out[0] = map.opaque[0]; }
__global__ void takes_ptr(unsigned* out) { if (out) out[0] = 1; }
]]})

cases.errors{
  {"no options", "expected an array and a table of options", function() return TM(a) end},
  {"not an array", "warplab.array expected", function() return TM({}, {box = {16}}) end},
  -- Named where Lua cannot name the call (pcall, a coroutine), never "bad argument #1 to '?'".
  {"pcall(cuda.tensor_map, 5, ...)", "bad argument #1 to 'cuda.tensor_map' (warplab.array expected, got number)",
   function() error(select(2, pcall(cuda.tensor_map, 5, {box = {16}}))) end},
  {"a host array through a coroutine", "bad argument #1 to 'cuda.tensor_map' (warplab.array expected, got warplab.host_array)",
   function() return coroutine.wrap(cuda.tensor_map)(cuda.host_array("u32", 64, {pinned = false}), {box = {16}}) end},
  {"pcall(map.free, 5)", "bad argument #1 to 'map:free' (warplab.tensor_map expected, got number)", function()
    local t = TM(a, {box = {16}})
    error(select(2, pcall(t.free, 5)))
  end},
  {"unknown option", "cuda.tensor_map: unknown option 'interleave'", function() return TM(a, {box = {16}, interleave = 16}) end},
  {"no box", "cuda.tensor_map: box = is required", function() return TM(a, {dims = {256, 256}}) end},
  {"rank 0", "dims has 0 entries: a tensor map has rank 1 to 5", function() return TM(a, {dims = {}, box = {16}}) end},
  {"rank 6", "dims has 6 entries: a tensor map has rank 1 to 5", function() return TM(a, {dims = {4, 4, 4, 4, 4, 4}, box = {4, 1, 1, 1, 1, 1}}) end},
  {"dims 0", "dims[2] = 0: each size is 1 to 2^32 elements", function() return TM(a, {dims = {256, 0}, box = {16, 1}}) end},
  {"dims 2^33", "dims[1] = 8589934592: each size is 1 to 2^32 elements", function() return TM(a, {dims = {1 << 33}, box = {16}}) end},
  {"dims 1.5", "dims[1] must be an integer, got 1.5", function() return TM(a, {dims = {1.5}, box = {16}}) end},
  {"dims 'x'", "dims must be a list of integers, got string", function() return TM(a, {dims = "x", box = {16}}) end},
  {"box rank", "box has 1 entries but dims has 2: one box size per dimension", function() return TM(a, {dims = {256, 256}, box = {16}}) end},
  {"box 300", "box[2] = 300: each box dimension is 1 to 256 elements", function() return TM(a, {dims = {256, 256}, box = {16, 300}}) end},
  {"box 0", "box[1] = 0: each box dimension is 1 to 256 elements", function() return TM(a, {dims = {256, 256}, box = {0, 1}}) end},
  {"box inner 12 bytes", "box[1] = 3 elements of 4 bytes = 12 bytes: the box's inner dimension must be a multiple of 16 bytes", function() return TM(a, {dims = {256, 256}, box = {3, 1}}) end},
  {"packed rows 20 bytes", "dimension 2 starts every 20 bytes (the sizes before it x 4 bytes): a tensor map's strides must be multiples of 16 bytes below 2^40; pad the rows and pass strides =", function() return TM(a, {dims = {5, 100}, box = {4, 1}}) end},
  {"stride count", "strides has 2 entries for rank 2: one byte stride for each dimension after the first (1)", function() return TM(a, {dims = {256, 4}, box = {16, 1}, strides = {1024, 4096}}) end},
  {"stride 1000", "strides[1] = 1000 bytes: each stride must be a multiple of 16 bytes", function() return TM(a, {dims = {64, 4}, box = {16, 1}, strides = {1000}}) end},
  {"stride 8", "strides[1] = 8: each stride is 16 bytes to 2^40 - 1", function() return TM(a, {dims = {2, 4}, box = {4, 1}, strides = {8}}) end},
  {"stride 2^40", "strides[1] = 1099511627776: each stride is 16 bytes to 2^40 - 1", function() return TM(a, {dims = {2, 4}, box = {4, 1}, strides = {1 << 40}}) end},
  {"rows overlap", "strides[1] = 512 bytes is less than the 1024 bytes the dimension below it spans: rows would overlap", function() return TM(a, {dims = {256, 4}, box = {16, 1}, strides = {512}}) end},
  {"elem_strides 9", "elem_strides[2] = 9: each element stride is 1 to 8", function() return TM(a, {dims = {256, 256}, box = {16, 16}, elem_strides = {1, 9}}) end},
  {"elem_strides rank", "elem_strides has 1 entries but dims has 2: one per dimension", function() return TM(a, {dims = {256, 256}, box = {16, 16}, elem_strides = {1}}) end},
  {"swizzle 48", "swizzle = 48: the swizzle span is 0 (none), 32, 64 or 128 bytes", function() return TM(a, {dims = {256, 256}, box = {8, 8}, swizzle = 48}) end},
  {"swizzle 'wide'", "swizzle = 'wide': give a byte count (0, 32, 64, 128, ...) or 'none'", function() return TM(a, {dims = {256, 256}, box = {8, 8}, swizzle = "wide"}) end},
  {"swizzle span", "box[1] x 4 bytes = 256 bytes exceeds the 128-byte swizzle span: the inner box must fit in it", function() return TM(a, {dims = {256, 256}, box = {64, 8}, swizzle = "128B"}) end},
  {"l2 100", "l2_promotion = 100: the L2 promotion is 0 (none), 64, 128 or 256 bytes", function() return TM(a, {dims = {256, 256}, box = {8, 8}, l2_promotion = 100}) end},
  {"oob_fill 'x'", "oob_fill must be 'zero' or 'nan', got 'x'", function() return TM(a, {box = {16}, oob_fill = "x"}) end},
  {"nan fill for u32", "oob_fill = 'nan' needs a floating-point array; this one holds u32", function() return TM(a, {box = {16}, oob_fill = "nan"}) end},
  {"type mismatch", "type = 'f32' does not match the array's u32 elements", function() return TM(a, {box = {16}, type = "f32"}) end},
  {"misaligned view", "the array starts 4 bytes into its allocation (a view): a tensor map's address must be 16-byte aligned", function() return TM(a:view(2, 64), {box = {16}}) end},
  {"larger than the array", "dims {256, 512} with strides {1024} span 524288 bytes but the array holds 262144 (65536 u32 elements)", function() return TM(a, {dims = {256, 512}, box = {16, 1}}) end},
  {"strides past the array", "span 1049600 bytes but the array holds 262144", function() return TM(a, {dims = {256, 2}, box = {16, 1}, strides = {1048576}}) end},
  {"freed array", "cuda.tensor_map: attempt to use a freed array", function() local b = cuda.array("u32", 64) b:free() return TM(b, {box = {16}}) end},
  {"freed map's fields", "attempt to use a freed tensor map", function() local t = TM(a, {box = {16}}) t:free() return t.dims end},
  -- Numbers that are no sizes, and values of the wrong kind, in every position.
  {"dims nan", "cuda.tensor_map: dims must be an integer or a list of them, got ", function() return TM(a, {dims = 0 / 0, box = {16}}) end},
  {"dims {nan}", "cuda.tensor_map: dims[1] must be an integer, got ", function() return TM(a, {dims = {0 / 0}, box = {16}}) end},
  {"dims {inf}", "dims[1] must be an integer, got inf", function() return TM(a, {dims = {math.huge}, box = {16}}) end},
  {"dims {1e308}", "dims[1] must be an integer, got 1e+308", function() return TM(a, {dims = {1e308}, box = {16}}) end},
  {"dims {2^53}", "dims[1] = 9007199254740992: each size is 1 to 2^32 elements", function() return TM(a, {dims = {2^53}, box = {16}}) end},
  {"dims {-1}", "dims[1] = -1: each size is 1 to 2^32 elements", function() return TM(a, {dims = {-1}, box = {16}}) end},
  {"dims {minint}", "dims[1] = -9223372036854775808: each size is 1 to 2^32 elements", function() return TM(a, {dims = {math.mininteger}, box = {16}}) end},
  {"dims of 9 entries", "cuda.tensor_map: dims has 9 entries: a tensor map has rank 1 to 5", function() return TM(a, {dims = {1, 1, 1, 1, 1, 1, 1, 1, 1}, box = {16}}) end},
  {"box of a table", "box[1] must be an integer, got table", function() return TM(a, {box = {{}}}) end},
  {"box 16.5", "box must be an integer or a list of them, got 16.5", function() return TM(a, {box = 16.5}) end},
  {"box maxinteger", "box[1] = 9223372036854775807: each box dimension is 1 to 256 elements", function() return TM(a, {box = {math.maxinteger}}) end},
  {"strides 2^62", "strides[1] = 4611686018427387904: each stride is 16 bytes to 2^40 - 1", function() return TM(a, {dims = {4, 4}, box = {4, 1}, strides = {1 << 62}}) end},
  {"strides -16", "strides[1] = -16: each stride is 16 bytes to 2^40 - 1", function() return TM(a, {dims = {4, 4}, box = {4, 1}, strides = {-16}}) end},
  {"rows that overlap past 64 bits", "strides[2] = 1099511627760 bytes is less than the 4722366482800925736960 bytes the dimension below it spans", function()
    return TM(a, {dims = {4, 1 << 32, 2}, box = {4, 1, 1}, strides = {(1 << 40) - 16, (1 << 40) - 16}})
  end},
  {"a tensor past 2^64 bytes", "span 295147905179352825856 bytes but the array holds 262144", function()
    return TM(a, {dims = {4, 1 << 32, 1 << 32}, box = {4, 1, 1}, strides = {16, 1 << 36}})
  end},
  {"swizzle 1e308", "swizzle must be a byte count or 'none', got 1e+308", function() return TM(a, {box = {8}, swizzle = 1e308}) end},
  {"swizzle -32", "swizzle must be a byte count or 'none', got -32", function() return TM(a, {box = {8}, swizzle = -32}) end},
  {"swizzle of 13 digits", "swizzle = '1234567890123B': give a byte count", function() return TM(a, {box = {8}, swizzle = "1234567890123B"}) end},
  {"swizzle of 10000 characters", "(10000 characters)': give a byte count", function() return TM(a, {box = {8}, swizzle = string.rep("x", 10000)}) end},
  {"a control character in a string", "swizzle = '\\x1b[2J': give a byte count", function() return TM(a, {box = {8}, swizzle = "\27[2J"}) end},
  {"l2_promotion true", "l2_promotion must be a byte count or 'none', got boolean", function() return TM(a, {box = {8}, l2_promotion = true}) end},
  {"oob_fill 1", "oob_fill must be 'zero' or 'nan', got 1", function() return TM(a, {box = {16}, oob_fill = 1}) end},
  {"type of a table", "type must be an element type's name (\"u32\", \"f32\", ...), got table", function() return TM(a, {box = {16}, type = {}}) end},
  {"type with a newline", "type = 'u32\\x0a' does not match the array's u32 elements", function() return TM(a, {box = {16}, type = "u32\n"}) end},
  {"options not a table", "expected an array and a table of options {dims =, box =, ...}, got number for the options", function() return TM(a, 5) end},
  {"a host array", "warplab.array expected, got warplab.host_array", function() return TM(cuda.host_array("u32", 64, {pinned = false}), {box = {16}}) end},
  {"nothing at all", "warplab.array expected, got no value", function() return cuda.tensor_map() end},
  {"an option key that is no string", "cuda.tensor_map: unknown option '1'", function() return TM(a, {box = {16}, [1] = 2}) end},
  -- Lua code that runs while the options are read: it may free the array, or fail.
  {"the array freed by the options' __index", "cuda.tensor_map: attempt to use a freed array", function()
    local b = cuda.array("u32", 64)
    return TM(b, setmetatable({box = {16}}, {__index = function() b:free() end}))
  end},
  {"the options' __index fails", "from __index", function()
    return TM(a, setmetatable({box = {16}}, {__index = function() error("from __index", 0) end}))
  end},
  -- The map's fields and methods, misused.
  {"an unknown field", "tensor map has no field or method 'nope'", function() return TM(a, {box = {16}}).nope end},
  {"a field of 5000 characters", "(5000 characters)'", function() return TM(a, {box = {16}})[string.rep("k", 5000)] end},
  {"a number as a field", "a tensor map's fields have names (map.dims, map.box, ...), got number", function() return TM(a, {box = {16}})[1] end},
  {"a field assigned", "a tensor map's fields are read-only: make a new map", function() TM(a, {box = {16}}).dims = {4} end},
  {"free without the map", "warplab.tensor_map expected, got no value", function() return TM(a, {box = {16}}).free() end},
  {"free given an array", "warplab.tensor_map expected, got warplab.array", function() return TM(a, {box = {16}}).free(a) end},
  {"an array's method given a map", "warplab.array expected, got warplab.tensor_map", function() return a.free(TM(a, {box = {16}})) end},
  {"a field of a map used after its __gc", "attempt to use a tensor map after its finalizer ran", function()
    local msg
    do
      local holder = setmetatable({}, {__gc = function(h) msg = select(2, pcall(function() return h.map.dims end)) end})
      holder.map = TM(a, {box = {16}}) -- marked for finalization after the holder: finalized first
    end
    collectgarbage()
    collectgarbage()
    error(msg or "the finalizer did not run", 0)
  end},
  {"a map where a pointer goes", "argument 1 (unsigned int*) of takes_ptr: expected a cuda.array (or nil for a null pointer), got a cuda.tensor_map: it goes to a CUtensorMap parameter (const __grid_constant__ CUtensorMap)", function() error(select(2, m.takes_ptr:check{grid = 1, block = 1, args = {TM(a, {box = {16}})}})) end},
}

-- What a launch says: the argument's sentence first, else no GPU (offline).
local function launch_says(map)
  local ok, why = m.takes_map:check{grid = 1, block = 1, args = {map, a}}
  assert(not ok, "k:check accepted it")
  return why
end
cases.errors{
  {"an array where the map goes", "argument 1 (CUtensorMap_st) of takes_map: expected a cuda.tensor_map (or its 128 bytes as a string), got userdata", function() error(launch_says(a)) end},
  {"a number where the map goes", "expected a cuda.tensor_map (or its 128 bytes as a string), got number", function() error(launch_says(7)) end},
  {"freed map at the launch", "argument 1 (CUtensorMap_st) of takes_map: attempt to use a freed tensor map", function() local t = TM(a, {box = {16}}) t:free() error(launch_says(t)) end},
  {"array freed after the map", "argument 1 (CUtensorMap_st) of takes_map: the tensor map's array was freed", function() local b = cuda.array("u32", 64) local t = TM(b, {box = {16}}) b:free() error(launch_says(t)) end},
  {"offline launch", "no CUDA device", function() m.takes_map:launch(1, 1, TM(a, {box = {16}}), a) end},
}

cases.fine{
  {"1-D over the whole array", function()
    local t = TM(a, {box = {256}})
    assert(t.dims[1] == 1 << 16 and t.box[1] == 256 and t.bytes == 1024 and t.type == "u32" and not t.encoded and not t.freed)
    assert(tostring(t):find("cuda.tensor_map(u32 {65536}, box {256} = 1024 bytes, swizzle none (not encoded: no GPU))", 1, true), tostring(t))
  end},
  {"2-D, swizzled, NaN fill on floats", function()
    local t = TM(f, {dims = {32, 32}, box = {32, 8}, swizzle = 128, oob_fill = "nan", l2_promotion = "256B", type = "f32"})
    assert(t.strides[1] == 128 and t.swizzle == 128 and t.bytes == 1024)
  end},
  {"k:check accepts a map for a CUtensorMap", function() assert(m.takes_map:check{grid = 1, block = 1, args = {TM(a, {box = {16}}), a}}) end},
  {"the map keeps its array alive", function()
    local t = TM(cuda.array("u32", 64), {box = {16}})
    collectgarbage()
    collectgarbage()
    assert(not t.freed and m.takes_map:check{grid = 1, block = 1, args = {t, a}})
  end},
  {"a whole number as a float is that number", function()
    local t = TM(a, {dims = {256.0, 256}, box = {16.0, 2^0}, swizzle = "none", l2_promotion = "64B"})
    assert(t.dims[1] == 256 and math.type(t.dims[1]) == "integer" and t.box[1] == 16, tostring(t))
  end},
  {"free twice, then <close>, then the collector", function()
    for _ = 1, 50 do
      local b = cuda.array("u32", 64)
      local t = TM(b, {box = {16}})
      if math.random(2) == 1 then t:free() end
      if math.random(2) == 1 then b:free() end
      t:free()
      do local c <close> = t end
      assert(t.freed and tostring(t) == "cuda.tensor_map (freed)")
    end
    collectgarbage()
    collectgarbage()
  end},
  {"a map's array freed: fields still describe it, tostring says so", function()
    local b = cuda.array("u32", 64)
    local t = TM(b, {box = {16}})
    b:free()
    assert(t.freed and t.dims[1] == 64, "freed with its fields")
    assert(tostring(t):find("; its array was freed)", 1, true), tostring(t))
  end},
  {"a map over an aligned view keeps the view and its array", function()
    local t = TM(cuda.array("u32", 1024):view(5, 256), {box = {16}})
    collectgarbage()
    collectgarbage()
    assert(not t.freed and t.dims[1] == 256)
  end},
  {"<close> frees it", function() do local t <close> = TM(a, {box = {16}}) T = t end assert(T.freed and tostring(T) == "cuda.tensor_map (freed)") end},
}

local sweep = {}
for i = 1, cases.nvalues do
  local v = cases.values[i]
  for _, key in ipairs{"dims", "box", "strides", "elem_strides", "swizzle", "l2_promotion", "oob_fill", "type"} do
    sweep[#sweep + 1] = {key .. " = values[" .. i .. "]", function() return TM(a, {dims = {256, 256}, box = {16, 16}, [key] = v}) end}
  end
  sweep[#sweep + 1] = {"cuda.tensor_map(values[" .. i .. "])", function() return TM(v, {box = {16}}) end}
  sweep[#sweep + 1] = {"cuda.tensor_map(a, values[" .. i .. "])", function() return TM(a, v) end}
end
cases.survives(sweep)
cases.run()
