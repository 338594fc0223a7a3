// planted.cu: four bugs that run without a sound, each next to its twin without the bug.
// Shows:    what `warplab run --sanitize TOOL` finds, and where: every line a tool should
//           name carries a "sanitize:" comment (tests/cli/sanitize_gpu.sh reads them).
// Versions: planted_race (racecheck): a shared-memory slot read across warps, no barrier;
//           planted_barrier (synccheck): each side of a branch that splits every warp has
//           its own __syncthreads();
//           planted_oob (memcheck): x[i + 1] reads x[n], one past an allocation of n floats;
//           planted_uninit (initcheck): reads scratch slots that nothing wrote.
//           clean_race, clean_barrier, clean_oob, clean_uninit: the same, bug fixed.
// Launch:   race, barrier: blockDim = WL_BLOCK (256), arrays of gridDim * 256 floats.
//           oob, uninit: 1-D, any block, y and tmp hold n floats, x exactly n floats.
// Expect:   a plain run finishes: the planted kernels compute wrong or undefined values
//           but never fault (x[n] lies in the padding of x's allocation; since Volta a
//           barrier counts threads, whichever __syncthreads() they call). Under the
//           matching tool each planted kernel is reported at a "sanitize:" line; the
//           twins are clean under every tool.
// Used by:  examples/sanitize/planted.lua, tests/cli/sanitize_gpu.sh

#define WL_BLOCK 256

// Each thread stores its element, then reads the slot of the thread one warp ahead.
__global__ void planted_race(const float* x, float* y) {
  __shared__ float s[WL_BLOCK];
  const unsigned t = threadIdx.x, i = blockIdx.x * WL_BLOCK + t;
  s[t] = x[i];                      // sanitize: race (the write)
  // The bug: no __syncthreads() here, so the next warp may not have stored its slot yet.
  y[i] = s[(t + 32) % WL_BLOCK];    // sanitize: race (the read)
}

__global__ void clean_race(const float* x, float* y) {
  __shared__ float s[WL_BLOCK];
  const unsigned t = threadIdx.x, i = blockIdx.x * WL_BLOCK + t;
  s[t] = x[i];
  __syncthreads();
  y[i] = s[(t + 32) % WL_BLOCK];
}

// Lanes 0..15 and 16..31 of every warp take different sides of a branch, and each side has
// its own __syncthreads(). The barrier counts arriving threads (sm_70+), so all 256 arrive
// and nothing hangs here; CUDA still requires every thread to reach the same
// __syncthreads(), and before Volta this deadlocks or corrupts.
__global__ void planted_barrier(const float* x, float* y) {
  __shared__ float s[WL_BLOCK];
  const unsigned t = threadIdx.x, i = blockIdx.x * WL_BLOCK + t;
  const float v = x[i];
  if ((t & 31) < 16) {
    s[t] = 2.0f * v;
    __syncthreads();                // sanitize: barrier (half of the warp, in a branch)
  } else {
    s[t] = v + 1.0f;
    __syncthreads();                // sanitize: barrier (the other half, another barrier)
  }
  y[i] = s[t ^ 1];
}

__global__ void clean_barrier(const float* x, float* y) {
  __shared__ float s[WL_BLOCK];
  const unsigned t = threadIdx.x, i = blockIdx.x * WL_BLOCK + t;
  const float v = x[i];
  s[t] = (t & 31) < 16 ? 2.0f * v : v + 1.0f;
  __syncthreads();                  // one barrier, every thread of the block
  y[i] = s[t ^ 1];
}

// y[i] = x[i] + x[i + 1]: the last thread reads x[n].
__global__ void planted_oob(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + x[i + 1];  // sanitize: oob (x[n] when i = n - 1)
}

__global__ void clean_oob(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + (i + 1 < n ? x[i + 1] : 0.0f);
}

// Only the even slots of the scratch array are written; every thread reads its own slot.
__global__ void planted_uninit(const float* x, float* tmp, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if ((i & 1) == 0) tmp[i] = x[i];
  y[i] = tmp[i] + 1.0f;             // sanitize: uninit (odd slots were never written)
}

__global__ void clean_uninit(const float* x, float* tmp, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tmp[i] = (i & 1) == 0 ? x[i] : 0.0f;
  y[i] = tmp[i] + 1.0f;
}
