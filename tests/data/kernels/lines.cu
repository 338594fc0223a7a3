// lines.cu: fixture for the per-line map (compile --lines, cuda.lines(m), the unit tests).
// Expect: line 7 stores to shared, line 8 is the barrier, line 11 the strided shared load,
// line 12 the global store; scaled<4>'s global load is line 4 of lines_helper.cuh.
#include "lines_helper.cuh"
extern "C" __global__ void banks(float* out, int stride, int reps) {
  __shared__ float s[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = (float)i;
  __syncthreads();
  float acc = 0.f;
  for (int r = 0; r < reps; ++r)
    acc += s[(threadIdx.x * stride + r) & (32 * 32 - 1)];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
template <int N>
__global__ void scaled(const float* x, float* out) {
  out[threadIdx.x] = twice(x, threadIdx.x * N);
}
template __global__ void scaled<4>(const float*, float*);
