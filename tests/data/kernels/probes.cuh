// probes.cuh: the kernels the limit and occupancy tests reason about: small (few
// registers), bounded (__launch_bounds__(128)), with_shared (4 KiB static shared) and
// heavy<N> (register pressure, pressure.cuh). Included by inline sources in tests/lua
// as "../data/kernels/probes.cuh".
#pragma once
__global__ void small(float* a) { a[threadIdx.x] = 1; }
__global__ void __launch_bounds__(128) bounded(float* a) { a[threadIdx.x] = 1; }
__global__ void with_shared(float* a) {
  __shared__ float s[1024];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[1023 - threadIdx.x];
}
#include "pressure.cuh"
