// fake_graph.cpp: stream capture and graphs for the stand-in libcuda.so.1 (fake_driver.cpp
// has the rest). A capture collects the work queued on its streams as nodes instead of
// running it; a stream joins a capture by waiting for an event recorded in it and must be
// joined back before the capture ends (else CUDA_ERROR_STREAM_CAPTURE_UNJOINED); while this
// thread captures in THREAD_LOCAL or GLOBAL mode a synchronizing call fails and invalidates
// the capture, as does destroying a graph or an executable graph. A replay runs the nodes in order (kernels
// count as launches, copies copy). cuGraphExecUpdate refuses a changed node count (topology) or a changed
// node type and, as drivers since CUDA 11.2 do, accepts a kernel node that launches another function. Needs
// cuda.h only.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "fake_driver.hpp"

namespace fake {

struct Graph {
  std::vector<Node*> nodes;  // the node handles are these addresses
  ~Graph() {
    for (Node* n : nodes) delete n;
  }
};
struct Exec {
  std::vector<Node> nodes;
};
struct Capture {
  Graph* graph = nullptr;
  std::uint64_t id = 0;
  bool invalidated = false;
  bool strict = false;  // THREAD_LOCAL or GLOBAL: synchronizing calls are refused
  Stream* origin = nullptr;
  std::vector<Stream*> streams;  // the origin and every stream that joined
};

namespace {

std::uint64_t g_next_id = 0;
std::vector<Capture*> g_live;   // captures in progress
thread_local int t_strict = 0;  // of them, begun by this thread in a strict mode

CUresult ok() { return CUDA_SUCCESS; }

Capture* live(std::uint64_t id) {
  for (Capture* c : g_live)
    if (c->id == id) return c;
  return nullptr;
}

// The event's capture, while it is still in progress.
Capture* capture_of(const Event* e) { return e->capture_id ? live(e->capture_id) : nullptr; }

CUresult f_begin(CUstream s, CUstreamCaptureMode mode) {
  Stream* st = stream_of(s);
  if (!st) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;  // the legacy stream cannot capture
  if (st->capture) return CUDA_ERROR_ILLEGAL_STATE;
  auto* c = new Capture{new Graph, ++g_next_id, false, mode != CU_STREAM_CAPTURE_MODE_RELAXED, st, {st}};
  st->capture = c;
  st->pending = false;
  g_live.push_back(c);
  if (c->strict) ++t_strict;
  return ok();
}

CUresult f_end(CUstream s, CUgraph* out) {
  *out = nullptr;
  Stream* st = stream_of(s);
  if (!st || !st->capture) return CUDA_ERROR_ILLEGAL_STATE;
  Capture* c = st->capture;
  if (c->origin != st) return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
  bool unjoined = false;
  for (Stream* j : c->streams) {
    unjoined = unjoined || (j != st && j->pending);
    j->capture = nullptr;
    j->pending = false;
  }
  g_live.erase(std::find(g_live.begin(), g_live.end(), c));
  if (c->strict) --t_strict;
  const CUresult rc = c->invalidated ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
                      : unjoined     ? CUDA_ERROR_STREAM_CAPTURE_UNJOINED
                                     : CUDA_SUCCESS;
  if (rc == CUDA_SUCCESS)
    *out = reinterpret_cast<CUgraph>(c->graph);
  else
    delete c->graph;
  delete c;
  return rc;
}

CUresult f_is_capturing(CUstream s, CUstreamCaptureStatus* status) {
  const Stream* st = stream_of(s);
  *status = !st || !st->capture        ? CU_STREAM_CAPTURE_STATUS_NONE
            : st->capture->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                                       : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  return ok();
}

CUresult f_capture_info(CUstream s, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* graph,
                        const CUgraphNode**, const CUgraphEdgeData**, size_t* n) {
  f_is_capturing(s, status);
  const Stream* st = stream_of(s);
  if (id) *id = st && st->capture ? st->capture->id : 0;
  if (graph) *graph = st && st->capture ? reinterpret_cast<CUgraph>(st->capture->graph) : nullptr;
  if (n) *n = 0;
  return ok();
}

CUresult f_instantiate(CUgraphExec* e, CUgraph g, unsigned long long) {
  for (const Node* n : reinterpret_cast<Graph*>(g)->nodes)
    if (!operands_live(*n)) return CUDA_ERROR_INVALID_VALUE;  // a real driver's undefined behaviour
  auto* x = new Exec;
  for (const Node* n : reinterpret_cast<Graph*>(g)->nodes) x->nodes.push_back(*n);
  *e = reinterpret_cast<CUgraphExec>(x);
  return ok();
}

CUresult f_graph_launch(CUgraphExec e, CUstream s) {
  if (record(s, Node{CU_GRAPH_NODE_TYPE_GRAPH})) return ok();
  if (g_sticky != CUDA_SUCCESS) return g_sticky;
  submitted();  // one range for a profiler, as CUPTI counts a replay
  for (const Node& n : reinterpret_cast<Exec*>(e)->nodes) {
    if (n.type == CU_GRAPH_NODE_TYPE_KERNEL)
      run_kernel(n.fn);
    else
      run_node(n);
  }
  return ok();
}

CUresult f_update(CUgraphExec e, CUgraph g, CUgraphExecUpdateResultInfo* info) {
  auto* x = reinterpret_cast<Exec*>(e);
  const auto& nodes = reinterpret_cast<Graph*>(g)->nodes;
  *info = {CU_GRAPH_EXEC_UPDATE_SUCCESS, nullptr, nullptr};
  // The old nodes' operands are compared with the new ones': freed ones are undefined
  // behaviour on a real driver, as at instantiation.
  for (const Node& n : x->nodes)
    if (!operands_live(n)) return CUDA_ERROR_INVALID_VALUE;
  for (const Node* n : nodes)
    if (!operands_live(*n)) return CUDA_ERROR_INVALID_VALUE;
  if (nodes.size() != x->nodes.size()) {
    info->result = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i]->type != x->nodes[i].type) {
      *info = {CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED, reinterpret_cast<CUgraphNode>(nodes[i]),
               nullptr};
      return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    }
  for (std::size_t i = 0; i < nodes.size(); ++i) x->nodes[i] = *nodes[i];
  return ok();
}

CUresult f_nodes(CUgraph g, CUgraphNode* out, size_t* n) {
  const auto& nodes = reinterpret_cast<Graph*>(g)->nodes;
  if (out)
    for (std::size_t i = 0; i < *n; ++i)
      out[i] = i < nodes.size() ? reinterpret_cast<CUgraphNode>(nodes[i]) : nullptr;
  *n = nodes.size();
  return ok();
}

CUresult f_node_type(CUgraphNode n, CUgraphNodeType* t) {
  *t = reinterpret_cast<Node*>(n)->type;
  return ok();
}

// Destroying a graph or an executable graph while this thread captures invalidates the
// capture, as an H200's driver 580 does (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED at its end).
CUresult f_graph_destroy(CUgraph g) {
  if (refused_during_capture()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  delete reinterpret_cast<Graph*>(g);
  return ok();
}

CUresult f_exec_destroy(CUgraphExec e) {
  if (refused_during_capture()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  delete reinterpret_cast<Exec*>(e);
  return ok();
}

#define E(name, fn) \
  { name, reinterpret_cast<void*>(&fn) }
const Entry kEntries[] = {
    E("cuStreamBeginCapture", f_begin),
    E("cuStreamEndCapture", f_end),
    E("cuStreamIsCapturing", f_is_capturing),
    E("cuStreamGetCaptureInfo", f_capture_info),
    E("cuGraphInstantiateWithFlags", f_instantiate),
    E("cuGraphLaunch", f_graph_launch),
    E("cuGraphExecUpdate", f_update),
    E("cuGraphGetNodes", f_nodes),
    E("cuGraphNodeGetType", f_node_type),
    E("cuGraphDestroy", f_graph_destroy),
    E("cuGraphExecDestroy", f_exec_destroy),
};
#undef E

}  // namespace

bool record(CUstream s, const Node& n) {
  Stream* st = stream_of(s);
  if (!st || !st->capture) [[likely]]
    return false;
  if (!st->capture->invalidated) st->capture->graph->nodes.push_back(new Node(n));
  if (st != st->capture->origin) st->pending = true;
  return true;
}

bool refused_during_capture() {
  if (t_strict == 0) [[likely]]
    return false;
  for (Capture* c : g_live) c->invalidated = true;
  return true;
}

void event_recorded(CUevent e, CUstream s) {
  auto* ev = reinterpret_cast<Event*>(e);
  Stream* st = stream_of(s);
  ev->src = st;
  ev->capture_id = st && st->capture ? st->capture->id : 0;
  if (!ev->capture_id) ev->at = Clock::now();
}

CUresult stream_wait(CUstream s, CUevent e) {
  Stream* st = stream_of(s);
  auto* ev = reinterpret_cast<Event*>(e);
  Capture* c = capture_of(ev);
  if (!c) {  // an event outside any capture: a capturing stream cannot wait for it
    if (st && st->capture) {
      st->capture->invalidated = true;
      return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
    }
    return ok();
  }
  if (!st) return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  if (!st->capture) {  // a fork: the stream joins the capture
    st->capture = c;
    st->pending = true;
    c->streams.push_back(st);
    return ok();
  }
  if (st->capture != c) return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
  if (ev->src && ev->src != st) ev->src->pending = false;  // a join back
  return ok();
}

const Entry* graph_entries(std::size_t* n) {
  *n = sizeof kEntries / sizeof kEntries[0];
  return kEntries;
}

}  // namespace fake
