// fake_driver.hpp: what the two files of the stand-in libcuda.so.1 share
// (bench/fake_driver.cpp: devices, memory, streams, events, launches; bench/fake_graph.cpp:
// stream capture and graphs): the objects behind the handles, and the hooks by which work
// queued on a capturing stream becomes a graph node instead of running. Needs cuda.h only.
#pragma once
#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace fake {

using Clock = std::chrono::steady_clock;

struct Function {
  std::string name;
  bool faults;                         // "fake_fault" in the name
  bool hangs = false;                  // "fake_hang" in the name
  bool non_portable_clusters = false;  // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED set
};

struct Capture;  // fake_graph.cpp

struct Stream {
  int priority = 0;
  Capture* capture = nullptr;  // set while the stream captures (its own or one it joined)
  bool pending = false;        // joined a capture and has work not yet joined back
};

struct Event {
  Clock::time_point at;
  bool timing = true;
  bool recorded = false;         // cuEventElapsedTime refuses an event never recorded
  Stream* src = nullptr;         // the stream it was last recorded on
  std::uint64_t capture_id = 0;  // the capture it was recorded in (0: none)
};

// One node of a graph, with what a replay does for it.
struct Node {
  CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
  Function* fn = nullptr;  // kernel
  void* dst = nullptr;     // memcpy, memset
  const void* src = nullptr;
  std::size_t bytes = 0;
  unsigned char value = 0;  // memset
  bool dst_device = false, src_device = false;  // which operands are device addresses
};

// True while `p` lies inside a device allocation (cuMemAlloc, cuMemAllocManaged) not yet
// freed. A real driver reads a node's device addresses when it instantiates or updates a
// graph, and an address freed since the capture is undefined behaviour there (the process
// died with SIGSEGV on an H100): the stand-in refuses it with CUDA_ERROR_INVALID_VALUE, so
// a test of warplab's order (instantiate, then free) fails here when the order is wrong.
bool live_device(const void* p);
// The node's device operands are all live.
bool operands_live(const Node& n);

// The stream object behind a handle; nullptr for the legacy default stream (0, 1, 2).
inline Stream* stream_of(CUstream s) {
  return reinterpret_cast<std::uintptr_t>(s) <= 2 ? nullptr : reinterpret_cast<Stream*>(s);
}

// What a faulted kernel leaves for the next synchronizing call (fake_driver.cpp).
extern CUresult g_sticky;

// Runs kernel f: counts the launch, and a "fake_fault" kernel leaves its sticky error.
void run_kernel(Function* f);
// One submission of work that a profiler counts as one range: a kernel launch, or a
// graph's replay as a whole (the stand-in CUPTI, fake_cupti.cpp, reads the count through
// the exported warplab_fake_submissions).
void submitted();
// Runs a copy or memset node now (a replay, or work on a stream that is not capturing).
void run_node(const Node& n);
// While `s` captures, appends n to its capture and returns true: the work is recorded,
// not run. Work on a capturing stream's event record, wait or join is fake_graph.cpp's.
bool record(CUstream s, const Node& n);
// A call that runs or waits at once (a synchronous copy, an allocation, a context
// synchronize) while this thread captures: true, and the captures are invalidated, as
// CU_STREAM_CAPTURE_MODE_THREAD_LOCAL has the driver refuse it.
bool refused_during_capture();
// s:wait(e) and e:record(s) with captures taken into account.
CUresult stream_wait(CUstream s, CUevent e);
void event_recorded(CUevent e, CUstream s);

struct Entry {
  const char* name;
  void* fn;
};
// The graph and capture entry points (fake_graph.cpp), searched after fake_driver.cpp's.
const Entry* graph_entries(std::size_t* n);

}  // namespace fake
