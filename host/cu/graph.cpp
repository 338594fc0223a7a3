// graph.cpp: stream capture, Graph and GraphExec.
#include "cu/graph.hpp"

#include <utility>

#include "cu/driver.hpp"
#include "cu/error.hpp"

namespace warplab::cu {

CaptureInfo capture_info(CUstream stream) {
  CaptureInfo info;
  if (!stream) return info;  // the legacy default stream cannot capture
  WL_CU_CHECK(
      api().cuStreamGetCaptureInfo(stream, &info.status, &info.id, nullptr, nullptr, nullptr, nullptr),
      "stream");
  return info;
}

void begin_capture(CUstream stream) {
  if (!stream) throw Error("the default stream cannot be captured: capture on a stream of its own");
  WL_CU_CHECK(api().cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "stream");
}

Graph end_capture(const ContextPtr& ctx, CUstream stream) {
  CUgraph g = nullptr;
  const CUresult rc = api().cuStreamEndCapture(stream, &g);
  if (rc != CUDA_SUCCESS) {
    // An invalidated capture may still hand back a graph: it is unusable, destroy it.
    Graph(ctx, g).destroy();
    throw Error(rc, "cuStreamEndCapture", "stream");
  }
  return Graph(ctx, g);
}

void GraphTraits::destroy(CUgraph g) noexcept { api().cuGraphDestroy(g); }

std::size_t Graph::node_count() const {
  const CUgraph g = h_.live("graph");
  std::size_t n = 0;
  WL_CU_CHECK(api().cuGraphGetNodes(g, nullptr, &n), "graph");
  return n;
}

std::vector<CUgraphNode> Graph::nodes() const {
  std::size_t n = node_count();
  std::vector<CUgraphNode> out(n);
  if (n) WL_CU_CHECK(api().cuGraphGetNodes(get(), out.data(), &n), "graph");
  out.resize(n);
  return out;
}

const char* node_type_name(CUgraphNodeType t) noexcept {
  switch (t) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
      return "kernel";
    case CU_GRAPH_NODE_TYPE_MEMCPY:
      return "memcpy";
    case CU_GRAPH_NODE_TYPE_MEMSET:
      return "memset";
    case CU_GRAPH_NODE_TYPE_HOST:
      return "host function";
    case CU_GRAPH_NODE_TYPE_GRAPH:
      return "child graph";
    case CU_GRAPH_NODE_TYPE_EMPTY:
      return "empty";
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
      return "event wait";
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
      return "event record";
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
      return "memory allocation";
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
      return "memory free";
    default:
      return "other";
  }
}

CUgraphNodeType node_type(CUgraphNode n) {
  CUgraphNodeType t = CU_GRAPH_NODE_TYPE_EMPTY;
  WL_CU_CHECK(api().cuGraphNodeGetType(n, &t), "graph node");
  return t;
}

void GraphExecTraits::destroy(CUgraphExec e) noexcept { api().cuGraphExecDestroy(e); }

GraphExec::GraphExec(const Graph& g) {
  if (!g.valid()) throw_destroyed("graph");
  if (g.context()) g.context()->make_current();
  CUgraphExec e = nullptr;
  WL_CU_CHECK(api().cuGraphInstantiateWithFlags(&e, g.get(), 0), "graph");
  h_ = Handle<GraphExecTraits>(g.context(), e);
}

void GraphExec::launch(CUstream stream) const {
  const CUgraphExec e = h_.live("executable graph");
  WL_CU_CHECK(api().cuGraphLaunch(e, stream), "graph");
}

GraphExec::Update GraphExec::update(const Graph& g) {
  const CUgraphExec e = h_.live("graph");
  if (!g.valid()) throw_destroyed("graph");
  CUgraphExecUpdateResultInfo info{};
  const CUresult rc = api().cuGraphExecUpdate(e, g.get(), &info);
  Update u{info.result, info.errorNode};
  if (rc == CUDA_SUCCESS) return {CU_GRAPH_EXEC_UPDATE_SUCCESS, nullptr};
  // The driver's "cannot update": its reason is in info (a generic one if it gave none).
  if (rc == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) {
    if (u.ok()) u.result = CU_GRAPH_EXEC_UPDATE_ERROR;
    return u;
  }
  throw Error(rc, "cuGraphExecUpdate", "graph");
}

}  // namespace warplab::cu
