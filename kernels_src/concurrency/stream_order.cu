// stream_order.cu: a producer and a consumer kernel for two streams.
// Shows:    work on two streams has no order unless one waits for an event of the other:
//           produce spins for `spin_ns` before it writes, so a consume launched on another
//           stream without a wait reads what was there before.
// Versions: produce (spin, then data[i] = value), consume (out[i] = data[i]).
// Launch:   1-D, one block of n <= 1024 threads each; data, out: n ints.
// Expect:   with s:wait(e) between them out[i] = value every time; without it out holds the
//           previous value in most runs (the two kernels run side by side).
// Used by:  examples/concurrency/stream_order.lua
#include <warplab/ids.cuh>

__global__ void produce(int* data, int n, int value, unsigned long long spin_ns) {
  const unsigned long long t0 = warplab::global_timer();
  while (warplab::global_timer() - t0 < spin_ns) {
  }
  if (threadIdx.x < n) data[threadIdx.x] = value;
}

__global__ void consume(const int* data, int* out, int n) {
  if (threadIdx.x < n) out[threadIdx.x] = data[threadIdx.x];
}
