// launch_kernels.cu: the kernels every peer in scripts/bench launches and compiles: the
// same file for raw C++, warplab, CuPy and cuda.core, so launch and compile costs compare.
// Shows:    the host-side cost of a launch with 0, 2 and 4 arguments (empty kernels), and
//           what a compile costs (the two small real kernels give NVRTC some work).
// Versions: empty0(), empty2(int*, int), empty4(float*, int, float, int); saxpy; block_sum.
// Launch:   the empty kernels with any shape (bench: 1 block of 32); the others unused.
// Expect:   a launch of an empty kernel is bound by the driver's launch cost, not the GPU.
// Used by:  bench/launch_raw.cpp, bench/launch.lua, bench/compile.lua, bench/peers.py
extern "C" __global__ void empty0() {}
extern "C" __global__ void empty2(int* p, int n) {}
extern "C" __global__ void empty4(float* p, int n, float a, int b) {}

extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

// One partial sum per block: a grid-stride loop, warp shuffles, one atomicAdd per warp.
extern "C" __global__ void block_sum(const float* x, float* out, int n) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i];
  for (int d = warpSize / 2; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d);
  if (threadIdx.x % warpSize == 0) atomicAdd(out, s);
}
