// reference.cu: the sums the reduction experiments are checked against, and a streaming
// read to measure the bandwidth they are compared with.
// Shows:    nothing by itself: simple kernels whose correctness is easy to see (and
//           cross-checked against a sum in Lua on the host for the smaller sizes).
// Versions: sum_f64 (per block: the double sum of its floats and of their absolute
//           values, a sequential grid-stride sum per thread and a tree), sum_u64 (the
//           exact 64-bit sum of u32 data, atomics per warp), stream_read (reads every
//           float4 with the load of WL_LOAD, four in flight per thread; it writes only when
//           the XOR of all it read hits one value, so the loads cannot be dropped).
// Launch:   sum_f64: 1-D, blockDim 256, part and part_abs hold gridDim doubles.
//           sum_u64: blockDim a multiple of 32, *total zeroed first. stream_read: any
//           grid; n4 float4s from a 16-byte-aligned x.
// Expect:   sum_f64 within (n + blocks) * 2^-53 * sum|x| of the Lua double sum;
//           sum_u64 equal to it exactly.
// Used by:  lua/warplab/reduce.lua, lua/warplab/bandwidth.lua
#include <warplab/reduce.cuh>

__global__ void sum_f64(const float* x, size_t n, double* part, double* part_abs) {
  __shared__ double s[256], a[256];
  double v = 0.0, w = 0.0;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    v += x[i];
    w += fabs(static_cast<double>(x[i]));
  }
  s[threadIdx.x] = v;
  a[threadIdx.x] = w;
  __syncthreads();
  for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
    if (threadIdx.x < d) {
      s[threadIdx.x] += s[threadIdx.x + d];
      a[threadIdx.x] += a[threadIdx.x + d];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    part[blockIdx.x] = s[0];
    part_abs[blockIdx.x] = a[0];
  }
}

__global__ void sum_u64(const unsigned* x, size_t n, unsigned long long* total) {
  unsigned long long v = 0;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    v += x[i];
  v = warplab::warp_sum(v);
  if ((threadIdx.x & 31u) == 0) atomicAdd(total, v);
}

// Four float4 loads in flight per thread per iteration, XORed so none is dead code.
__device__ __forceinline__ unsigned bits4(float4 v) {
  return __float_as_uint(v.x) ^ __float_as_uint(v.y) ^ __float_as_uint(v.z) ^ __float_as_uint(v.w);
}

// The same tiles as the reductions' default layout (reduce.cuh, WL_LAYOUT 1): a block
// reads 4 x blockDim consecutive float4s per step, the blocks taking tiles in turn, so the
// reference read is as fast as the sums it is compared with.
__global__ void stream_read(const float* x, size_t n4, unsigned* sink) {
  const float4* x4 = reinterpret_cast<const float4*>(x);
  const size_t b = blockDim.x, tile = 4 * b, step = tile * gridDim.x;
  size_t base = static_cast<size_t>(blockIdx.x) * tile;
  unsigned bits = 0;
  for (; base + tile <= n4; base += step) {
    const float4* p = x4 + base + threadIdx.x;
    const float4 a = warplab::load4(p), c = warplab::load4(p + b);
    const float4 d = warplab::load4(p + 2 * b), e = warplab::load4(p + 3 * b);
    bits ^= bits4(a) ^ bits4(c) ^ bits4(d) ^ bits4(e);
  }
  for (size_t i = base + threadIdx.x; i < n4; i += b) bits ^= bits4(warplab::load4(x4 + i));
  if (bits == 0x7fc00001u) *sink = bits;  // one value in 2^32: a harmless write if ever
}
