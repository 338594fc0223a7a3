-- kernel.lua: a kernel's fields, k:occupancy, k:check and the launch calls with wrong
-- types, counts, nil, NaN, infinities, negative, huge and fractional numbers, offline
-- (the h100 profile: launches say they need a GPU; checks and occupancy work).
local cases = require "support.cases"

local m = assert(cuda.compile{source = [[
  __global__ void k(float* x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1; }
  extern "C" __global__ void c(float* x, int n) { x[n] = 0; }
  template <int N> __global__ void t(float* x) { __shared__ float s[N]; s[threadIdx.x] = 1; x[0] = s[0]; }
]], kernels = {"t<32>", "t<8192>"}})
local k = m.k

cases.errors{
  -- k:occupancy: a block size or a table
  {"occupancy(2^40)", "occupancy: a block of 1099511627776 threads is more than any device runs (at most 1024)", function() return k:occupancy(2 ^ 40) end},
  {"occupancy(2^63)", "occupancy: block must be a whole number of threads, got 9.2233720368548e+18", function() return k:occupancy(2 ^ 63) end},
  {"occupancy(nan)", "occupancy: block must be a whole number of threads, got", function() return k:occupancy(0 / 0) end},
  {"occupancy(inf)", "occupancy: block must be a whole number of threads, got inf", function() return k:occupancy(math.huge) end},
  {"occupancy(-inf)", "occupancy: block must be a whole number of threads, got -inf", function() return k:occupancy(-math.huge) end},
  {"occupancy(1.5)", "occupancy: block must be a whole number of threads, got 1.5", function() return k:occupancy(1.5) end},
  {"occupancy(-1)", "occupancy needs block = <threads per block> >= 1", function() return k:occupancy(-1) end},
  {"occupancy(mininteger)", "occupancy needs block = <threads per block> >= 1", function() return k:occupancy(math.mininteger) end},
  {"occupancy(0)", "occupancy needs block = <threads per block> >= 1", function() return k:occupancy(0) end},
  {"occupancy()", "table {block = ...} or a block size expected, got no value", function() return k:occupancy() end},
  {"occupancy('256')", "table {block = ...} or a block size expected, got string", function() return k:occupancy("256") end},
  {"occupancy(true)", "table {block = ...} or a block size expected, got boolean", function() return k:occupancy(true) end},
  {"occupancy{}", "occupancy needs block = <threads per block> >= 1", function() return k:occupancy{} end},
  {"occupancy{block = '32'}", "occupancy: block must be an integer, got 32", function() return k:occupancy{block = "32"} end},
  {"occupancy{block = 2^31}", "occupancy: a block of 2147483648 threads is more than any device runs (at most 1024)", function() return k:occupancy{block = 2 ^ 31} end},
  {"occupancy{shared = -1}", "occupancy: shared must be a byte count >= 0, got -1", function() return k:occupancy{block = 32, shared = -1} end},
  {"occupancy{shared = nan}", "occupancy: shared must be an integer", function() return k:occupancy{block = 32, shared = 0 / 0} end},
  {"occupancy{shared = 2^70}", "occupancy: shared must be an integer", function() return k:occupancy{block = 32, shared = 2 ^ 70} end},
  {"occupancy{carveout = 101}", "carveout must be a percentage 0..100 (or -1, the default), got 101", function() return k:occupancy{block = 32, carveout = 101} end},
  {"occupancy{carveout = -2}", "carveout must be a percentage 0..100", function() return k:occupancy{block = 32, carveout = -2} end},
  {"occupancy{carveout = 1.5}", "occupancy: carveout must be an integer, got 1.5", function() return k:occupancy{block = 32, carveout = 1.5} end},
  {"occupancy on a module", "warplab.kernel expected, got warplab.module", function() return k.occupancy(m, 32) end},
  {"occupancy on nil", "warplab.kernel expected, got nil", function() return k.occupancy(nil, 32) end},
  -- k:check and the launch table
  {"check()", "table expected, got no value", function() return k:check() end},
  {"check('x')", "table expected, got string", function() return k:check("x") end},
  {"check{grid}", "launch table needs block =", function() return k:check{grid = 1} end},
  {"check{block}", "launch table needs grid =", function() return k:check{block = 1} end},
  {"check grid 2^40", "grid must be an integer >= 0 or a list of 1 to 3 of them (got 1099511627776.0)", function() return k:check{grid = 2 ^ 40, block = 32} end},
  {"check grid nan", "grid must be an integer >= 0 or a list of 1 to 3 of them", function() return k:check{grid = 0 / 0, block = 32} end},
  {"check grid inf", "grid must be an integer >= 0", function() return k:check{grid = math.huge, block = 32} end},
  {"check grid -1", "grid must be an integer >= 0 or a list of 1 to 3 of them (got -1)", function() return k:check{grid = -1, block = 32} end},
  {"check grid 1.5", "(got 1.5)", function() return k:check{grid = 1.5, block = 32} end},
  {"check grid 'x'", "grid must be an integer >= 0", function() return k:check{grid = "x", block = 32} end},
  {"check grid {}", "grid must have 1 to 3 dimensions, got 0", function() return k:check{grid = {}, block = 32} end},
  {"check grid 4 dims", "grid must have 1 to 3 dimensions, got 4", function() return k:check{grid = {1, 1, 1, 1}, block = 32} end},
  {"check grid {nan}", "grid must be an integer >= 0", function() return k:check{grid = {0 / 0}, block = 32} end},
  {"check grid {1, 'y'}", "grid must be an integer >= 0", function() return k:check{grid = {1, "y"}, block = 32} end},
  {"check block -1", "block must be an integer >= 0", function() return k:check{grid = 1, block = -1} end},
  {"check block 2^32", "block must be an integer >= 0", function() return k:check{grid = 1, block = 2 ^ 32} end},
  {"check shared -1", "shared must be a byte count >= 0, got -1", function() return k:check{grid = 1, block = 32, shared = -1} end},
  {"check shared 2^33", "shared must be a byte count >= 0, got 8589934592.0", function() return k:check{grid = 1, block = 32, shared = 2 ^ 33} end},
  {"check stream 5", "stream must be a cuda.stream() or nil, got number", function() return k:check{grid = 1, block = 32, stream = 5} end},
  {"check stream table", "stream must be a cuda.stream() or nil", function() return k:check{grid = 1, block = 32, stream = {}} end},
  {"check cluster nan", "cluster must be an integer >= 0 or a list of 1 to 3 of them", function() return k:check{grid = 8, block = 32, cluster = 0 / 0} end},
  {"check cluster {-1}", "cluster must be an integer >= 0", function() return k:check{grid = 8, block = 32, cluster = {-1}} end},
  -- launches offline: the sentence names the call and why
  {"k:launch offline", "needs a GPU", function() return k:launch(1, 32, nil, 1) end},
  {"k{} offline", "needs a GPU", function() return k{grid = 1, block = 32, args = {nil, 1}} end},
  {"k:bench offline", "needs a GPU", function() return k:bench{grid = 1, block = 32, args = {nil, 1}} end},
  {"k:launch()", "grid must be an integer >= 0", function() return k:launch() end},
  {"k:bench wrong count", "k expects 2 arguments (k(float*, int)), got 0", function() return k:bench{grid = 1, block = 1} end},
  {"k() no table", "table expected, got no value", function() return k() end},
  {"k:launch on a module", "warplab.kernel expected", function() return k.launch(m, 1, 1) end},
  -- fields
  {"k.nope", "kernel has no field or method 'nope'", function() return k.nope end},
  {"k[1]", "kernel has no field or method '1'", function() return k[1] end},
  {"k[nil]", "string expected, got nil", function() return k[nil] end},
  {"k.name = 1", "attempt to index a warplab.kernel value", function() k.name = 1 end},
  {"#k", "attempt to get length of a warplab.kernel value", function() return #k end},
  {"k .. ''", "attempt to concatenate a warplab.kernel value", function() return k .. "" end},
  -- m:kernel with a declared signature
  {"m:kernel(5 types)", "bad signature for kernel 'c' (\"5\")", function() return m:kernel("c", "5") end},
  {"m:kernel(too few)", "kernel c: the declared signature has 1 parameters but the kernel takes 2", function() return m:kernel("c", "float* x") end},
  {"m:kernel(too many)", "the declared signature has 3 parameters but the kernel takes 2", function() return m:kernel("c", "float* x, int n, int e") end},
  {"m:kernel(unbalanced)", "unbalanced brackets", function() return m:kernel("c", "float* x, int n)") end},
  {"m:kernel(types table)", "string expected, got table", function() return m:kernel("c", {"float*", "int"}) end},
  {"m:kernel(nil)", "string expected, got nil", function() return m:kernel(nil) end},
  {"m:kernel('')", "has no kernel ''", function() return m:kernel("") end},
  {"m:kernel('t')", "t<32>", function() return m:kernel("t") end},
  {"m:kernel('t<64>')", "has no kernel 't<64>'", function() return m:kernel("t<64>") end},
  {"m:kernel(NUL)", "has no kernel", function() return m:kernel("k\0") end},
  {"m[NUL]", "has no kernel", function() return m["k\0x"] end},
  {"m:kernel(a long function pointer type)", "is a function pointer type of 100009 characters (at most 2048)",
   function() return m:kernel("c", string.rep("a", 100000) .. "(*f)(int), int n") end},
  {"m:kernel(a long function pointer's parameters)", "is a function pointer type of",
   function() return m:kernel("c", "void (*f)(" .. string.rep("a", 100000) .. "), int n") end},
  -- options tables: a typo or a wrong type is named, never ignored
  {"cooperative = 'yes'", "cooperative must be true or false, got string", function() return k:check{grid = 1, block = 32, cooperative = "yes"} end},
  {"cooperative = 0", "cooperative must be true or false, got number", function() return k:check{grid = 1, block = 32, cooperative = 0} end},
  {"occupancy{share = }", "occupancy: unknown option 'share' (options: block, shared, carveout)", function() return k:occupancy{block = 256, share = 1024} end},
  {"bench{reps = 0}", "bench: reps must be an integer from 1 to 1000000, got 0", function() return k:bench{grid = 1, block = 32, reps = 0} end},
  {"bench{reps = 1e9}", "bench: reps must be an integer from 1 to 1000000, got 1000000000.0", function() return k:bench{grid = 1, block = 32, reps = 1e9} end},
  {"bench{reps = 2^32 + 1}", "bench: reps must be an integer from 1 to 1000000, got 4294967297", function() return k:bench{grid = 1, block = 32, reps = 4294967297} end},
  {"bench{warmup = -1}", "bench: warmup must be an integer from 0 to 1000000, got -1", function() return k:bench{grid = 1, block = 32, warmup = -1} end},
  {"cuda.bench(f, 5)", "cuda.bench takes nothing or a table of options, got number", function() return cuda.bench(function() end, 5) end},
  {"cuda.bench(f, {rep = 5})", "cuda.bench: unknown option 'rep' (options: warmup, reps, stream)", function() return cuda.bench(function() end, {rep = 5}) end},
  {"cuda.bench(f, {reps = 1e9})", "cuda.bench: reps must be an integer from 1 to 1000000, got 1000000000.0", function() return cuda.bench(function() end, {reps = 1e9}) end},
}

cases.fine{
  {"occupancy(256.0) takes an integral float", function() cases.eq(k:occupancy(256.0).block, 256) end},
  {"occupancy of a block over the limit is 0 blocks, with the reason", function()
    local occ = k:occupancy{block = 2048}
    cases.eq(occ.blocks_per_sm, 0)
    assert(occ.reason:find("exceeds max_threads_per_block = 1024", 1, true), occ.reason)
  end},
  {"occupancy with huge shared memory is 0 blocks", function()
    local occ = k:occupancy{block = 32, shared = math.maxinteger}
    cases.eq(occ.blocks_per_sm, 0)
    assert(occ.reason:find("dynamic 9223372036854775807 bytes exceeds", 1, true), occ.reason)
  end},
  {"check of a too-large block is false and a sentence", function()
    local ok, why = k:check{grid = 1, block = 2048}
    cases.eq(ok, false)
    assert(why:find("block dimension x = 2048 exceeds max_block_dim_x = 1024", 1, true), why)
  end},
  {"check of too much shared memory", function()
    local ok, why = m["t<8192>"]:check{grid = 1, block = 32, shared = 200 * 1024}
    cases.eq(ok, false)
    assert(why:find("shared", 1, true), why)
  end},
  {"a kernel outlives its freed module", function()
    local m2 = assert(cuda.compile{source = "__global__ void g(int* p) { p[0] = 1; }"})
    local g = m2.g
    m2:free()
    collectgarbage()
    cases.eq(g.name, "g")
    cases.eq(g:occupancy(32).block, 32)
  end},
  {"check{grid = 2.0, block = 32.0} takes integral floats", function() cases.eq(k:check{grid = 2.0, block = 32.0}, true) end},
}

-- Every value as each argument of the kernel's calls: an error sentence or a result.
local sweep = {}
for i = 1, cases.nvalues do
  local v = cases.values[i]
  for _, f in ipairs{"occupancy", "check", "launch", "bench", "clusters"} do
    sweep[#sweep + 1] = {"k:" .. f .. "(values[" .. i .. "])", function() return k[f](k, v) end}
    sweep[#sweep + 1] = {"k:" .. f .. "{block = values[" .. i .. "]}", function() return k[f](k, {grid = 1, block = v, shared = v}) end}
  end
  sweep[#sweep + 1] = {"k{grid = values[" .. i .. "]}", function() return k{grid = v, block = 1, args = {v, v}} end}
  sweep[#sweep + 1] = {"m:kernel(values[" .. i .. "])", function() return m:kernel(v) end}
  sweep[#sweep + 1] = {"m:kernel('c', values[" .. i .. "])", function() return m:kernel("c", v) end}
  sweep[#sweep + 1] = {"k[values[" .. i .. "]]", function() return k[v] end}
end
cases.survives(sweep)
cases.run()
