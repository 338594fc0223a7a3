-- api_offline.lua: without a GPU (a profile), everything that needs one raises one
-- sentence starting "no CUDA device: " and naming the call, while misuse is still
-- reported as misuse first. On a live GPU (gpu-check) there is nothing to test here.
local t = require "warplab.test"

local dev = cuda.device()
local THIS = debug.getinfo(1, "S").source:sub(2)

if dev.live then
  print("api_offline: a live device is present; the offline cases do not apply")
else
  local m = assert(cuda.compile{source = "__global__ void k(float* a, int n) { a[n] = 0; }"})
  local k = m.k
  local why = "(working from profile 'h200')"

  t.case("arrays work offline; their launch needs a GPU", function()
    local a = cuda.array("f32", 10)
    t.eq(#a, 10)
    t.eq(cuda.array("u8", {1, 2, 3}):get(), {1, 2, 3})
    local line = debug.getinfo(1, "l").currentline
    local msg = t.checkerror("no CUDA device: a kernel launch needs a GPU " .. why, function() k:launch(1, 32, a, 10) end)
    assert(msg:find(THIS .. ":" .. (line + 1) .. ": no CUDA device", 1, true), msg)
  end)

  t.case("array misuse is reported before the missing GPU", function()
    t.checkerror("unknown element type 'f33' (one of i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64)",
                 cuda.array, "f33", 10)
    t.checkerror("the element count must be positive", cuda.array, "f32", 0)
    t.checkerror("the element count must be positive", cuda.array, "f32", {})
    t.checkerror("number expected, got no value", cuda.array, "f32")
    t.checkerror("cuda.array: 2305843009213693952 elements of f64 are more than any device holds", cuda.array, "f64", 1 << 61)
    -- Aliases name the same types.
    t.eq(cuda.array("float", 4).type, "f32")
    t.eq(cuda.array("uint8", 4).type, "u8")
  end)

  t.case("streams, events, synchronize and bench need a GPU", function()
    t.checkerror("no CUDA device: cuda.stream needs a GPU " .. why, cuda.stream)
    t.checkerror("no CUDA device: cuda.stream needs a GPU", cuda.stream, {non_blocking = true})
    t.checkerror("no CUDA device: cuda.event needs a GPU " .. why, cuda.event)
    t.checkerror("no CUDA device: cuda.synchronize needs a GPU " .. why, cuda.synchronize)
    t.checkerror("no CUDA device: cuda.bench needs a GPU " .. why, cuda.bench, function() end)
    t.checkerror("cuda.stream takes nothing or a table of options, got number", cuda.stream, 1)
    t.checkerror("function expected, got string", cuda.bench, "k")
    t.checkerror("cuda.bench: reps must be an integer from 1 to 1000000, got 0", cuda.bench, function() end, {reps = 0})
    t.checkerror("cuda.bench: warmup must be an integer from 0 to 1000000, got -1", cuda.bench, function() end,
                 {warmup = -1})
  end)

  t.case("launches need a GPU, after every check passed", function()
    t.checkerror("no CUDA device: a kernel launch needs a GPU " .. why, k.launch, k, 1, 32, nil, 0)
    t.checkerror("no CUDA device: a kernel launch needs a GPU", function() k{grid = 1, block = 32, args = {nil, 0}} end)
    t.checkerror("no CUDA device: a kernel launch needs a GPU", function()
      k{grid = {2, 2}, block = {16, 8}, shared = 1024, cooperative = true, args = table.pack(nil, 0)}
    end)
    t.checkerror("no CUDA device: a kernel launch needs a GPU", k.bench, k, {grid = 1, block = 32, args = {nil, 0}})
    t.checkerror("bench: reps must be an integer from 1 to 1000000, got 0",
                 function() return k:bench{grid = 1, block = 32, reps = 0} end)
    t.checkerror("bench: warmup must be an integer from 0 to 1000000, got -1", k.bench, k,
                 {grid = 1, block = 32, warmup = -1})
    t.checkerror("bench: reps must be an integer from 1 to 1000000, got 2.5", k.bench, k, {grid = 1, block = 32, reps = 2.5})
  end)

  t.case("offline, compile and kernel resources still work", function()
    t.eq(m.arch, "sm_90")
    t.eq(k:check{grid = 1, block = 32}, true)
    t.eq(k:occupancy{block = 32}.blocks_per_sm, 32)
    t.eq(k.ptx_version, 90)
  end)
end

t.run{exit = true}
