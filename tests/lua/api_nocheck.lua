-- api_nocheck.lua: `warplab run FILE --no-check` skips launch validation and argument
-- range checks (for latency work); argument types are still checked, and k:check still
-- answers. the offline CTest run passes the run-with line below; gpu-check runs the file without
-- it, and then the checks must be on.
-- run-with: --no-check nocheck
local t = require "warplab.test"

local nocheck = arg[1] == "nocheck"
local live = cuda.device().live
local m = assert(cuda.compile{source = "__global__ void k(float* a, int n) { if (a) a[n] = 0; }"})
local k = m.k

t.case("k:check answers the same either way", function()
  t.eq({k:check{grid = {1, 65536}, block = 32}}, {false, "grid dimension y = 65536 exceeds max_grid_dim_y = 65535"})
end)

t.case("a launch over a limit", function()
  if not nocheck then
    t.checkerror("k: grid dimension y = 65536 exceeds max_grid_dim_y = 65535", k.launch, k, {1, 65536}, 32, nil, 0)
  elseif not live then
    t.checkerror("no CUDA device: a kernel launch needs a GPU", k.launch, k, {1, 65536}, 32, nil, 0)
  end
end)

t.case("argument ranges are skipped, types are not", function()
  t.checkerror("argument 2 (int) of k: expected an integer, got 2.5", k.launch, k, 1, 32, nil, 2.5)
  t.checkerror("argument 1 (float*) of k: expected a cuda.array (or nil for a null pointer), got number",
               k.launch, k, 1, 32, 7, 0)
  if not nocheck then
    t.checkerror("argument 2 (int) of k: 4294967296 is out of range", k.launch, k, 1, 32, nil, 1 << 32)
  elseif not live then
    t.checkerror("no CUDA device", k.launch, k, 1, 32, nil, 1 << 32)
  end
end)

t.run{exit = true}
