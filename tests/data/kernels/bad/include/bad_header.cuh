// bad_header.cuh: a helper with a type error on line 4.
#pragma once
__device__ float helper(unsigned i) {
  float* wrong = i;
  return static_cast<float>(i);
}
