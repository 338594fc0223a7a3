// stale_probe.cu: why the last-block pattern needs __threadfence() on both sides, shown
// through the L1 cache, which is not coherent between SMs.
// Shows:    every block first pulls all slots into its SM's L1 with ld.global.ca
//           (__ldca, the default caching of global loads), waits, then thread 0 stores its
//           slot tagged with the launch number and draws a ticket; the block drawing the
//           last one reads every slot again with __ldca and counts those still holding an
//           older tag. stale_probe_none uses no fence, stale_probe_release only the
//           writer's (before the ticket), stale_probe_fenced the writer's and the reader's
//           (after drawing the last ticket, before reading).
// Launch:   1-D, one slot per block: rec holds gridDim u64 (zeroed once), *ticket 0 (each
//           launch leaves it 0), stale one u32 per launch number; delay_ns: how long each
//           block waits between its pre-read and its store (so all blocks pre-read first).
// Expect:   stale_probe_fenced never reads a stale slot. Without the reader's fence, the
//           last block's loads may hit lines its L1 kept from the pre-read and return
//           other SMs' old slots: stale_probe_none and stale_probe_release can read stale.
// Used by:  examples/reductions/single_pass.lua
template <bool kRelease, bool kAcquire>
__device__ __forceinline__ void stale_probe(unsigned long long* rec, unsigned* ticket,
                                            unsigned* stale, unsigned launch,
                                            unsigned delay_ns) {
  __shared__ unsigned counts[32];
  __shared__ bool last;
  unsigned long long sink = 0;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) sink += __ldca(rec + i);
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < delay_ns);
  __syncthreads();
  if (threadIdx.x == 0) {
    rec[blockIdx.x] = (static_cast<unsigned long long>(launch) << 32) | (blockIdx.x + 1u);
    if (kRelease) __threadfence();
    const bool mine = atomicAdd(ticket, 1u) == gridDim.x - 1;
    if (kAcquire && mine) __threadfence();
    last = mine;
  }
  __syncthreads();
  if (!last) return;
  unsigned old = 0;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x)
    old += static_cast<unsigned>(__ldca(rec + i) >> 32) != launch;
  // Warp then block sum of the stale count; the pre-read's sum keeps its loads alive.
  for (int o = 16; o > 0; o >>= 1) old += __shfl_down_sync(0xffffffffu, old, o);
  if ((threadIdx.x & 31) == 0) counts[threadIdx.x >> 5] = old + (sink == 1u ? 1u : 0u);
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned s = 0;
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) s += counts[w];
    stale[launch] = s;
    *ticket = 0;
  }
}

__global__ void stale_probe_none(unsigned long long* rec, unsigned* ticket, unsigned* stale,
                                 unsigned launch, unsigned delay_ns) {
  stale_probe<false, false>(rec, ticket, stale, launch, delay_ns);
}

__global__ void stale_probe_release(unsigned long long* rec, unsigned* ticket, unsigned* stale,
                                    unsigned launch, unsigned delay_ns) {
  stale_probe<true, false>(rec, ticket, stale, launch, delay_ns);
}

__global__ void stale_probe_fenced(unsigned long long* rec, unsigned* ticket, unsigned* stale,
                                   unsigned launch, unsigned delay_ns) {
  stale_probe<true, true>(rec, ticket, stale, launch, delay_ns);
}
