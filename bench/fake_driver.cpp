// fake_driver.cpp: a stand-in libcuda.so.1 that answers like an H100 and runs nothing.
// Built as build/fake_driver/libcuda.so.1 (cmake/tests.cmake); with LD_LIBRARY_PATH
// pointing there, warplab takes its live path (context, module load, kernel handles,
// launch checks, marshaling) without a GPU, so the host-side cost of a launch can be
// measured and profiled offline (scripts/bench-host, tests/cli/launch_fake_driver.sh).
// Device memory is host memory, copies are memcpy, events read the host's steady clock,
// a launch only counts itself, except that launching a kernel whose name contains
// "fake_fault" leaves a sticky CUDA_ERROR_ILLEGAL_ADDRESS for the next synchronizing call
// (to test fault attribution), and one whose name contains "fake_hang" never finishes: every
// later stream or event query answers CUDA_ERROR_NOT_READY and a synchronization waits for
// good (to test the kernel watchdog, --timeout); WARPLAB_FAKE_LOAD_FAILS=1 makes every module
// load fail with CUDA_ERROR_INVALID_IMAGE (a driver failure). WARPLAB_FAKE_LAUNCH_BYTES=N makes each launch
// also write N bytes of its own memory, as a real driver's launch evicts the caller's data from the CPU
// caches. WARPLAB_FAKE_INIT_MS and WARPLAB_FAKE_CONTEXT_MS make cuInit and the first primary-context retain
// take that long (a real driver's start-up, for the offline tests of what start-up pays), and
// WARPLAB_FAKE_LOG=FILE appends "cuInit PID" and "context PID" there when they happen. Streams have
// priorities (range 0..-5, as an H100's), events may be made without timing, managed memory is host memory, a
// cluster of more than 8 blocks is refused (CUDA_ERROR_INVALID_CLUSTER_SIZE) unless the kernel opted in to
// 16; a tensor map is encoded after the driver's own checks of its address and rank; stream capture and
// graphs are fake_graph.cpp's; warplab_fake_submissions tells the stand-in CUPTI (fake_cupti.cpp) how
// many launches and graph replays ran. Never packed for the GPU machine. Needs cuda.h only.
#include <cuda.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>

#include "fake_driver.hpp"

namespace fake {
CUresult g_sticky = CUDA_SUCCESS;  // what a faulted kernel leaves for the next synchronization
}  // namespace fake

namespace {

using namespace fake;
struct Module {
  int unused = 0;
};
int g_object;  // the address behind the context and device handles
volatile unsigned long g_launches = 0;
std::atomic<bool> g_hung{false};  // a "fake_hang" kernel was launched: it never finishes

// What a synchronization does behind a kernel that never finishes: wait, for good.
void wait_if_hung() {
  while (g_hung) std::this_thread::sleep_for(std::chrono::seconds(1));
}

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
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS:
      return 1;
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
// The codes the stand-in returns, with the real driver's names and texts.
const struct {
  CUresult code;
  const char* name;
  const char* text;
} kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE",
     "the operation cannot be performed in the present state"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "operation failed due to a previous error during capture"},
    {CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
     "capture was not joined back to the origin stream"},
    {CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
     "capture was not ended in the same stream as it began"},
    {CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
     "dependency created on uncaptured work in another stream"},
    {CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
     "the graph update was not performed because it included changes which violated constraints specific to "
     "instantiated graph update"},
};
CUresult f_error_name(CUresult c, const char** s) {
  *s = "CUDA_ERROR_UNKNOWN";
  for (const auto& e : kErrors)
    if (e.code == c) *s = e.name;
  return ok();
}
CUresult f_error_string(CUresult c, const char** s) {
  *s = "unknown error";
  for (const auto& e : kErrors)
    if (e.code == c) *s = e.text;
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
CUresult f_sync() {
  if (refused_during_capture()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  wait_if_hung();
  return g_sticky;
}
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
  static const bool fails = std::getenv("WARPLAB_FAKE_LOAD_FAILS") != nullptr;
  if (fails) return CUDA_ERROR_INVALID_IMAGE;
  *m = reinterpret_cast<CUmodule>(new Module);
  return ok();
}
CUresult f_unload(CUmodule m) {
  delete reinterpret_cast<Module*>(m);
  return ok();
}
CUresult f_function(CUfunction* f, CUmodule, const char* name) {
  // One per lookup (warplab keeps them per module), never freed: a stand-in's leak.
  *f = reinterpret_cast<CUfunction>(new Function{name, std::strstr(name, "fake_fault") != nullptr,
                                                 std::strstr(name, "fake_hang") != nullptr});
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
CUresult f_func_set(CUfunction f, CUfunction_attribute a, int v) {
  if (a == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED)
    reinterpret_cast<Function*>(f)->non_portable_clusters = v != 0;
  return ok();
}

// ---- memory -------------------------------------------------------------------------
std::map<std::uintptr_t, std::size_t> g_device;  // live device allocations: address -> bytes
CUresult f_alloc(CUdeviceptr* p, std::size_t n) {
  if (refused_during_capture()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  void* m = std::aligned_alloc(256, (n + 255) / 256 * 256);
  *p = reinterpret_cast<CUdeviceptr>(m);
  if (m) g_device[*p] = n ? n : 1;
  return m ? ok() : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult f_free(CUdeviceptr p) {
  if (refused_during_capture()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  g_device.erase(p);
  std::free(reinterpret_cast<void*>(p));
  return ok();
}
CUresult f_host_alloc(void** p, std::size_t n, unsigned) {
  if (refused_during_capture()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  *p = std::malloc(n ? n : 1);
  return *p ? ok() : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult f_host_free(void* p) {
  if (refused_during_capture()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  std::free(p);
  return ok();
}
void* at(CUdeviceptr p) { return reinterpret_cast<void*>(p); }
CUresult f_managed(CUdeviceptr* p, std::size_t n, unsigned) {
  if (refused_during_capture()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  void* m = std::calloc(1, n ? n : 1);
  *p = reinterpret_cast<CUdeviceptr>(m);
  if (m) g_device[*p] = n ? n : 1;
  return m ? ok() : CUDA_ERROR_OUT_OF_MEMORY;
}
bool valid_location(CUmemLocation l) {
  return (l.type == CU_MEM_LOCATION_TYPE_DEVICE && l.id == 0) || l.type == CU_MEM_LOCATION_TYPE_HOST;
}
CUresult f_prefetch(CUdeviceptr, std::size_t, CUmemLocation l, unsigned, CUstream) {
  return valid_location(l) ? ok() : CUDA_ERROR_INVALID_DEVICE;
}
CUresult f_advise(CUdeviceptr, std::size_t, CUmem_advise, CUmemLocation l) {
  return valid_location(l) ? ok() : CUDA_ERROR_INVALID_DEVICE;
}
// A tensor map: the driver's own refusals of a null, misaligned or unknown address and of
// a rank outside 1..5; the descriptor holds the address, the rank and the sizes (a real one
// is opaque: nothing reads it here, no kernel runs).
CUresult f_tensor_map(CUtensorMap* map, CUtensorMapDataType, cuuint32_t rank, void* address,
                      const cuuint64_t* dims, const cuuint64_t*, const cuuint32_t* box, const cuuint32_t*,
                      CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                      CUtensorMapFloatOOBfill) {
  const auto a = reinterpret_cast<CUdeviceptr>(address);
  auto known = g_device.upper_bound(a);
  const bool inside = known != g_device.begin() && (--known, a < known->first + known->second);
  if (!map || !dims || !box || !inside || a % 16 != 0 || rank < 1 || rank > 5)
    return CUDA_ERROR_INVALID_VALUE;
  std::memset(map, 0, sizeof *map);
  map->opaque[0] = a;
  map->opaque[1] = rank;
  for (cuuint32_t i = 0; i < rank; ++i) map->opaque[2 + i] = dims[i];
  return ok();
}
// Synchronous copies and memsets: refused while this thread captures.
CUresult f_htod(CUdeviceptr d, const void* s, std::size_t n) {
  if (refused_during_capture()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  std::memcpy(at(d), s, n);
  return ok();
}
CUresult f_dtoh(void* d, CUdeviceptr s, std::size_t n) {
  if (refused_during_capture()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (g_sticky != CUDA_SUCCESS) return g_sticky;
  std::memcpy(d, at(s), n);
  return ok();
}
CUresult f_dtod(CUdeviceptr d, CUdeviceptr s, std::size_t n) {
  if (refused_during_capture()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  std::memmove(at(d), at(s), n);
  return ok();
}
CUresult f_set8(CUdeviceptr d, unsigned char v, std::size_t n) {
  if (refused_during_capture()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  std::memset(at(d), v, n);
  return ok();
}
// Asynchronous ones: a node of the capture when the stream captures, else done now.
CUresult copy_on(CUstream s, void* d, const void* src, std::size_t n, bool d_dev, bool s_dev) {
  const Node node{CU_GRAPH_NODE_TYPE_MEMCPY, nullptr, d, src, n, 0, d_dev, s_dev};
  if (record(s, node)) return ok();
  if (g_sticky != CUDA_SUCCESS) return g_sticky;
  run_node(node);
  return ok();
}
CUresult f_htod_a(CUdeviceptr d, const void* s, std::size_t n, CUstream st) {
  return copy_on(st, at(d), s, n, true, false);
}
CUresult f_dtoh_a(void* d, CUdeviceptr s, std::size_t n, CUstream st) {
  return copy_on(st, d, at(s), n, false, true);
}
CUresult f_dtod_a(CUdeviceptr d, CUdeviceptr s, std::size_t n, CUstream st) {
  return copy_on(st, at(d), at(s), n, true, true);
}
CUresult f_set8_a(CUdeviceptr d, unsigned char v, std::size_t n, CUstream st) {
  const Node node{CU_GRAPH_NODE_TYPE_MEMSET, nullptr, at(d), nullptr, n, v, true, false};
  if (!record(st, node)) run_node(node);
  return ok();
}

// ---- streams, events ----------------------------------------------------------------
constexpr int kLeastPriority = 0, kGreatestPriority = -5;  // an H100's range
CUresult f_priority_range(int* least, int* greatest) {
  if (least) *least = kLeastPriority;
  if (greatest) *greatest = kGreatestPriority;
  return ok();
}
CUresult f_stream_prio(CUstream* s, unsigned, int priority) {
  // Clamped into the range, as the driver does.
  const int p = priority > kLeastPriority      ? kLeastPriority
                : priority < kGreatestPriority ? kGreatestPriority
                                               : priority;
  *s = reinterpret_cast<CUstream>(new Stream{p});
  return ok();
}
CUresult f_stream(CUstream* s, unsigned flags) { return f_stream_prio(s, flags, 0); }
CUresult f_stream_priority(CUstream s, int* p) {
  *p = stream_of(s) ? stream_of(s)->priority : 0;
  return ok();
}
CUresult f_stream_destroy(CUstream s) {
  Stream* st = stream_of(s);
  if (st && st->capture) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  delete st;
  return g_sticky;
}
// Synchronize and query: a capturing stream has nothing submitted to wait for.
CUresult f_stream_1(CUstream s) {
  if (stream_of(s) && stream_of(s)->capture) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  wait_if_hung();
  return g_sticky;
}
CUresult f_stream_query(CUstream s) {
  if (g_hung && !(stream_of(s) && stream_of(s)->capture)) return CUDA_ERROR_NOT_READY;
  return f_stream_1(s);
}
CUresult f_stream_wait(CUstream s, CUevent e, unsigned) { return stream_wait(s, e); }
CUresult f_event(CUevent* e, unsigned flags) {
  *e = reinterpret_cast<CUevent>(new Event{Clock::now(), (flags & CU_EVENT_DISABLE_TIMING) == 0});
  return ok();
}
CUresult f_event_destroy(CUevent e) {
  delete reinterpret_cast<Event*>(e);
  return ok();
}
CUresult f_record(CUevent e, CUstream s) {
  reinterpret_cast<Event*>(e)->recorded = true;
  event_recorded(e, s);
  return ok();
}
CUresult f_event_1(CUevent) {
  wait_if_hung();
  return g_sticky;
}
CUresult f_event_query(CUevent e) { return g_hung ? CUDA_ERROR_NOT_READY : f_event_1(e); }
CUresult f_elapsed(float* ms, CUevent a, CUevent b) {
  if (!reinterpret_cast<Event*>(a)->timing || !reinterpret_cast<Event*>(b)->timing)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!reinterpret_cast<Event*>(a)->recorded || !reinterpret_cast<Event*>(b)->recorded)
    return CUDA_ERROR_INVALID_HANDLE;  // as the driver: "cuEventRecord() has not been called"
  *ms = std::chrono::duration<float, std::milli>(reinterpret_cast<Event*>(b)->at -
                                                 reinterpret_cast<Event*>(a)->at)
            .count();
  return ok();
}

// ---- launches, occupancy ------------------------------------------------------------
CUresult f_clusters(int* n, CUfunction f, const CUlaunchConfig* c) {
  unsigned blocks = 1;
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      blocks =
          c->attrs[i].value.clusterDim.x * c->attrs[i].value.clusterDim.y * c->attrs[i].value.clusterDim.z;
  if (blocks > (reinterpret_cast<Function*>(f)->non_portable_clusters ? 16u : 8u))
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  *n = 16;
  return ok();
}
CUresult f_launch(CUfunction f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                  CUstream s, void**, void**) {
  if (const Stream* st = stream_of(s); st && st->capture) [[unlikely]]
    return (record(s, Node{CU_GRAPH_NODE_TYPE_KERNEL, reinterpret_cast<Function*>(f)}), ok());
  submitted();
  run_kernel(reinterpret_cast<Function*>(f));
  return g_sticky == CUDA_SUCCESS || reinterpret_cast<Function*>(f)->faults ? ok() : g_sticky;
}
CUresult f_launch_coop(CUfunction f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       CUstream s, void**) {
  if (record(s, Node{CU_GRAPH_NODE_TYPE_KERNEL, reinterpret_cast<Function*>(f)})) return ok();
  submitted();
  g_launches = g_launches + 1;
  return ok();
}
CUresult f_launch_ex(const CUlaunchConfig* c, CUfunction f, void**, void**) {
  int active = 0;
  if (const CUresult rc = f_clusters(&active, f, c); rc != CUDA_SUCCESS)
    return rc;  // the size, as the driver checks it
  if (record(c->hStream, Node{CU_GRAPH_NODE_TYPE_KERNEL, reinterpret_cast<Function*>(f)})) return ok();
  submitted();
  g_launches = g_launches + 1;
  return ok();
}
// As an H100 answers: 8 blocks (portable), 16 once the kernel opted in; a cluster larger
// than the kernel allows is refused (CUDA_ERROR_INVALID_CLUSTER_SIZE), as the driver does.
CUresult f_cluster_size(int* n, CUfunction f, const CUlaunchConfig*) {
  *n = reinterpret_cast<Function*>(f)->non_portable_clusters ? 16 : 8;
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
    E("cuMemAllocManaged", f_managed),
    E("cuMemPrefetchAsync", f_prefetch),
    E("cuMemAdvise", f_advise),
    E("cuTensorMapEncodeTiled", f_tensor_map),
    E("cuStreamCreate", f_stream),
    E("cuStreamCreateWithPriority", f_stream_prio),
    E("cuStreamGetPriority", f_stream_priority),
    E("cuCtxGetStreamPriorityRange", f_priority_range),
    E("cuStreamDestroy", f_stream_destroy),
    E("cuStreamSynchronize", f_stream_1),
    E("cuStreamQuery", f_stream_query),
    E("cuStreamWaitEvent", f_stream_wait),
    E("cuEventCreate", f_event),
    E("cuEventDestroy", f_event_destroy),
    E("cuEventRecord", f_record),
    E("cuEventSynchronize", f_event_1),
    E("cuEventQuery", f_event_query),
    E("cuEventElapsedTime", f_elapsed),
    E("cuLaunchKernel", f_launch),
    E("cuLaunchCooperativeKernel", f_launch_coop),
    E("cuLaunchKernelEx", f_launch_ex),
    E("cuOccupancyMaxActiveClusters", f_clusters),
    E("cuOccupancyMaxPotentialClusterSize", f_cluster_size),
    E("cuDevicePrimaryCtxGetState", f_ctx_state),
    E("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", f_occupancy),
    E("cuOccupancyMaxPotentialBlockSize", f_potential),
};
#undef E

}  // namespace

namespace fake {

std::atomic<unsigned long> g_submissions{0};
void submitted() { g_submissions.fetch_add(1, std::memory_order_relaxed); }

void run_kernel(Function* f) {
  g_launches = g_launches + 1;
  if (g_scratch.p) g_scratch.touch();
  if (f->faults) [[unlikely]]
    g_sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
  if (f->hangs) [[unlikely]]
    g_hung = true;
}

bool live_device(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = g_device.upper_bound(a);
  if (it == g_device.begin()) return false;
  --it;
  return a < it->first + it->second;
}

bool operands_live(const Node& n) {
  return (!n.dst_device || live_device(n.dst)) && (!n.src_device || live_device(n.src));
}

void run_node(const Node& n) {
  if (n.type == CU_GRAPH_NODE_TYPE_MEMCPY && n.bytes) std::memmove(n.dst, n.src, n.bytes);
  if (n.type == CU_GRAPH_NODE_TYPE_MEMSET && n.bytes) std::memset(n.dst, n.value, n.bytes);
}

}  // namespace fake

// For the stand-in CUPTI (fake_cupti.cpp): launches and graph replays made so far.
extern "C" __attribute__((visibility("default"))) unsigned long warplab_fake_submissions() {
  return fake::g_submissions.load(std::memory_order_relaxed);
}

// The entry point warplab resolves everything else through (cu/driver.cpp).
extern "C" __attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(
    const char* symbol, void** pfn, int, cuuint64_t, CUdriverProcAddressQueryResult* status) {
  std::size_t n_graph = 0;
  const fake::Entry* graph = fake::graph_entries(&n_graph);
  const void* fn = nullptr;
  for (const fake::Entry& e : kEntries)
    if (!fn && std::strcmp(e.name, symbol) == 0) fn = e.fn;
  for (std::size_t i = 0; i < n_graph; ++i)
    if (!fn && std::strcmp(graph[i].name, symbol) == 0) fn = graph[i].fn;
  if (fn) {
    *pfn = const_cast<void*>(fn);
    if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  }
  *pfn = nullptr;
  if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
