-- graphs_prelude.lua: what the cases of tests/bad_inputs/graphs.cases start with (each
-- case appends its own lines): a module with two kernels of one signature and an array.
local m = assert(cuda.compile{source = [[
__global__ void fine(int* x) { x[threadIdx.x] = 1; }
__global__ void other(int* x) { x[threadIdx.x] = 2; }
]]})
local a = cuda.array("i32", 32):zero()
