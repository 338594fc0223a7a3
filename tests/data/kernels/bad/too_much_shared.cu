// too_much_shared.cu: 240000 bytes of static shared memory, over the 48 KiB static limit.
// ptxas rejects it; NVRTC puts that error after a NUL byte in its log.
__global__ void big(float* x) {
  __shared__ float s[60000];
  s[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = s[threadIdx.x + 1];
}
