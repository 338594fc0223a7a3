-- conflict_lines.lua: a kernel whose store and load go to one shared-memory bank from 32
-- lanes (line 3: a shared store; line 5: a shared load and a global store), compiled and
-- not launched: `run --lines` lists its line map offline. Read by the page's tests.
local m = assert(cuda.compile{name = "conflict.cu", source = [[
__global__ void conflict(float* y) {
  __shared__ float s[32 * 32];
  s[threadIdx.x * 32] = threadIdx.x;
  __syncthreads();
  y[threadIdx.x] = s[threadIdx.x * 32];
}
]]})
print("compiled")
