// graph.cpp: see graph.hpp. Instantiation, the refusals of a replay, update in place or
// by a new instantiation and the sentence that says why.
#include "lab/graph.hpp"

#include <algorithm>
#include <utility>

#include "lab/counters.hpp"
#include "lab/sync.hpp"
#include "sys/text.hpp"

namespace warplab::lab {
namespace {

// The position of `node` among `nodes`, 1-based as Lua counts (0: not found).
std::size_t index_of(const std::vector<CUgraphNode>& nodes, CUgraphNode node) {
  const auto it = std::find(nodes.begin(), nodes.end(), node);
  return it == nodes.end() ? 0 : static_cast<std::size_t>(it - nodes.begin()) + 1;
}

}  // namespace

GraphObj::GraphObj(Captured c) : label_(std::move(c.label)) {
  exec_ = cu::GraphExec(c.graph);
  nodes_ = c.graph.node_count();
  graph_ = std::move(c.graph);
  used_ = std::move(c.used);
}

std::size_t GraphObj::nodes() const {
  if (freed()) throw Error(ErrorKind::bad_input, kFreedGraph);
  return nodes_;
}

void GraphObj::refuse_launch(const Capture& cap) const {
  if (freed()) throw Error(ErrorKind::bad_input, kFreedGraph);
  cap.refuse(CaptureOp::graph_launch, "g:launch");
  throw Error(ErrorKind::bad_input, "g:launch: refused");  // not reached: refuse throws while a capture runs
}

void refuse_counted_graph(const GraphObj& g) {
  throw Error(
      ErrorKind::bad_input,
      "g:launch cannot run while hardware counters count (cuda.counters, k:counters, run --counters): "
      "CUPTI counts a graph's replay as one launch, without its kernels' names, and its replay passes "
      "change what the graph computes; count the kernels of " +
          g.label() + " launched one by one instead (call the function you captured outside cuda.graph)");
}

void GraphObj::freed_buffer(const UsedBuffer& u) const {
  throw Error(ErrorKind::bad_input,
              "g:launch: the graph captured by " + label_ + " uses " + u.what +
                  " that was freed, so a replay would read freed memory; capture again with g:update(fn), or "
                  "free the array only after the graph");
}

std::string GraphObj::update_refusal(const cu::GraphExec::Update& u, const cu::Graph& next,
                                     std::size_t nodes_after) const {
  const std::vector<CUgraphNode> now = u.error_node ? next.nodes() : std::vector<CUgraphNode>{};
  const std::size_t i = u.error_node ? index_of(now, u.error_node) : 0;
  const std::string node = i ? "node " + std::to_string(i) : std::string("a node");
  switch (u.result) {
    case CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED:
      if (nodes_after != nodes_)
        return "the topology changed (" + sys::plural(nodes_, "node") + " -> " + std::to_string(nodes_after) +
               ")";
      return "the topology changed (the same " + sys::plural(nodes_, "node") + ", linked differently)";
    case CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED: {
      if (!i) return "a node changed its type";
      const std::vector<CUgraphNode> before = graph_.nodes();
      const std::string to = cu::node_type_name(cu::node_type(u.error_node));
      if (i <= before.size())
        return node + " changed from " + cu::node_type_name(cu::node_type(before[i - 1])) + " to " + to;
      return node + " changed its type (now " + to + ")";
    }
    case CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED:
    case CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE:
      return node + " launches another kernel in a way the driver cannot update in place";
    case CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED:
      return node + "'s parameters changed in a way the driver cannot update in place";
    case CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED:
      return node + "'s launch attributes changed in a way the driver cannot update in place";
    case CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED:
      return node + " is of a kind the driver cannot update in place";
    default:
      return "the driver could not update it in place";
  }
}

GraphUpdate GraphObj::update(Captured c) {
  if (freed()) throw Error(ErrorKind::bad_input, kFreedGraph);
  GraphUpdate r;
  // An update in place needs the same topology, the count of nodes first (cuGraphExecUpdate
  // refuses another count): the count is asked of the driver only when it was refused.
  r.nodes_before = r.nodes_after = nodes_;
  // An executable whose nodes point at freed memory is not handed to cuGraphExecUpdate,
  // which compares the old nodes' operands with the new ones: instantiated anew instead.
  const auto dead = std::find_if(used_.begin(), used_.end(), [](const UsedBuffer& u) { return !u.alive(); });
  if (dead != used_.end()) {
    r.reinstantiated = true;
    r.nodes_after = c.graph.node_count();
    r.why = "the old graph used " + dead->what + " that was freed";
    exec_ = cu::GraphExec(c.graph);
  } else if (const cu::GraphExec::Update u = exec_.update(c.graph); !u.ok()) {
    r.reinstantiated = true;
    r.nodes_after = c.graph.node_count();
    r.why = update_refusal(u, c.graph, r.nodes_after);
    exec_ = cu::GraphExec(c.graph);  // the old executable goes only once the new one exists
  }
  graph_ = std::move(c.graph);
  used_ = std::move(c.used);
  label_ = std::move(c.label);
  nodes_ = r.nodes_after;
  return r;
}

void launch(Run& run, const GraphObj& g, CUstream stream, const Where& where) {
  g.check_launch(run.capture);
  if (CounterSession::active()) [[unlikely]]
    refuse_counted_graph(g);
  cu::LaunchConfig c;
  c.stream = stream;
  LaunchNote& n = run.note_launch(g.label(), c, cu::KernelLimits{}, where);
  n.nodes = static_cast<unsigned>(g.nodes());
  try {
    g.replay(stream);
  } catch (const cu::Error&) {
    run.faults.forget();
    throw;
  }
  if (run.opts.sync) synchronize_launched(run);
}

void GraphObj::free(Capture& cap) noexcept {
  cap.release(exec_, graph_);
  used_.clear();
  nodes_ = 0;
}

}  // namespace warplab::lab
