// capture.hpp: the stream capture behind cuda.graph(fn) and g:update(fn), without Lua: its
// state (idle or capturing, on which stream, started where), a kernel launch captured into
// the graph, the operations it refuses with one sentence naming the capture (a synchronize,
// a synchronous copy, a timed bench, an allocation, a capture inside a capture, work on a
// stream outside it: CaptureOp, each refused by the lab operation itself, never by a front
// end), the arrays the captured work uses (launches and copies report them, so a graph can
// refuse a replay after one was freed instead of faulting), and frees deferred past the
// capture (a free is a synchronizing call, which a capture must not make: a garbage
// collection during fn would otherwise break it). One Capture per run (lab::Run::capture).
#pragma once
#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cu/graph.hpp"
#include "cu/launch.hpp"
#include "lab/array.hpp"

namespace warplab::lab {

struct KernelObj;

// What a capture refuses, each for its own reason (Capture::refuse words it), and where
// it is refused: the lab operation that would run or wait now.
enum class CaptureOp {
  synchronize,     // cuda.synchronize, s:synchronize, e:synchronize, e:elapsed (sync.cpp)
  sync_copy,       // a:copy(b) without a stream (copy.hpp)
  element_access,  // a[i], a:get, a:set, a:zero, fill/iota/random: copies at once (array_fill.cpp)
  bench,           // cuda.bench, k:bench (timing.hpp)
  allocate,        // cuda.array, cuda.host_array; streams and events may be made (array.cpp, managed.cpp)
  query,           // s:query, e:query (sync.cpp)
  prefetch,        // a:prefetch (managed.cpp)
  advise,          // a:advise (managed.cpp)
  graph_launch,    // g:launch (graph.cpp)
  counters,        // cuda.counters, k:counters (counter_session.cpp start_counting)
};

// One buffer the captured work uses. A graph replays only while each is still allocated:
// the record keeps the buffer object (not its memory: a:free() still frees it at once).
struct UsedBuffer {
  std::shared_ptr<const cu::DeviceBuffer> device;  // one of the two is set
  std::shared_ptr<const cu::HostBuffer> host;
  std::string what;  // "an array f32[1024]", "a host array u8[16]"
  bool alive() const { return device ? device->valid() : host && host->valid(); }
};

// Buffers freed during a capture (a:free() or a garbage collection inside fn). Their
// memory goes when this is destroyed, or at free_now(): after the graph that was captured is
// instantiated or updated, never before, since the driver reads the captured nodes'
// device addresses then, and an address freed in between is undefined behaviour there
// (on an H100 the process died with SIGSEGV).
class DeferredFrees {
 public:
  DeferredFrees() = default;
  DeferredFrees(DeferredFrees&& o) noexcept
      : device_(std::move(o.device_)), host_(std::move(o.host_)), graphs_(std::move(o.graphs_)) {
    o.device_.clear();
    o.host_.clear();
    o.graphs_.clear();
  }
  DeferredFrees& operator=(DeferredFrees&& o) noexcept;
  DeferredFrees(const DeferredFrees&) = delete;
  DeferredFrees& operator=(const DeferredFrees&) = delete;
  ~DeferredFrees() { free_now(); }

  void add(std::shared_ptr<cu::DeviceBuffer> b) { device_.push_back(std::move(b)); }
  void add(std::shared_ptr<cu::HostBuffer> b) { host_.push_back(std::move(b)); }
  // A graph freed during a capture (g:free() in fn, its own g:update's included): destroying
  // it is a call the driver forbids while a stream captures (the capture would be
  // invalidated), so its executable and graph go with the buffers.
  void add(cu::GraphExec e, cu::Graph g) { graphs_.push_back({std::move(e), std::move(g)}); }
  bool empty() const noexcept { return device_.empty() && host_.empty() && graphs_.empty(); }
  // Frees them now (idempotent).
  void free_now() noexcept;

 private:
  std::vector<std::shared_ptr<cu::DeviceBuffer>> device_;
  std::vector<std::shared_ptr<cu::HostBuffer>> host_;
  struct Graphs {
    cu::GraphExec exec;
    cu::Graph graph;
  };
  std::vector<Graphs> graphs_;
};

// What a finished capture hands to a graph. `frees` is declared last, so it is destroyed
// first: a Captured dropped without a graph frees its deferred buffers at once, and one
// passed by value to GraphObj frees them once the constructor or update has returned.
struct Captured {
  cu::Graph graph;
  std::vector<UsedBuffer> used;
  std::string label;  // "cuda.graph at x.lua:3"
  DeferredFrees frees;
};

class Capture {
 public:
  Capture() = default;
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  ~Capture() { abort(); }

  bool active() const noexcept { return stream_ != nullptr; }
  CUstream stream() const noexcept { return stream_; }
  // "cuda.graph at x.lua:3" while capturing ("" when idle).
  const std::string& label() const noexcept { return label_; }

  // Starts capturing on `stream` (its own non-blocking stream: a blocking one would join
  // whatever the legacy default stream runs). `who` is the call ("cuda.graph", "g:update"),
  // `where` its script line ("x.lua:3", or ""). Throws Error (bad_input) when a capture is already
  // running: "cuda.graph cannot start during the capture of cuda.graph at x.lua:3: ...".
  void begin(cu::ContextPtr ctx, CUstream stream, std::string_view who, std::string_view where);
  // begin's refusal alone, for a front end that readies the capture first: throws the same
  // Error (bad_input) while a capture runs.
  void check_begin(std::string_view who) const {
    if (active()) [[unlikely]]
      refuse_nested(who);
  }
  // Ends the capture: the graph, the buffers it uses and the frees deferred during it
  // (done once the caller has instantiated or updated the graph: Captured::frees). The
  // capture is over whether or not it succeeds; a capture the driver refused throws
  // Error (bad_input) with one sentence naming it (a stream left unjoined, an invalidated
  // capture), its deferred frees done.
  Captured end();
  // Ends a capture that failed (fn raised): the partial graph is dropped, deferred frees
  // are done. Never throws.
  void abort() noexcept;

  // A kernel launch during the capture, after the preflight (launch.hpp): captured into the
  // graph, not run: on the capture's stream when c names none (the legacy default stream
  // cannot capture), else on a stream in the capture (check_stream). No fault note and no
  // --sync, since nothing runs until the graph is launched.
  void launch(KernelObj& k, cu::LaunchConfig c) const;

  // Throws Error (bad_input) "`what` cannot run during the capture of LABEL: REASON" while capturing.
  void refuse(CaptureOp op, std::string_view what) const {
    if (active()) [[unlikely]]
      refuse_now(op, what);
  }
  // Work that `what` queues on `stream`: while capturing, it must go to a stream in the
  // capture (its own, or one that joined it by waiting for an event recorded in it); the
  // default stream or another stream would run it now, outside the graph: refused.
  void check_stream(CUstream stream, std::string_view what) const {
    if (active() && stream != stream_) [[unlikely]]
      check_other_stream(stream, what);
  }
  // s:free() on a stream in the capture (its own, or one that joined): refused, the
  // capture still needs it ("s:free() cannot run during the capture of ...: ...").
  void check_stream_free(CUstream stream, std::string_view what) const;
  // e:record(s): checked as work on s; while capturing, e is remembered as recorded
  // inside the capture (another stream may wait for it to join).
  void note_record(CUevent e, CUstream stream, std::string_view what);
  // s:wait(e): a stream in the capture may only wait for an event recorded inside it (a
  // graph cannot wait for work outside itself); a stream outside may, and so joins it.
  void check_wait(CUstream stream, CUevent e, std::string_view what) const;

  // The arrays a launch or copy in the capture uses (views count as their buffer): true
  // when the buffer is new to this capture (a front end then keeps its handle alive as
  // long as the graph), false when idle or already reported.
  bool use(const DeviceArray& a) {
    if (active()) [[unlikely]]
      return a.buf.get() != last_device_ && use_device(a);  // the buffer reported last: known
    return false;
  }
  // While capturing: the capture uses a's buffer already (use() would answer false), so a
  // launch that passes it has nothing new to report; a null buffer counts as used.
  bool uses(const DeviceArray& a) { return !a.buf || a.buf.get() == last_device_ || uses_device(a); }
  bool use(const HostArray& h) {
    if (active()) [[unlikely]]
      return use_host(h);
    return false;
  }

  // a:free() or a garbage collection: while capturing, an owner's buffer is kept until the
  // capture ends and freed then (its handle detaches now); otherwise lab::release.
  void release(DeviceArray& a, bool leak);
  void release(HostArray& h, bool leak);
  // g:free() or a garbage collection of a graph: while capturing, its executable and graph
  // are kept until the capture ends (destroying them would invalidate the capture);
  // otherwise destroyed now.
  void release(cu::GraphExec& e, cu::Graph& g);

 private:
  [[noreturn]] void refuse_now(CaptureOp op, std::string_view what) const;
  [[noreturn]] void refuse_nested(std::string_view who) const;
  void check_other_stream(CUstream stream, std::string_view what) const;
  bool use_device(const DeviceArray& a);
  bool uses_device(const DeviceArray& a);
  bool use_host(const HostArray& h);
  void finish() noexcept;  // back to idle, state cleared (deferred frees are the caller's)

  cu::ContextPtr ctx_;
  CUstream stream_ = nullptr;
  // The driver's capture id, shared by streams that joined: asked the first time another
  // stream is checked (id()), so a capture on one stream makes no such call.
  std::uint64_t id() const;
  mutable std::uint64_t id_ = 0;
  std::string label_;
  std::vector<UsedBuffer> used_;
  const cu::DeviceBuffer* last_device_ = nullptr;  // the buffer use() was given last (held in used_)
  std::vector<CUevent> recorded_;                  // events recorded inside the capture
  DeferredFrees deferred_;
};

// "an array f32[1024]" / "a host array u8[16]" (views: the view's own type and length).
std::string describe(const DeviceArray& a);
std::string describe(const HostArray& h);

}  // namespace warplab::lab
