// access.cu: global-memory reads in three patterns, to see what coalescing buys.
// Shows:    a warp's 32 loads are served in 32-byte sectors. Consecutive floats
//           (stride 1) fill every sector they touch; a stride of s floats uses 4 of each
//           32 bytes fetched once s >= 8; random indices likewise fetch a whole sector
//           for one float, with no locality between neighbours at all.
// Versions: read_strided (thread i reads x[i * stride], four loads in flight),
//           read_random (thread i reads x[hash(i ^ seed) & mask], four in flight).
// Launch:   1-D, any grid and block; `reads` floats are read in all. read_strided needs
//           (reads - 1) * stride + 1 floats in x; read_random needs mask + 1 (a power
//           of two, at most 2^32). sink: one u32 (written only in a one-in-2^32 case).
// Expect:   GB/s of floats asked for: stride 1 near a streaming read's; stride 2 about
//           half, 4 a quarter, 8..32 and random about an eighth or less (the 32-byte
//           sector rule; docs/experiments-memory.md).
// Used by:  examples/memory/coalescing.lua

// MurmurHash3's 32-bit finalizer: a bijection that scatters neighbouring i.
__device__ __forceinline__ unsigned scatter(unsigned h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

// XOR of the bits of four floats: every load feeds it, so none is dead code.
__device__ __forceinline__ unsigned bits4(float a, float b, float c, float d) {
  return __float_as_uint(a) ^ __float_as_uint(b) ^ __float_as_uint(c) ^ __float_as_uint(d);
}

// Grid-stride over read indices i (four per iteration, nt apart, so a warp's four loads
// are independent and in flight together); thread i reads x[i * stride].
__global__ void read_strided(const float* __restrict__ x, size_t reads, unsigned stride, unsigned* sink) {
  const size_t nt = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned bits = 0;
  for (; i + 3 * nt < reads; i += 4 * nt)
    bits ^= bits4(x[i * stride], x[(i + nt) * stride], x[(i + 2 * nt) * stride], x[(i + 3 * nt) * stride]);
  for (; i < reads; i += nt) bits ^= __float_as_uint(x[i * stride]);
  if (bits == 0x7fc00001u) *sink = bits;  // one value in 2^32: a harmless write if ever
}

// The same loop; read i goes to a pseudo-random float of x[0..mask].
__global__ void read_random(const float* __restrict__ x, size_t reads, unsigned mask, unsigned seed,
                            unsigned* sink) {
  const size_t nt = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned bits = 0;
  auto at = [&](size_t j) { return x[scatter(static_cast<unsigned>(j) ^ seed) & mask]; };
  for (; i + 3 * nt < reads; i += 4 * nt) bits ^= bits4(at(i), at(i + nt), at(i + 2 * nt), at(i + 3 * nt));
  for (; i < reads; i += nt) bits ^= __float_as_uint(at(i));
  if (bits == 0x7fc00001u) *sink = bits;
}
