// overlap.cu: the compute stage of a chunked copy-in / kernel / copy-out pipeline.
// Shows:    scale_rounds spends a chosen number of dependent FMA rounds on each element it
//           reads, so a script can balance one chunk's kernel time against its copy time
//           and see the copy engines and the SMs work on different chunks at once.
// Versions: scale_rounds (grid-stride; out[i] = the rounds applied to in[i]).
// Launch:   1-D, any grid and block; in and out: n floats each (a chunk, or a view).
// Expect:   out[i] = rounds(in[i]) as the CPU computes it (x -> x * 0.5 + 0.25, `rounds`
//           times: a contraction, so any start tends to 0.5); time grows linearly with rounds.
// Used by:  examples/concurrency/overlap.lua
__global__ void scale_rounds(const float* in, float* out, int n, int rounds) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float x = in[i];
    for (int r = 0; r < rounds; ++r) x = fmaf(x, 0.5f, 0.25f);
    out[i] = x;
  }
}
