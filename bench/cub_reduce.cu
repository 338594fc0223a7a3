// cub_reduce.cu: the baseline for warplab's fastest sum: cub::DeviceReduce::Sum over n
// floats in [0, 1), timed with a pair of CUDA events per call (warm-up first), median.
// Checks its own result against a double sum on the host (exit 1 when it is off).
// Build: nvcc -O3 -arch=sm_90 -o build-gpu/cub_reduce bench/cub_reduce.cu (scripts/pack-gpu;
// not part of the CMake build). Run: cub_reduce [n = 2^28] [reps = 100].
// Prints one line: "cub <median ms> <GB/s>" (GB/s = 4 n bytes / time / 1e9).
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    const cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "cub_reduce: %s failed: %s\n", #call, cudaGetErrorString(e_));    \
      return e_ == cudaErrorNoDevice || e_ == cudaErrorInsufficientDriver ? 77 : 2;          \
    }                                                                                        \
  } while (0)

// splitmix64 on the index: the same data for the same n, filled without a serial chain.
static float uniform(std::uint64_t i) {
  std::uint64_t z = i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * 0x1.0p-24f;  // 24 random bits: exactly representable
}

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (std::size_t{1} << 28);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 100;
  if (n == 0 || reps < 1) {
    std::fprintf(stderr, "cub_reduce: n (%zu) and reps (%d) must be >= 1\n", n, reps);
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("skipped: no GPU");
    return 77;
  }
  std::vector<float> host(n);
  double want = 0.0;
  for (std::size_t i = 0; i < n; ++i) want += (host[i] = uniform(i));

  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, sizeof(float)));
  CHECK(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  std::size_t temp_bytes = 0;
  void* temp = nullptr;
  CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, out, static_cast<std::int64_t>(n)));
  CHECK(cudaMalloc(&temp, temp_bytes));
  auto sum = [&] { return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, static_cast<std::int64_t>(n)); };

  for (int i = 0; i < 10; ++i) CHECK(sum());
  std::vector<cudaEvent_t> ev(2 * static_cast<std::size_t>(reps));
  for (auto& e : ev) CHECK(cudaEventCreate(&e));
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(ev[2 * i]));
    CHECK(sum());
    CHECK(cudaEventRecord(ev[2 * i + 1]));
  }
  CHECK(cudaEventSynchronize(ev.back()));
  std::vector<float> ms(reps);
  for (int i = 0; i < reps; ++i) CHECK(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
  std::sort(ms.begin(), ms.end());
  const double med = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);

  float got = 0.0f;
  CHECK(cudaMemcpy(&got, out, sizeof(float), cudaMemcpyDeviceToHost));
  // Data in [0, 1): sum|x| = the sum. CUB adds each element through a few hundred roundings
  // at most at this size (a thread's items, then the block and grid trees: gamma ~ 2e-5),
  // so 1e-4 relative passes any order; it catches a wrong size or garbage, not one lost
  // tile (a sanity check of the library and of this program, not a test of CUB).
  const double rel = std::fabs(got - want) / want;
  std::printf("cub %.4f %.1f\n", med, 4.0 * static_cast<double>(n) / (med * 1e6));
  std::fprintf(stderr, "cub_reduce: n = %zu, sum %.9g, double %.9g, relative error %.2e, %d reps\n", n,
               static_cast<double>(got), want, rel, reps);
  for (auto& e : ev) cudaEventDestroy(e);
  cudaFree(temp);
  cudaFree(out);
  cudaFree(in);
  if (!(rel <= 1e-4)) {
    std::fprintf(stderr, "cub_reduce: FAIL: the sum is off by %.2e relative (limit 1e-4)\n", rel);
    return 1;
  }
  return 0;
}
