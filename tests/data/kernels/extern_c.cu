// extern_c.cu: extern "C" kernels as CUDA samples and CuPy RawKernel code write them, whose
// parameter types warplab reads from the source (no m:kernel declaration needed).
// Shows:    types from a header's typedef and macro (axpy), a template behind extern "C"
//           wrappers (scale_f32, scale_f64), a kernel made by a macro (iota_i32) and a
//           typedef chosen by #ifdef ACC_DOUBLE (widen: NVRTC tells which).
// Launch:   1-D grid, any block; n elements.
// Expect:   axpy: y = a * x + y; scale_*: x *= a; iota_i32: out[i] = i; widen: y = 2 * x,
//           in double with -D ACC_DOUBLE, else in float.
// Used by:  tests/lua/api_externc.lua, tests/unit/rtc_extern_c_test.cpp
#include "extern_c.cuh"

#ifdef ACC_DOUBLE
typedef double acc_t;
#else
typedef float acc_t;
#endif

template <typename T>
__device__ void scale_impl(T* x, T a, INDEX_T n) {
  const INDEX_T i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

extern "C" {

__global__ void axpy(real_t a, const real_t* __restrict__ x, real_t* __restrict__ y, INDEX_T n) {
  const INDEX_T i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void scale_f32(float* x, float a, INDEX_T n) { scale_impl<float>(x, a, n); }
__global__ void scale_f64(double* x, double a, INDEX_T n) { scale_impl<double>(x, a, n); }

__global__ void widen(const float* x, acc_t* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = static_cast<acc_t>(x[i]) * 2;
}

}  // extern "C"

#define FILL_KERNEL(name, type)                                 \
  extern "C" __global__ void name(type* out, int n) {           \
    const int i = blockIdx.x * blockDim.x + threadIdx.x;        \
    if (i < n) out[i] = static_cast<type>(i);                   \
  }
FILL_KERNEL(iota_i32, int)
