// gpu_support.cpp: NVRTC compile helper, live attribute snapshot, the shared test kernels.
// Depends on nvrtc.h (libnvrtc, linked through warplab_rtc) and the cu layer.
#include "gpu_support.hpp"

#include <nvrtc.h>

#include <stdexcept>

#include "cu/driver.hpp"
#include "cu/error.hpp"

namespace warplab_gpu {

const char* const kBasicKernels = R"(
extern "C" __global__ void iota_k(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
struct Trio { int a, b, c; };
extern "C" __global__ void params_k(char c, short s, int i, long long l, double d, float* p,
                                    Trio t) {
  if (p && threadIdx.x == 0) p[0] = c + s + i + (float)l + (float)d + t.a + t.b + t.c;
}
extern "C" __global__ void touch(int* flag) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 && blockIdx.x == 0 &&
      blockIdx.y == 0 && blockIdx.z == 0)
    *flag = 1;
}
extern "C" __global__ void __launch_bounds__(256) bounded(int* flag) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *flag = 1;
}
extern "C" __global__ void dyn_smem(long long* out, int n_ints) {
  extern __shared__ int buf[];
  for (int i = threadIdx.x; i < n_ints; i += blockDim.x) buf[i] = i;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long s = 0;
    for (int i = 0; i < n_ints; ++i) s += buf[i];
    out[blockIdx.x] = s;
  }
}
extern "C" __global__ void fault(int* p) { p[threadIdx.x] = 1; }
)";

std::string device_arch() {
  const auto& a = warplab::cu::api();
  CUdevice dev = 0;
  int major = 0, minor = 0;
  WL_CU_CHECK(a.cuDeviceGet(&dev, 0), "device 0");
  WL_CU_CHECK(a.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cc");
  WL_CU_CHECK(a.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cc");
  return "sm_" + std::to_string(major * 10 + minor);
}

std::string nvrtc_compile(const std::string& source, const std::string& name,
                          const std::vector<std::string>& options, bool ptx) {
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS)
    throw std::runtime_error("nvrtcCreateProgram failed for " + name);
  // Destroys the program on every path out of this function.
  struct Guard {
    nvrtcProgram* p;
    ~Guard() { nvrtcDestroyProgram(p); }
  } guard{&prog};
  const std::string arch = device_arch();
  std::vector<std::string> opts = {"--gpu-architecture=" + (ptx ? "compute_" + arch.substr(3) : arch)};
  opts.insert(opts.end(), options.begin(), options.end());
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());
  const nvrtcResult rc = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  if (rc != NVRTC_SUCCESS) {
    std::size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    std::string log(n, '\0');
    nvrtcGetProgramLog(prog, log.data());
    throw std::runtime_error("NVRTC failed on " + name + ": " + nvrtcGetErrorString(rc) + "\n" + log);
  }
  std::size_t n = 0;
  std::string out;
  if (ptx) {
    nvrtcGetPTXSize(prog, &n);
    out.resize(n);
    nvrtcGetPTX(prog, out.data());
  } else {
    nvrtcGetCUBINSize(prog, &n);
    out.resize(n);
    nvrtcGetCUBIN(prog, out.data());
  }
  return out;
}

warplab::cu::ModulePtr load(const warplab::cu::ContextPtr& ctx, const std::string& source,
                            const std::string& name, const std::vector<std::string>& options) {
  return warplab::cu::Module::load_cubin(ctx, nvrtc_compile(source, name, options), name);
}

warplab::cu::DeviceSnapshot live_snapshot(int ordinal) {
  const auto& a = warplab::cu::api();
  CUdevice dev = 0;
  WL_CU_CHECK(a.cuDeviceGet(&dev, ordinal), "device");
  const std::pair<const char*, CUdevice_attribute> wanted[] = {
      {"warp_size", CU_DEVICE_ATTRIBUTE_WARP_SIZE},
      {"multiprocessor_count", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
      {"max_threads_per_block", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
      {"max_block_dim_x", CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X},
      {"max_block_dim_y", CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y},
      {"max_block_dim_z", CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z},
      {"max_grid_dim_x", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X},
      {"max_grid_dim_y", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y},
      {"max_grid_dim_z", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z},
      {"max_shared_memory_per_block", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
      {"max_shared_memory_per_block_optin", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
      {"reserved_shared_memory_per_block", CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK},
      {"max_shared_memory_per_multiprocessor", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
      {"max_registers_per_block", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK},
      {"max_registers_per_multiprocessor", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR},
      {"max_threads_per_multiprocessor", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
      {"max_blocks_per_multiprocessor", CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR},
      {"cooperative_launch", CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH},
      {"compute_capability_major", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
      {"compute_capability_minor", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
  };
  warplab::cu::DeviceSnapshot s;
  s.ordinal = ordinal;
  s.source = "device " + std::to_string(ordinal) + " (gpu test)";
  for (const auto& [name, attr] : wanted) {
    int v = 0;
    WL_CU_CHECK(a.cuDeviceGetAttribute(&v, attr, dev), name);
    s.attributes[name] = v;
  }
  s.cc_major = static_cast<int>(s.attributes["compute_capability_major"]);
  s.cc_minor = static_cast<int>(s.attributes["compute_capability_minor"]);
  char name[256] = {};
  a.cuDeviceGetName(name, sizeof name, dev);
  s.name = name;
  return s;
}

}  // namespace warplab_gpu
