// atomics.cu: one global counter hammered by every thread, with and without warp
// aggregation; a histogram built with global atomics against one privatized in shared memory.
// Shows:    count_naive: each thread adds its own value (1 + lane % 2, so no two lanes add
//           the same amount) `iters` times, one atomicAdd each. count_match: the lanes that
//           target the same counter find each other (__match_any_sync), sum their values
//           (__reduce_add_sync) and the lowest of them adds the sum: one atomic per warp
//           instead of 32. count_ballot: the same with __ballot_sync and a shuffle tree, the
//           pre-sm_80 way. hist_global: every value an atomicAdd on its global bin;
//           hist_shared: the block's own bins in shared memory, merged once at the end.
// Versions: count_naive, count_match, count_ballot (sm_80+ for __reduce_add_sync: below,
//           count_match records nothing); hist_global, hist_shared.
// Launch:   1-D, any grid, block a multiple of 32. counter: 1 u64 zeroed; values: n u32
//           (hist_*: bins = values % kBins); hist: kBins u32 zeroed; hist_shared: shared =
//           kBins * 4.
// Expect:   counter = threads * iters * 1.5 in every count_* version; both histograms equal
//           the count of each value % kBins; the aggregated versions up to 32x fewer global
//           atomic operations, and faster in proportion when one counter is the bottleneck.
// Used by:  examples/sync/atomics.lua

constexpr unsigned kBins = 256;

__device__ __forceinline__ unsigned long long lane_value() { return 1 + threadIdx.x % 2; }

__global__ void count_naive(unsigned iters, unsigned long long* counter) {
  const unsigned long long v = lane_value();
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) atomicAdd(counter, v);
}

__global__ void count_match(unsigned iters, unsigned long long* counter) {
#if __CUDA_ARCH__ >= 800
  const unsigned v = static_cast<unsigned>(lane_value()), lane = threadIdx.x % 32;
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
    // Lanes that would hit the same address: here all of them (one counter), in general
    // any group; each group's lowest lane adds for the group.
    const unsigned group = __match_any_sync(__activemask(), reinterpret_cast<unsigned long long>(counter));
    const unsigned sum = __reduce_add_sync(group, v);
    if (lane == __ffs(group) - 1) atomicAdd(counter, static_cast<unsigned long long>(sum));
  }
#endif
}

__global__ void count_ballot(unsigned iters, unsigned long long* counter) {
  const unsigned long long v = lane_value();
  const unsigned lane = threadIdx.x % 32;
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
    const unsigned active = __ballot_sync(0xffffffffu, 1);
    unsigned long long sum = v;
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (lane == __ffs(active) - 1) atomicAdd(counter, sum);  // the leader: the lowest active lane
  }
}

__global__ void hist_global(const unsigned* values, unsigned n, unsigned* hist) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(hist + values[i] % kBins, 1u);
}

__global__ void hist_shared(const unsigned* values, unsigned n, unsigned* hist) {
  extern __shared__ unsigned bins[];
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(bins + values[i] % kBins, 1u);
  __syncthreads();  // the block's bins are complete
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x)
    if (bins[b]) atomicAdd(hist + b, bins[b]);
}
