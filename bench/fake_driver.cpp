// fake_driver.cpp: a stand-in libcuda.so.1 that answers like an H100 and runs nothing.
// Built as build/fake_driver/libcuda.so.1 (cmake/tests.cmake); with LD_LIBRARY_PATH
// pointing there, warplab takes its live path (context, module load, kernel handles,
// launch checks, marshaling) without a GPU, so the host-side cost of a launch can be
// measured and profiled offline (scripts/bench-host, tests/cli/launch_fake_driver.sh).
// Device memory is host memory, copies are memcpy, events read the host's steady clock,
// a launch only counts itself, except that launching a kernel whose name contains
// "fake_fault" leaves a sticky CUDA_ERROR_ILLEGAL_ADDRESS for the next synchronizing call
// (to test fault attribution). WARPLAB_FAKE_LAUNCH_BYTES=N makes each launch also write N
// bytes of its own memory, as a real driver's launch evicts the caller's data from the
// CPU caches. WARPLAB_FAKE_INIT_MS and WARPLAB_FAKE_CONTEXT_MS make cuInit and the first
// primary-context retain take that long (a real driver's start-up, for the offline tests
// of what start-up pays), and WARPLAB_FAKE_LOG=FILE appends "cuInit PID" and "context PID"
// there when they happen. Never packed for the GPU machine. Needs cuda.h only.
#include <cuda.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;
struct Event {
  Clock::time_point at;
};
struct Function {
  std::string name;
  bool faults;  // "fake_fault" in the name
};
struct Module {
  int unused = 0;
};
int g_object;  // the address behind the context, device and stream handles
volatile unsigned long g_launches = 0;
CUresult g_sticky = CUDA_SUCCESS;  // what a faulted kernel leaves for the next synchronization

// The memory a launch writes (WARPLAB_FAKE_LAUNCH_BYTES), one store per cache line.
struct Scratch {
  std::size_t bytes = 0;
  unsigned char* p = nullptr;
  Scratch() {
    if (const char* v = std::getenv("WARPLAB_FAKE_LAUNCH_BYTES")) bytes = std::strtoull(v, nullptr, 10);
    if (bytes) p = static_cast<unsigned char*>(std::calloc(bytes, 1));
  }
  void touch() {
    for (std::size_t i = 0; i < bytes; i += 64) p[i] = static_cast<unsigned char>(p[i] + 1);
  }
} g_scratch;

// The attributes warplab's launch checks read (profiles/h100.json); any other is unknown,
// as an older driver would answer, and is left out of the device snapshot.
int attribute(CUdevice_attribute a) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      return 9;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      return 0;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
      return 32;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      return 132;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
      return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
      return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
      return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
      return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
      return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
      return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
      return 49152;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      return 232448;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
      return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
      return 233472;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
      return 65536;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
      return 65536;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
      return 2048;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
      return 32;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
      return 1;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH:
      return 1;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
      return 1980000;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
      return 2619000;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
      return 5120;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
      return 52428800;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
      return 65536;
    default:
      return -1;
  }
}

CUresult ok() { return CUDA_SUCCESS; }

// A real driver's start-up cost, and a record of it: WARPLAB_FAKE_<what>_MS, WARPLAB_FAKE_LOG.
void startup_stage(const char* what, const char* ms_var) {
  if (const char* v = std::getenv(ms_var))
    std::this_thread::sleep_for(std::chrono::milliseconds(std::strtol(v, nullptr, 10)));
  if (const char* log = std::getenv("WARPLAB_FAKE_LOG")) {
    const int fd = ::open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    const std::string line = std::string(what) + " " + std::to_string(::getpid()) + "\n";
    [[maybe_unused]] const ssize_t n = ::write(fd, line.data(), line.size());
    ::close(fd);
  }
}

// ---- device, context ----------------------------------------------------------------
CUresult f_init(unsigned) {
  startup_stage("cuInit", "WARPLAB_FAKE_INIT_MS");
  return ok();
}
CUresult f_version(int* v) {
  *v = CUDA_VERSION;
  return ok();
}
CUresult f_error_name(CUresult c, const char** s) {
  *s = c == CUDA_SUCCESS                 ? "CUDA_SUCCESS"
       : c == CUDA_ERROR_INVALID_VALUE   ? "CUDA_ERROR_INVALID_VALUE"
       : c == CUDA_ERROR_ILLEGAL_ADDRESS ? "CUDA_ERROR_ILLEGAL_ADDRESS"
                                         : "CUDA_ERROR_UNKNOWN";
  return ok();
}
CUresult f_error_string(CUresult c, const char** s) {
  *s = c == CUDA_SUCCESS                 ? "no error"
       : c == CUDA_ERROR_INVALID_VALUE   ? "invalid argument"
       : c == CUDA_ERROR_ILLEGAL_ADDRESS ? "an illegal memory access was encountered"
                                         : "unknown error";
  return ok();
}
CUresult f_count(int* n) {
  *n = 1;
  return ok();
}
CUresult f_get(CUdevice* d, int ordinal) {
  *d = ordinal;
  return ordinal == 0 ? ok() : CUDA_ERROR_INVALID_DEVICE;
}
CUresult f_name(char* s, int len, CUdevice) {
  std::strncpy(s, "warplab fake driver (H100-like, runs nothing)", static_cast<std::size_t>(len));
  return ok();
}
CUresult f_attr(int* v, CUdevice_attribute a, CUdevice) {
  *v = attribute(a);
  return *v < 0 ? CUDA_ERROR_INVALID_VALUE : ok();
}
CUresult f_total(std::size_t* b, CUdevice) {
  *b = 85017493504ull;
  return ok();
}
CUresult f_uuid(CUuuid* u, CUdevice) {
  std::memset(u, 0x5a, sizeof *u);
  return ok();
}
CUresult f_retain(CUcontext* c, CUdevice) {
  static bool made = false;
  if (!made) startup_stage("context", "WARPLAB_FAKE_CONTEXT_MS");
  made = true;
  *c = reinterpret_cast<CUcontext>(&g_object);
  return ok();
}
CUresult f_release(CUdevice) { return ok(); }
CUresult f_ctx_set(CUcontext) { return ok(); }
CUresult f_ctx_get(CUcontext* c) {
  *c = reinterpret_cast<CUcontext>(&g_object);
  return ok();
}
CUresult f_sync() { return g_sticky; }
CUresult f_get_limit(std::size_t* v, CUlimit) {
  *v = 1024;
  return ok();
}
CUresult f_set_limit(CUlimit, std::size_t) { return ok(); }
CUresult f_mem_info(std::size_t* free, std::size_t* total) {
  *free = *total = 85017493504ull;
  return ok();
}
CUresult f_ctx_state(CUdevice, unsigned* flags, int* active) {
  *flags = 0;
  *active = 1;
  return ok();
}

// ---- modules, functions -------------------------------------------------------------
CUresult f_load(CUmodule* m, const void*, unsigned, CUjit_option*, void**) {
  *m = reinterpret_cast<CUmodule>(new Module);
  return ok();
}
CUresult f_unload(CUmodule m) {
  delete reinterpret_cast<Module*>(m);
  return ok();
}
CUresult f_function(CUfunction* f, CUmodule, const char* name) {
  // One per lookup (warplab keeps them per module), never freed: a stand-in's leak.
  *f = reinterpret_cast<CUfunction>(new Function{name, std::strstr(name, "fake_fault") != nullptr});
  return ok();
}
CUresult f_global(CUdeviceptr*, std::size_t*, CUmodule, const char*) { return CUDA_ERROR_NOT_FOUND; }
CUresult f_func_attr(int* v, CUfunction_attribute a, CUfunction) {
  switch (a) {
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *v = 16;
      break;
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *v = 1024;
      break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *v = 90;
      break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *v = 49152;
      break;
    default:
      *v = 0;
  }
  return ok();
}
CUresult f_func_set(CUfunction, CUfunction_attribute, int) { return ok(); }

// ---- memory -------------------------------------------------------------------------
CUresult f_alloc(CUdeviceptr* p, std::size_t n) {
  void* m = std::aligned_alloc(256, (n + 255) / 256 * 256);
  *p = reinterpret_cast<CUdeviceptr>(m);
  return m ? ok() : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult f_free(CUdeviceptr p) {
  std::free(reinterpret_cast<void*>(p));
  return ok();
}
CUresult f_host_alloc(void** p, std::size_t n, unsigned) {
  *p = std::malloc(n ? n : 1);
  return *p ? ok() : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult f_host_free(void* p) {
  std::free(p);
  return ok();
}
void* at(CUdeviceptr p) { return reinterpret_cast<void*>(p); }
CUresult f_htod(CUdeviceptr d, const void* s, std::size_t n) {
  std::memcpy(at(d), s, n);
  return ok();
}
CUresult f_dtoh(void* d, CUdeviceptr s, std::size_t n) {
  if (g_sticky != CUDA_SUCCESS) return g_sticky;
  std::memcpy(d, at(s), n);
  return ok();
}
CUresult f_dtod(CUdeviceptr d, CUdeviceptr s, std::size_t n) {
  std::memmove(at(d), at(s), n);
  return ok();
}
CUresult f_htod_a(CUdeviceptr d, const void* s, std::size_t n, CUstream) { return f_htod(d, s, n); }
CUresult f_dtoh_a(void* d, CUdeviceptr s, std::size_t n, CUstream) { return f_dtoh(d, s, n); }
CUresult f_dtod_a(CUdeviceptr d, CUdeviceptr s, std::size_t n, CUstream) { return f_dtod(d, s, n); }
CUresult f_set8(CUdeviceptr d, unsigned char v, std::size_t n) {
  std::memset(at(d), v, n);
  return ok();
}
CUresult f_set8_a(CUdeviceptr d, unsigned char v, std::size_t n, CUstream) { return f_set8(d, v, n); }

// ---- streams, events ----------------------------------------------------------------
CUresult f_stream(CUstream* s, unsigned) {
  *s = reinterpret_cast<CUstream>(&g_object);
  return ok();
}
CUresult f_stream_1(CUstream) { return g_sticky; }
CUresult f_stream_wait(CUstream, CUevent, unsigned) { return ok(); }
CUresult f_event(CUevent* e, unsigned) {
  *e = reinterpret_cast<CUevent>(new Event);
  return ok();
}
CUresult f_event_destroy(CUevent e) {
  delete reinterpret_cast<Event*>(e);
  return ok();
}
CUresult f_record(CUevent e, CUstream) {
  reinterpret_cast<Event*>(e)->at = Clock::now();
  return ok();
}
CUresult f_event_1(CUevent) { return g_sticky; }
CUresult f_elapsed(float* ms, CUevent a, CUevent b) {
  *ms = std::chrono::duration<float, std::milli>(reinterpret_cast<Event*>(b)->at -
                                                 reinterpret_cast<Event*>(a)->at)
            .count();
  return ok();
}

// ---- launches, occupancy ------------------------------------------------------------
CUresult f_launch(CUfunction f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                  CUstream, void**, void**) {
  g_launches = g_launches + 1;
  if (g_scratch.p) g_scratch.touch();
  if (reinterpret_cast<Function*>(f)->faults) [[unlikely]]
    g_sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
  return g_sticky == CUDA_SUCCESS || reinterpret_cast<Function*>(f)->faults ? ok() : g_sticky;
}
CUresult f_launch_coop(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       CUstream, void**) {
  g_launches = g_launches + 1;
  return ok();
}
CUresult f_launch_ex(const CUlaunchConfig*, CUfunction, void**, void**) {
  g_launches = g_launches + 1;
  return ok();
}
CUresult f_clusters(int* n, CUfunction, const CUlaunchConfig*) {
  *n = 16;
  return ok();
}
CUresult f_occupancy(int* n, CUfunction, int block, std::size_t, unsigned) {
  *n = block > 0 ? 2048 / block : 0;
  return ok();
}
CUresult f_potential(int* grid, int* block, CUfunction, CUoccupancyB2DSize, std::size_t, int) {
  *grid = 264;
  *block = 1024;
  return ok();
}

struct Entry {
  const char* name;
  void* fn;
};
#define E(name, fn) \
  { name, reinterpret_cast<void*>(&fn) }
// Entry points left out (cuFuncGetParamInfo, cuFuncLoad, the module enumeration) are
// what a CUDA 12.0 driver lacks: warplab then takes its fallbacks (layout from the PTX).
const Entry kEntries[] = {
    E("cuInit", f_init),
    E("cuDriverGetVersion", f_version),
    E("cuGetErrorName", f_error_name),
    E("cuGetErrorString", f_error_string),
    E("cuDeviceGetCount", f_count),
    E("cuDeviceGet", f_get),
    E("cuDeviceGetName", f_name),
    E("cuDeviceGetAttribute", f_attr),
    E("cuDeviceTotalMem", f_total),
    E("cuDeviceGetUuid", f_uuid),
    E("cuDevicePrimaryCtxRetain", f_retain),
    E("cuDevicePrimaryCtxRelease", f_release),
    E("cuCtxSetCurrent", f_ctx_set),
    E("cuCtxGetCurrent", f_ctx_get),
    E("cuCtxSynchronize", f_sync),
    E("cuCtxGetLimit", f_get_limit),
    E("cuCtxSetLimit", f_set_limit),
    E("cuMemGetInfo", f_mem_info),
    E("cuModuleLoadDataEx", f_load),
    E("cuModuleUnload", f_unload),
    E("cuModuleGetFunction", f_function),
    E("cuModuleGetGlobal", f_global),
    E("cuFuncGetAttribute", f_func_attr),
    E("cuFuncSetAttribute", f_func_set),
    E("cuMemAlloc", f_alloc),
    E("cuMemFree", f_free),
    E("cuMemFreeHost", f_host_free),
    E("cuMemHostAlloc", f_host_alloc),
    E("cuMemcpyHtoD", f_htod),
    E("cuMemcpyDtoH", f_dtoh),
    E("cuMemcpyDtoD", f_dtod),
    E("cuMemcpyHtoDAsync", f_htod_a),
    E("cuMemcpyDtoHAsync", f_dtoh_a),
    E("cuMemcpyDtoDAsync", f_dtod_a),
    E("cuMemsetD8", f_set8),
    E("cuMemsetD8Async", f_set8_a),
    E("cuStreamCreate", f_stream),
    E("cuStreamDestroy", f_stream_1),
    E("cuStreamSynchronize", f_stream_1),
    E("cuStreamQuery", f_stream_1),
    E("cuStreamWaitEvent", f_stream_wait),
    E("cuEventCreate", f_event),
    E("cuEventDestroy", f_event_destroy),
    E("cuEventRecord", f_record),
    E("cuEventSynchronize", f_event_1),
    E("cuEventQuery", f_event_1),
    E("cuEventElapsedTime", f_elapsed),
    E("cuLaunchKernel", f_launch),
    E("cuLaunchCooperativeKernel", f_launch_coop),
    E("cuLaunchKernelEx", f_launch_ex),
    E("cuOccupancyMaxActiveClusters", f_clusters),
    E("cuDevicePrimaryCtxGetState", f_ctx_state),
    E("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", f_occupancy),
    E("cuOccupancyMaxPotentialBlockSize", f_potential),
};
#undef E

}  // namespace

// The one exported symbol: warplab resolves everything else through it (cu/driver.cpp).
extern "C" __attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(
    const char* symbol, void** pfn, int, cuuint64_t, CUdriverProcAddressQueryResult* status) {
  for (const Entry& e : kEntries)
    if (std::strcmp(e.name, symbol) == 0) {
      *pfn = e.fn;
      if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  *pfn = nullptr;
  if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
