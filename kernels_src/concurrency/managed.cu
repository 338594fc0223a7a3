// managed.cu: one pass over a managed array, to see where its pages live.
// Shows:    touch reads and writes every element once (grid-stride, 4-byte accesses), so
//           its time is that of moving the array's pages: page faults and migration on a
//           first touch, HBM bandwidth once the pages are on the device, the host link when
//           they stay on the host (preferred_location = host, accessed_by = the device).
// Versions: touch (x[i] += 1).
// Launch:   1-D, any grid and block; x: n floats.
// Expect:   x[i] grows by 1 per touch; a first touch of host-resident pages is several
//           times slower than the same pass after a:prefetch to the device.
// Used by:  examples/concurrency/managed.lua
__global__ void touch(float* x, unsigned long long n) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    x[i] += 1.0f;
}
