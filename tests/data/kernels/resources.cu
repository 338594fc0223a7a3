// resources.cu: test kernels whose resources the ELF reader must get right: a kernel that
// spills under a register cap, __launch_bounds__ with __constant__ data, static shared
// memory with named barriers (bar.sync 3: four barriers), dynamic shared memory only, and
// a non-inlined call with a local array (stack). Used by tests/unit/rtc_elf_test.cpp and
// tests/gpu/resources_gpu_test.cpp; expect the CUBIN, ptxas and the driver to agree.
__constant__ float table[64];
__global__ void pressure(const float* in, float* out) {
  float v[48];
#pragma unroll
  for (int i = 0; i < 48; ++i) v[i] = in[threadIdx.x + i * 256];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 48; ++i) s += v[i] * v[47 - i] + v[(i + 5) % 48];
  out[threadIdx.x] = s;
}
__global__ void __launch_bounds__(256, 2) bounded(float* x) { x[threadIdx.x] *= table[threadIdx.x & 63]; }
__global__ void named(float* x) {
  __shared__ float s[64];
  __shared__ double d[10];
  s[threadIdx.x & 63] = x[threadIdx.x];
  d[threadIdx.x % 10] = 1.0;
  asm volatile("bar.sync 3, 64;");
  __syncthreads();
  x[threadIdx.x] = s[(threadIdx.x + 1) & 63] + d[3];
}
__global__ void dynamic(float* x) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}
__device__ __noinline__ float deep(const float* p, int n) {
  float a[32];
  for (int i = 0; i < 32; ++i) a[i] = p[i * n];
  float s = 0;
  for (int i = 0; i < n; ++i) s += a[(i * 7) & 31];
  return s;
}
extern "C" __global__ void calls(float* x, int n) { x[0] = deep(x, n); }
