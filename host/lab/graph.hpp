// graph.hpp: the record behind cuda.graph's handle, without Lua: a captured graph and its
// executable form, the buffers its work uses, where it was captured. g:launch refuses,
// with one sentence, a freed graph, a launch during a capture, and a replay after one of
// its arrays was freed (the replay would read freed memory); g:update replaces the work
// with a new capture, in place when the driver can (cuGraphExecUpdate) and by a new
// instantiation when it cannot, saying why (the topology or a node changed).
#pragma once
#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

#include "cu/graph.hpp"
#include "lab/capture.hpp"
#include "lab/fault.hpp"
#include "lab/run.hpp"

namespace warplab::lab {

// What g:update did: updated in place, or instantiated again and why.
struct GraphUpdate {
  bool reinstantiated = false;
  std::string
      why;  // "" in place; "the topology changed (3 nodes -> 4)", "node 2 changed from kernel to memcpy"
  std::size_t nodes_before = 0, nodes_after = 0;
};

class GraphObj {
 public:
  GraphObj() = default;  // empty (freed)
  // Instantiates the captured work (cuGraphInstantiateWithFlags); the capture's deferred
  // frees are done after it, when `c` goes.
  explicit GraphObj(Captured c);

  bool freed() const noexcept { return !exec_.valid(); }
  // The node count of the captured graph; throws "attempt to use a freed graph".
  std::size_t nodes() const;
  // "cuda.graph at x.lua:3": where the work was captured (last by g:update).
  const std::string& label() const noexcept { return label_; }
  const std::vector<UsedBuffer>& used() const noexcept { return used_; }

  // What refuses a replay: throws Error (bad_input) when the graph was freed, a capture is
  // running (`cap`), or one of its arrays was freed ("g:launch: the graph captured by
  // cuda.graph at x.lua:3 uses an array f32[1024] that was freed; ..."). Nothing is checked
  // but a flag per used buffer: a replay stays cheap.
  void check_launch(const Capture& cap) const {
    if (freed() || cap.active()) [[unlikely]]
      refuse_launch(cap);
    for (const UsedBuffer& u : used_)
      if (!u.alive()) [[unlikely]]
        freed_buffer(u);
  }
  // The replay alone, on `stream` (nullptr: the legacy default stream); lab::launch checks,
  // notes it in the fault ring, then replays.
  void replay(CUstream stream) const { exec_.launch(stream); }

  // Takes the work of a new capture (g:update): cuGraphExecUpdate, and when the driver
  // refuses (or an array the old graph used was freed), a new instantiation; the report
  // says which and why. The capture's deferred frees are done after it, on return.
  GraphUpdate update(Captured c);

  // Releases the graph; idempotent. Later use throws "attempt to use a freed graph".
  // During a capture (`cap` active) the driver's objects go when the capture ends.
  void free(Capture& cap) noexcept;

 private:
  [[noreturn]] void refuse_launch(const Capture& cap) const;
  [[noreturn]] void freed_buffer(const UsedBuffer& u) const;
  // The sentence for an update the driver refused, naming the node by its index.
  std::string update_refusal(const cu::GraphExec::Update& u, const cu::Graph& next,
                             std::size_t nodes_after) const;

  cu::Graph graph_;
  cu::GraphExec exec_;
  std::vector<UsedBuffer> used_;
  std::string label_;
  std::size_t nodes_ = 0;
};

// "attempt to use a freed graph": the sentence of every use after free.
inline constexpr const char* kFreedGraph = "attempt to use a freed graph";

// g:launch([stream]) made at `where`: g's refusals (GraphObj::check_launch); refused while
// hardware counters count (refuse_counted_graph); then the replay noted in run.faults as one
// entry (Run::note_launch: a fault or the watchdog names the graph, where it was captured
// and launched, and the stream) and made; with opts.sync waited for.
void launch(Run& run, const GraphObj& g, CUstream stream, const Where& where);

// Throws Error (bad_input) "g:launch cannot run while hardware counters count ...": CUPTI's
// range profiler counts a graph's replay as one range that names no kernel, and replaying
// a graph for its passes changed what the graph computed (two kernels that each add 1 to
// an element left 1, not 2, on an H200). An instrument must not change what it measures,
// so the replay is refused before it runs; kernels launched one by one are counted.
[[noreturn]] void refuse_counted_graph(const GraphObj& g);

}  // namespace warplab::lab
