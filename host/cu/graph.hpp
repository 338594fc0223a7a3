// graph.hpp: CUDA graphs made by stream capture: begin/end a capture on a stream, ask a
// stream whether it is capturing, the captured graph (CUgraph) and its executable form
// (CUgraphExec: instantiate, launch, update in place), each owned through cu::Handle
// (move-only, holding its context). Which operations a capture allows, and the sentences,
// are lab/capture.hpp's.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cu/context.hpp"
#include "cu/handle.hpp"

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

struct GraphTraits {
  using Raw = CUgraph;
  static void destroy(CUgraph g) noexcept;  // cuGraphDestroy
};

class Graph {
 public:
  Graph() = default;  // empty
  // Adopts `g` (from a capture) in `ctx`.
  Graph(ContextPtr ctx, CUgraph g) noexcept : h_(std::move(ctx), g) {}

  void destroy() noexcept { h_.release(); }  // idempotent
  bool valid() const noexcept { return h_.valid(); }
  CUgraph get() const noexcept { return h_.get(); }
  const ContextPtr& context() const noexcept { return h_.context(); }

  // The graph's nodes (cuGraphGetNodes), in the driver's order, and their number.
  std::vector<CUgraphNode> nodes() const;
  std::size_t node_count() const;

 private:
  Handle<GraphTraits> h_;
};

// cuStreamEndCapture: the graph captured on `stream`. A capture the driver invalidated or
// that left a joined stream unjoined throws cu::Error with its code (CUDA_ERROR_STREAM_
// CAPTURE_INVALIDATED, _UNJOINED, ...); the capture has ended either way.
Graph end_capture(const ContextPtr& ctx, CUstream stream);

// "kernel", "memcpy", "memset", "event record", ...: a node's type, for messages.
const char* node_type_name(CUgraphNodeType t) noexcept;
CUgraphNodeType node_type(CUgraphNode n);

struct GraphExecTraits {
  using Raw = CUgraphExec;
  static void destroy(CUgraphExec e) noexcept;  // cuGraphExecDestroy
};

class GraphExec {
 public:
  GraphExec() = default;  // empty
  // cuGraphInstantiateWithFlags(flags 0).
  explicit GraphExec(const Graph& g);

  void destroy() noexcept { h_.release(); }  // idempotent
  bool valid() const noexcept { return h_.valid(); }
  CUgraphExec get() const noexcept { return h_.get(); }

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
  Handle<GraphExecTraits> h_;
};

}  // namespace warplab::cu
