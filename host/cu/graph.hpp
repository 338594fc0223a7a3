// graph.hpp: CUDA graphs made by stream capture: begin/end a capture on a stream, ask a
// stream whether it is capturing, the captured graph (CUgraph) and its executable form
// (CUgraphExec: instantiate, launch, update in place), each move-only and holding its
// context. Which operations a capture allows, and the sentences, are lab/capture.hpp's.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cu/context.hpp"

namespace warplab::cu {

// cuStreamGetCaptureInfo: whether `stream` is capturing, and which capture (a process-
// unique id, the same on every stream that joined it). nullptr is the legacy default
// stream, which never captures.
struct CaptureInfo {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  std::uint64_t id = 0;
  bool active() const noexcept { return status == CU_STREAM_CAPTURE_STATUS_ACTIVE; }
};
CaptureInfo capture_info(CUstream stream);

// cuStreamBeginCapture in CU_STREAM_CAPTURE_MODE_THREAD_LOCAL: while this thread captures,
// the driver refuses this thread's calls that would run or wait at once (a synchronous
// copy, cuMemAlloc, a context synchronize) instead of letting them happen outside the
// graph, and other threads (a watchdog, a library's thread) are not affected. GLOBAL would
// fail their calls too; RELAXED would let a forgotten synchronous call slip through.
void begin_capture(CUstream stream);

class Graph {
 public:
  Graph() = default;  // empty
  // Adopts `g` (from a capture) in `ctx`.
  Graph(ContextPtr ctx, CUgraph g) noexcept : ctx_(std::move(ctx)), g_(g) {}
  Graph(Graph&& o) noexcept;
  Graph& operator=(Graph&& o) noexcept;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph() { destroy(); }

  void destroy() noexcept;  // idempotent
  bool valid() const noexcept { return g_ != nullptr; }
  CUgraph get() const noexcept { return g_; }
  const ContextPtr& context() const noexcept { return ctx_; }

  // The graph's nodes (cuGraphGetNodes), in the driver's order, and their number.
  std::vector<CUgraphNode> nodes() const;
  std::size_t node_count() const;

 private:
  ContextPtr ctx_;
  CUgraph g_ = nullptr;
};

// cuStreamEndCapture: the graph captured on `stream`. A capture the driver invalidated or
// that left a joined stream unjoined throws cu::Error with its code (CUDA_ERROR_STREAM_
// CAPTURE_INVALIDATED, _UNJOINED, ...); the capture has ended either way.
Graph end_capture(const ContextPtr& ctx, CUstream stream);

// "kernel", "memcpy", "memset", "event record", ...: a node's type, for messages.
const char* node_type_name(CUgraphNodeType t) noexcept;
CUgraphNodeType node_type(CUgraphNode n);

class GraphExec {
 public:
  GraphExec() = default;  // empty
  // cuGraphInstantiateWithFlags(flags 0).
  explicit GraphExec(const Graph& g);
  GraphExec(GraphExec&& o) noexcept;
  GraphExec& operator=(GraphExec&& o) noexcept;
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  ~GraphExec() { destroy(); }

  void destroy() noexcept;  // idempotent
  bool valid() const noexcept { return e_ != nullptr; }
  CUgraphExec get() const noexcept { return e_; }

  // cuGraphLaunch on `stream` (nullptr: the legacy default stream).
  void launch(CUstream stream) const;

  // cuGraphExecUpdate from `g`, a graph of the same shape with other parameters. The
  // driver's verdict is a value, not an exception: `result` is CU_GRAPH_EXEC_UPDATE_SUCCESS
  // (updated in place) or why it could not (the topology, a node's type or function
  // changed, ...), with the node it stopped at. Other failures throw cu::Error.
  struct Update {
    CUgraphExecUpdateResult result = CU_GRAPH_EXEC_UPDATE_SUCCESS;
    CUgraphNode error_node = nullptr;
    bool ok() const noexcept { return result == CU_GRAPH_EXEC_UPDATE_SUCCESS; }
  };
  Update update(const Graph& g);

 private:
  ContextPtr ctx_;
  CUgraphExec e_ = nullptr;
};

}  // namespace warplab::cu
