// graph.cpp: stream capture, Graph and GraphExec.
#include "cu/graph.hpp"

#include <utility>

#include "cu/driver.hpp"
#include "cu/error.hpp"

namespace warplab::cu {
namespace {

void require(bool ok, const char* what) {
  if (!ok) throw Error(std::string("use of a destroyed ") + what);
}

// Destroys ignore errors: a destructor must not throw (see memory.cpp).
void set_current_quietly(const ContextPtr& ctx) {
  if (ctx && driver_available()) api().cuCtxSetCurrent(ctx->get());
}

}  // namespace

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
    if (g) api().cuGraphDestroy(g);
    throw Error(rc, "cuStreamEndCapture", "stream");
  }
  return Graph(ctx, g);
}

Graph::Graph(Graph&& o) noexcept : ctx_(std::move(o.ctx_)), g_(std::exchange(o.g_, nullptr)) {}

Graph& Graph::operator=(Graph&& o) noexcept {
  if (this != &o) {
    destroy();
    ctx_ = std::move(o.ctx_);
    g_ = std::exchange(o.g_, nullptr);
  }
  return *this;
}

void Graph::destroy() noexcept {
  if (g_ && driver_available()) {
    set_current_quietly(ctx_);
    api().cuGraphDestroy(g_);
  }
  g_ = nullptr;
  ctx_.reset();
}

std::vector<CUgraphNode> Graph::nodes() const {
  require(g_, "graph");
  std::size_t n = 0;
  WL_CU_CHECK(api().cuGraphGetNodes(g_, nullptr, &n), "graph");
  std::vector<CUgraphNode> out(n);
  if (n) WL_CU_CHECK(api().cuGraphGetNodes(g_, out.data(), &n), "graph");
  out.resize(n);
  return out;
}

std::size_t Graph::node_count() const {
  require(g_, "graph");
  std::size_t n = 0;
  WL_CU_CHECK(api().cuGraphGetNodes(g_, nullptr, &n), "graph");
  return n;
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

GraphExec::GraphExec(const Graph& g) : ctx_(g.context()) {
  require(g.valid(), "graph");
  if (ctx_) ctx_->make_current();
  WL_CU_CHECK(api().cuGraphInstantiateWithFlags(&e_, g.get(), 0), "graph");
}

GraphExec::GraphExec(GraphExec&& o) noexcept : ctx_(std::move(o.ctx_)), e_(std::exchange(o.e_, nullptr)) {}

GraphExec& GraphExec::operator=(GraphExec&& o) noexcept {
  if (this != &o) {
    destroy();
    ctx_ = std::move(o.ctx_);
    e_ = std::exchange(o.e_, nullptr);
  }
  return *this;
}

void GraphExec::destroy() noexcept {
  if (e_ && driver_available()) {
    set_current_quietly(ctx_);
    api().cuGraphExecDestroy(e_);
  }
  e_ = nullptr;
  ctx_.reset();
}

void GraphExec::launch(CUstream stream) const {
  require(e_, "executable graph");
  WL_CU_CHECK(api().cuGraphLaunch(e_, stream), "graph");
}

GraphExec::Update GraphExec::update(const Graph& g) {
  require(e_ && g.valid(), "graph");
  CUgraphExecUpdateResultInfo info{};
  const CUresult rc = api().cuGraphExecUpdate(e_, g.get(), &info);
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
