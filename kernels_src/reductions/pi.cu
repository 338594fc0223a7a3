// pi.cu: the CUDA introduction's pi by integration: the midpoint rule for the integral
// of 4 / (1 + x^2) over [0, 1], summed by two kernels with dynamic shared memory.
// Shows:    a reduction that cannot finish in one block is split at the kernel boundary:
//           the first kernel leaves one partial per block in global memory, the second
//           (one block) sums them; the launch in between is the grid-wide barrier.
// Versions: reduce_pi1 (each thread sums f((i + 0.5) / num) over a grid stride, then a
//           shared-memory tree per block), reduce_pi2 (one block sums the partials and
//           divides by num).
// Launch:   reduce_pi1: 1-D, gridDim and blockDim powers of two, shared = blockDim * 4
//           bytes; d_sum holds gridDim floats. reduce_pi2: 1 block of the first launch's
//           gridDim threads, shared = that * 4 bytes. num < 2^23 keeps (i + 0.5) exact.
// Expect:   pi within the rounding bound (midpoint error num^-2 / 12, plus float rounding).
// Used by:  examples/reductions/pi.lua
//
// The text's reducePI1 accumulates into s_pi[threadIdx.x] and starts the tree with no
// __syncthreads() in between, so a thread may read a partner's slot before the partner
// wrote its last term. Here the sum stays in a register and one barrier follows the store.

__global__ void reduce_pi1(float* d_sum, int num) {
  extern __shared__ float s_pi[];  // blockDim floats, sized at launch
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < num; i += blockDim.x * gridDim.x) {
    const float x = (i + 0.5f) / num;
    sum += 4.0f / (1.0f + x * x);
  }
  s_pi[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned d = blockDim.x >> 1; d > 0; d >>= 1) {
    if (threadIdx.x < d) s_pi[threadIdx.x] += s_pi[threadIdx.x + d];
    __syncthreads();
  }
  if (threadIdx.x == 0) d_sum[blockIdx.x] = s_pi[0];
}

__global__ void reduce_pi2(const float* d_sum, int num, float* d_pi) {
  extern __shared__ float s_sum[];  // blockDim floats
  const unsigned id = threadIdx.x;
  s_sum[id] = d_sum[id];
  __syncthreads();
  for (unsigned d = blockDim.x >> 1; d > 0; d >>= 1) {
    if (id < d) s_sum[id] += s_sum[id + d];
    __syncthreads();
  }
  if (id == 0) *d_pi = s_sum[0] / num;
}
