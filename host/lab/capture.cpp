// capture.cpp: see capture.hpp. The refusals' sentences, the capture's begin and end
// (the driver's end-of-capture codes turned into sentences), a captured launch, used
// arrays, deferred frees.
#include "lab/capture.hpp"

#include <algorithm>
#include <utility>

#include "cu/error.hpp"
#include "lab/launch.hpp"
#include "lab/lines.hpp"

namespace warplab::lab {
namespace {

// Why each operation cannot run while a capture records work without running it.
const char* reason(CaptureOp op) {
  switch (op) {
    case CaptureOp::synchronize:
      return "a capture records work without running it, so there is nothing to wait for yet; "
             "synchronize after g:launch()";
    case CaptureOp::sync_copy:
      return "a copy without a stream runs at once and waits for the GPU; pass {stream = s} with the "
             "capture's stream to record the copy in the graph";
    case CaptureOp::element_access:
      return "reading or writing elements copies at once and waits for the GPU; do it before the capture "
             "or after g:launch() and a synchronize";
    case CaptureOp::bench:
      return "timing needs the work to run now, and a capture only records it; time g:launch() instead";
    case CaptureOp::allocate:
      return "memory allocated inside the capture would not be part of the graph; allocate it before "
             "cuda.graph";
    case CaptureOp::query:
      return "the captured work has not been submitted, so there is nothing to ask about yet";
    case CaptureOp::prefetch:
      return "a prefetch cannot be recorded in a graph; prefetch before the capture or after g:launch()";
    case CaptureOp::advise:
      return "advice takes effect at once, outside stream order; give it before cuda.graph";
    case CaptureOp::graph_launch:
      return "graphs do not nest here; launch it before the capture or after it";
    case CaptureOp::counters:
      return "hardware counters replay each kernel as it runs, and a captured launch runs only when its "
             "graph is launched; count the kernels launched one by one, outside the capture, instead";
  }
  return "";
}

}  // namespace

std::string describe(const DeviceArray& a) {
  return std::string(a.buf && a.buf->is_managed() ? "a managed array " : "an array ") +
         std::string(cu::dtype_info(a.type).name) + "[" + std::to_string(a.count) + "]";
}

std::string describe(const HostArray& h) {
  return "a host array " + std::string(cu::dtype_info(h.type).name) + "[" + std::to_string(h.count) + "]";
}

void Capture::refuse_nested(std::string_view who) const {
  throw Error(ErrorKind::bad_input,
              std::string(who) + " cannot start during the capture of " + label_ +
                  ": captures do not nest; call the inner function directly and its work joins this capture");
}

void Capture::begin(cu::ContextPtr ctx, CUstream stream, std::string_view who, std::string_view where) {
  check_begin(who);
  if (!stream)
    throw Error(ErrorKind::bad_input,
                std::string(who) + " needs a stream of its own to capture on, not the default stream");
  cu::begin_capture(stream);
  ctx_ = std::move(ctx);
  stream_ = stream;
  label_.assign(who);  // in place: the capacity of the last capture's label is reused
  if (!where.empty()) label_.append(" at ").append(where);
}

std::uint64_t Capture::id() const {
  if (!id_) id_ = cu::capture_info(stream_).id;  // asked once, when another stream is checked
  return id_;
}

DeferredFrees& DeferredFrees::operator=(DeferredFrees&& o) noexcept {
  if (this != &o) {
    free_now();
    device_ = std::move(o.device_);
    host_ = std::move(o.host_);
    graphs_ = std::move(o.graphs_);
    o.device_.clear();
    o.host_.clear();
    o.graphs_.clear();
  }
  return *this;
}

void DeferredFrees::free_now() noexcept {
  if (empty()) return;  // the usual capture frees nothing
  for (auto& b : device_) b->free();
  for (auto& b : host_) b->free();
  for (Graphs& g : graphs_) {
    g.exec.destroy();  // the executable before the graph it was made from
    g.graph.destroy();
  }
  device_.clear();
  host_.clear();
  graphs_.clear();
}

Captured Capture::end() {
  if (!active()) throw Error(ErrorKind::bad_input, "no capture is running: nothing to end");
  Captured out;
  out.label = label_;
  out.used = std::move(used_);
  if (!deferred_.empty()) out.frees = std::move(deferred_);  // freed after the caller's instantiate or update
  const std::string label = label_;
  const CUstream s = stream_;
  const cu::ContextPtr ctx = ctx_;
  try {
    stream_ = nullptr;  // the capture is over even if the driver refuses its graph
    out.graph = cu::end_capture(ctx, s);
  } catch (const cu::Error& e) {
    finish();  // `out` goes as this throws: its deferred frees are done
    if (e.code() == CUDA_ERROR_STREAM_CAPTURE_UNJOINED)
      throw Error(ErrorKind::bad_input,
                  "the capture of " + label +
                      " ended with a stream that joined it still unjoined: make the capture's stream wait "
                      "(s:wait(e)) for an event recorded last on each stream that joined");
    if (e.code() == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
      throw Error(ErrorKind::bad_input,
                  "the capture of " + label +
                      " was invalidated by an operation the driver does not allow during a capture (" +
                      cu::error_text(e.code()) + "): nothing was recorded");
    throw;
  }
  finish();
  return out;
}

void Capture::abort() noexcept {
  if (!active()) return;
  const CUstream s = stream_;
  stream_ = nullptr;
  try {
    cu::Graph dropped = cu::end_capture(ctx_, s);  // destroyed here
  } catch (...) {
    // an invalidated capture: nothing to keep
  }
  finish();
}

void Capture::finish() noexcept {
  // Frees still deferred here belong to a capture that produced no graph (abort): done now.
  // A graph that kept the record of a buffer freed this way refuses to replay.
  deferred_.free_now();
  used_.clear();
  last_device_ = nullptr;
  recorded_.clear();
  stream_ = nullptr;
  id_ = 0;
  label_.clear();
  ctx_.reset();
}

void Capture::launch(KernelObj& k, cu::LaunchConfig c) const {
  if (!c.stream)
    c.stream = stream_;
  else
    check_stream(c.stream, "a kernel launch");
  cu::launch(*k.fn, sendable(k, c), k.argptrs.data());
  if (LineSession* l = LineSession::active()) l->record_launch(k);  // counted when the graph runs
}

void Capture::refuse_now(CaptureOp op, std::string_view what) const {
  throw Error(ErrorKind::bad_input,
              std::string(what) + " cannot run during the capture of " + label_ + ": " + reason(op));
}

void Capture::check_other_stream(CUstream stream, std::string_view what) const {
  if (!stream)
    throw Error(ErrorKind::bad_input,
                std::string(what) + " on the default stream cannot be recorded by the capture of " + label_ +
                    ": pass the stream cuda.graph gave the function (stream = s)");
  const cu::CaptureInfo info = cu::capture_info(stream);
  if (info.active() && info.id == id()) return;  // a stream that joined this capture
  throw Error(ErrorKind::bad_input,
              std::string(what) + " on a stream outside the capture of " + label_ +
                  " would run now, not in the graph: use the capture's stream, or make this stream join it "
                  "by waiting for an event recorded on the capture's stream (s:wait(e))");
}

void Capture::check_stream_free(CUstream stream, std::string_view what) const {
  if (!active() || !stream) return;
  bool inside = stream == stream_;
  if (!inside) {
    const cu::CaptureInfo info = cu::capture_info(stream);
    inside = info.active() && info.id == id();
  }
  if (inside)
    throw Error(ErrorKind::bad_input,
                std::string(what) + " cannot run during the capture of " + label_ +
                    ": the stream is part of the capture until it ends; free it after cuda.graph returns");
}

void Capture::note_record(CUevent e, CUstream stream, std::string_view what) {
  if (!active()) return;
  check_stream(stream, what);
  if (std::find(recorded_.begin(), recorded_.end(), e) == recorded_.end()) recorded_.push_back(e);
}

void Capture::check_wait(CUstream stream, CUevent e, std::string_view what) const {
  if (!active()) return;
  const bool inside_event = std::find(recorded_.begin(), recorded_.end(), e) != recorded_.end();
  if (inside_event) return;  // a stream inside waits for captured work, or one outside joins
  bool inside_stream = stream == stream_;
  if (!inside_stream && stream) {
    const cu::CaptureInfo info = cu::capture_info(stream);
    inside_stream = info.active() && info.id == id();
  }
  if (inside_stream)
    throw Error(ErrorKind::bad_input,
                std::string(what) + " cannot wait, during the capture of " + label_ +
                    ", for an event recorded outside it: a graph cannot wait for work outside itself; "
                    "record the event before cuda.graph and wait for it before g:launch()");
}

bool Capture::use_device(const DeviceArray& a) {
  if (!a.buf) return false;
  for (const UsedBuffer& u : used_)
    if (u.device == a.buf) {  // a handful of arrays: a linear search allocates nothing
      last_device_ = a.buf.get();
      return false;
    }
  used_.push_back({a.buf, nullptr, describe(a)});
  last_device_ = a.buf.get();  // used_ holds it: no other buffer takes its address meanwhile
  return true;
}

bool Capture::uses_device(const DeviceArray& a) {
  for (const UsedBuffer& u : used_)
    if (u.device == a.buf) {
      last_device_ = a.buf.get();
      return true;
    }
  return false;
}

bool Capture::use_host(const HostArray& h) {
  if (!h.buf) return false;
  for (const UsedBuffer& u : used_)
    if (u.host == h.buf) return false;
  used_.push_back({nullptr, h.buf, describe(h)});
  return true;
}

void Capture::release(DeviceArray& a, bool leak) {
  if (active() && a.buf && !a.view && !leak) {
    deferred_.add(std::move(a.buf));  // freed after the graph is made (Captured::frees)
    a.buf.reset();
    return;
  }
  lab::release(a, leak);
}

void Capture::release(HostArray& h, bool leak) {
  if (active() && h.buf && !h.view && !leak) {
    deferred_.add(std::move(h.buf));
    h.buf.reset();
    return;
  }
  lab::release(h, leak);
}

void Capture::release(cu::GraphExec& e, cu::Graph& g) {
  if (active() && (e.valid() || g.valid())) {
    deferred_.add(std::move(e), std::move(g));  // destroyed after the graph being captured is made
    e = cu::GraphExec();
    g = cu::Graph();
    return;
  }
  e.destroy();
  g.destroy();
}

}  // namespace warplab::lab
