// litmus.cu: litmus tests of the PTX memory model between threads in different blocks, or
// different warps of one block, run by the million with the threads' places shuffled.
// Shows:    each iteration every testing thread plays one role of one instance of the test:
//           MP (message passing), SB (store buffering), LB (load buffering), IRIW (four
//           threads), CoRR (coherence of one location) and TICKET (the last-block pattern:
//           data, then an atomicAdd ticket). Which thread plays which role, and where each
//           instance's two locations lie, change every iteration (a rotation of the blocks,
//           XOR masks on warps and lanes, an affine shuffle of the slots). Between grid.sync()s
//           the instances run at once, then the role-0 thread of each counts the outcome of
//           its registers and clears its locations. With stress the other half of each block
//           hammers a small scratch buffer meanwhile, and the testers first touch it a random
//           number of times (the literature's memory stress and pre-stress).
// Versions: one kernel, litmus; variant: 0 relaxed (cuda::atomic_ref, device scope), 1
//           __threadfence_block() between each thread's two accesses, 2 __threadfence(), 3
//           release stores / acquire loads at block scope, 4 the same at device scope, 5
//           seq_cst at device scope, 6 __threadfence() on the writer's side only.
// Launch:   cooperative; blockDim = 2 * testers (testers a power of two, >= 32 * roles); gridDim
//           a multiple of the roles for placement 0 (blocks), any for 1 (warps). loc: slots * 2
//           * stride u32 zeroed (slots a power of two >= the instances); res: 4 u32 per instance;
//           scratch: scratch_words u32; hist: 16 u64 zeroed, by outcome (register i = bit i).
// Expect:   outcomes the PTX model forbids for the variant and placement never appear
//           (docs/experiments-async.md has the table); allowed weak ones may, rarely.
// Used by:  examples/sync/litmus.lua
#include <cooperative_groups.h>
#include <cuda/atomic>

namespace cg = cooperative_groups;
enum Test { MP, SB, LB, IRIW, CORR, TICKET };
enum Variant { RELAXED, FENCE_CTA, FENCE_GPU, RA_CTA, RA_GPU, SC_GPU, FENCE_WRITER };

__device__ __forceinline__ unsigned scatter(unsigned h) {  // MurmurHash3's finalizer
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}
// The same for every thread of an iteration: its j-th random number.
__device__ __forceinline__ unsigned rnd(unsigned seed, unsigned it, unsigned j) {
  return scatter(seed ^ scatter(it * 0x9e3779b9u + j));
}

// One variant's accesses: the stores, the loads and the fence between a thread's two.
template <int V>
struct Ops {
  static constexpr cuda::thread_scope scope = V == RA_CTA ? cuda::thread_scope_block : cuda::thread_scope_device;
  static constexpr cuda::memory_order st_order = V == SC_GPU ? cuda::memory_order_seq_cst
                                                 : V == RA_CTA || V == RA_GPU ? cuda::memory_order_release
                                                                              : cuda::memory_order_relaxed;
  static constexpr cuda::memory_order ld_order = V == SC_GPU ? cuda::memory_order_seq_cst
                                                 : V == RA_CTA || V == RA_GPU ? cuda::memory_order_acquire
                                                                              : cuda::memory_order_relaxed;
  static __device__ void st(unsigned* p) { cuda::atomic_ref<unsigned, scope>(*p).store(1, st_order); }
  static __device__ unsigned ld(unsigned* p) { return cuda::atomic_ref<unsigned, scope>(*p).load(ld_order); }
  static __device__ void fence(bool writer) {
    if (V == FENCE_CTA) __threadfence_block();
    if (V == FENCE_GPU || (V == FENCE_WRITER && writer)) __threadfence();
  }
};

// One role of one instance: x and y its locations, r its registers.
template <int V>
__device__ void play(int test, unsigned role, unsigned* x, unsigned* y, unsigned* r) {
  using O = Ops<V>;
  switch (test) {
    case MP:
      if (role == 0) { O::st(x); O::fence(true); O::st(y); }
      else { r[0] = O::ld(y); O::fence(false); r[1] = O::ld(x); }
      break;
    case SB:
      if (role == 0) { O::st(x); O::fence(true); r[0] = O::ld(y); }
      else { O::st(y); O::fence(true); r[1] = O::ld(x); }
      break;
    case LB:
      if (role == 0) { r[0] = O::ld(x); O::fence(true); O::st(y); }
      else { r[1] = O::ld(y); O::fence(true); O::st(x); }
      break;
    case IRIW:
      if (role == 0) O::st(x);
      else if (role == 1) O::st(y);
      else if (role == 2) { r[0] = O::ld(x); O::fence(false); r[1] = O::ld(y); }
      else { r[2] = O::ld(y); O::fence(false); r[3] = O::ld(x); }
      break;
    case CORR:
      if (role == 0) O::st(x);
      else { r[0] = O::ld(x); O::fence(false); r[1] = O::ld(x); }
      break;
    case TICKET:  // the text's last block: write, fence, take a ticket; the ticket's reader reads
      if (role == 0) { O::st(x); O::fence(true); atomicAdd(y, 1u); }
      else { r[0] = atomicAdd(y, 1u); O::fence(false); r[1] = O::ld(x); }
      break;
  }
}

// This thread's role and instance in iteration `it`, or false when it sits this one out.
__device__ bool place(int placement, unsigned roles, unsigned testers, unsigned seed, unsigned it, unsigned& role,
                      unsigned& k) {
  const unsigned t = threadIdx.x;
  if (t >= testers) return false;
  if (placement == 0) {  // roles in different blocks: the blocks rotated, then split in `roles` groups
    const unsigned group = gridDim.x / roles;
    const unsigned b = (blockIdx.x + rnd(seed, it, 0)) % gridDim.x;
    if (b >= group * roles) return false;
    role = b / group;
    const unsigned off = role ? rnd(seed, it, role) % group : 0, lanes = role ? rnd(seed, it, 8 + role) % testers : 0;
    k = ((b % group + group - off) % group) * testers + (t ^ lanes);
  } else {  // roles in different warps of one block: warp w ^ mask plays role (w ^ mask) % roles
    const unsigned w = (t / 32) ^ (rnd(seed, it, 0) % (testers / 32));
    role = w % roles;
    const unsigned lanes = role ? rnd(seed, it, 8 + role) % 32 : 0;
    k = blockIdx.x * (testers / roles) + (w / roles) * 32 + ((t % 32) ^ lanes);
  }
  return true;
}

// `n` accesses to the scratch buffer at places that depend on the thread and the iteration.
__device__ __forceinline__ void hammer(volatile unsigned* s, unsigned words, unsigned h, unsigned n) {
  for (unsigned j = 0; j < n; ++j) {
    const unsigned a = (h + 97 * j) % words;
    s[a] = s[(a + 31) % words] + 1;
  }
}

template <int V>
__device__ void iterations(int test, int placement, unsigned stress, unsigned iters, unsigned seed, unsigned* loc,
                           unsigned slots, unsigned stride, unsigned* res, unsigned* scratch, unsigned words,
                           unsigned* counts) {
  cg::grid_group grid = cg::this_grid();
  const unsigned roles = test == IRIW ? 4 : 2, regs = test == IRIW ? 4 : 2, testers = blockDim.x / 2;
  const unsigned me = scatter(seed + blockIdx.x * blockDim.x + threadIdx.x);
  for (unsigned it = 0; it < iters; ++it) {
    unsigned role = 0, k = 0;
    const bool on = place(placement, roles, testers, seed, it, role, k);
    const unsigned slot = (k * (rnd(seed, it, 16) | 1) + rnd(seed, it, 17)) & (slots - 1);
    unsigned* x = loc + 2ull * stride * slot;
    unsigned* y = x + stride;
    if (stress && threadIdx.x >= testers) hammer(scratch, words, me ^ it, stress);
    if (on) {
      if (stress) hammer(scratch, words, me + it, rnd(seed ^ me, it, 18) % 4);  // pre-stress: a jitter
      play<V>(test, role, x, y, res + 4ull * k);
    }
    grid.sync();  // every instance has run
    if (on && role == 0) {
      unsigned outcome = 0;
      for (unsigned i = 0; i < regs; ++i) outcome |= (res[4ull * k + i] & 1u) << i;
      atomicAdd(counts + outcome, 1u);
      *x = 0;
      *y = 0;
    }
    grid.sync();  // every location is clear again
  }
}

__global__ void litmus(int test, int variant, int placement, unsigned stress, unsigned iters, unsigned seed,
                       unsigned* loc, unsigned slots, unsigned stride, unsigned* res, unsigned* scratch,
                       unsigned words, unsigned long long* hist) {
  __shared__ unsigned counts[16];
  if (threadIdx.x < 16) counts[threadIdx.x] = 0;
  __syncthreads();
  switch (variant) {
#define WARPLAB_VARIANT(v) \
  case v: iterations<v>(test, placement, stress, iters, seed, loc, slots, stride, res, scratch, words, counts); break;
    WARPLAB_VARIANT(0) WARPLAB_VARIANT(1) WARPLAB_VARIANT(2) WARPLAB_VARIANT(3)
    WARPLAB_VARIANT(4) WARPLAB_VARIANT(5) WARPLAB_VARIANT(6)
#undef WARPLAB_VARIANT
  }
  __syncthreads();
  if (threadIdx.x < 16 && counts[threadIdx.x]) atomicAdd(hist + threadIdx.x, static_cast<unsigned long long>(counts[threadIdx.x]));
}
