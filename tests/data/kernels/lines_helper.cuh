// lines_helper.cuh: a device function inlined into lines.cu's scaled<N>; its load keeps
// this file's line (4) in the line map.
__device__ inline float twice(const float* p, int i) {
  return 2.f * p[i];
}
