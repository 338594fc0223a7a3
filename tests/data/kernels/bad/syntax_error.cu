// syntax_error.cu: one undefined identifier; tests assert its exact line and column.
__global__ void scale(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * undefined_factor;
}
