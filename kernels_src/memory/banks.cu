// banks.cu: shared-memory bank conflicts, in clock cycles per warp-wide access.
// Shows:    shared memory is 32 banks of 4-byte words, one word per bank per cycle. A
//           warp whose 32 lanes read words `stride` apart hits gcd(stride, 32) words in
//           one bank, and the hardware serves them one after another; lanes reading the
//           same word get it broadcast in one pass.
// Versions: bank_cycles: lane l chases a pointer from word l * stride + k (k < WL_CHAINS
//           independent chains per thread, so many accesses are in flight and the
//           shared-memory pipe, not latency, sets the pace); stride 0 = every lane reads
//           word k (broadcast). Each word holds its own byte offset XOR `key` (0), so
//           every load's address is the previous load's value: a dependent chain the
//           compiler can neither drop nor merge.
// Launch:   one block of any multiple of 32 threads; stride * 31 + WL_CHAINS <= 2048
//           words; cycles holds 2 u64 per warp (clock64 before and after), sink one u32.
// Expect:   cycles per warp access ~ gcd(stride, 32) x the stride-1 cost (~1 cycle: 128
//           bytes per cycle per SM); broadcast and odd strides (33) like stride 1.
// Used by:  examples/memory/banks.lua
#ifndef WL_CHAINS
#define WL_CHAINS 4
#endif
#ifndef WL_UNROLL
#define WL_UNROLL 8
#endif
#define BANK_WORDS 2048

__global__ void bank_cycles(unsigned stride, unsigned iters, unsigned key, unsigned long long* cycles,
                            unsigned* sink) {
  __shared__ unsigned s[BANK_WORDS];
  for (unsigned w = threadIdx.x; w < BANK_WORDS; w += blockDim.x) s[w] = (4u * w) ^ key;
  const unsigned lane = threadIdx.x & 31u;
  unsigned off[WL_CHAINS];  // byte offsets: one chain each, all in registers
#pragma unroll
  for (int k = 0; k < WL_CHAINS; ++k) off[k] = 4u * (lane * stride + k);
  const char* base = reinterpret_cast<const char*>(s);
  __syncthreads();
  const long long t0 = clock64();
  for (unsigned it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < WL_UNROLL; ++u) {
#pragma unroll
      for (int k = 0; k < WL_CHAINS; ++k) off[k] = *reinterpret_cast<const unsigned*>(base + off[k]) ^ key;
    }
  }
  const long long t1 = clock64();
  if (lane == 0) {
    cycles[2 * (threadIdx.x / 32)] = static_cast<unsigned long long>(t0);
    cycles[2 * (threadIdx.x / 32) + 1] = static_cast<unsigned long long>(t1);
  }
  unsigned all = 0;
#pragma unroll
  for (int k = 0; k < WL_CHAINS; ++k) all ^= off[k];
  if (all == 0xffffffffu) *sink = all;  // never: the offsets are small; keeps the chains live
}
