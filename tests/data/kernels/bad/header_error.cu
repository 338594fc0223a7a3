// header_error.cu: the error is inside an included header; diagnostics must point there.
#include "include/bad_header.cuh"

__global__ void uses_header(float* out) { out[threadIdx.x] = helper(threadIdx.x); }
