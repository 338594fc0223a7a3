// pressure.cuh: register pressure on demand for the Lua tests: heavy<N> keeps N floats
// live across a loop the compiler cannot shorten, so N (and max_registers) set the
// register count, and past the cap the spills. Included by inline sources in
// tests/lua and tests/gpu_lua as "../data/kernels/pressure.cuh".
#pragma once
template <int N>
__global__ void heavy(const float* in, float* out, int reps) {
  float v[N];
#pragma unroll
  for (int i = 0; i < N; ++i) v[i] = in[threadIdx.x + i * blockDim.x];
  for (int r = 0; r < reps; ++r) {
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] = v[i] * v[(i + 1) % N] + v[(i + 7) % N];
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) s += v[i];
  out[threadIdx.x] = s;
}
