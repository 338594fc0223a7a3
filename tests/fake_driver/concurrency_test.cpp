// concurrency_test.cpp: the driver paths of streams, events, stream capture, graphs and
// managed memory in host/cu and host/lab, run against the stand-in driver
// (bench/fake_driver.cpp, fake_graph.cpp: this binary's RUNPATH finds it first), offline:
// stream priorities and their range, events without timing, the capture state machine
// and every sentence it says, a graph's replay, update and refusals, asynchronous copies
// with pinned and pageable memory, managed buffers. No GPU, no Lua.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cu/device.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/graph.hpp"
#include "cu/module.hpp"
#include "cu/stream.hpp"
#include "lab/capture.hpp"
#include "lab/copy.hpp"
#include "lab/graph.hpp"
#include "lab/managed.hpp"
#include "lab/stream.hpp"

using namespace warplab;
using cu::DType;

namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// g:launch without the fault ring (lab::launch adds it): the refusals, then the replay.
void replay(const lab::GraphObj& g, const lab::Capture& cap, CUstream stream) {
  g.check_launch(cap);
  g.replay(stream);
}

// The stand-in's context, or a skip when the real driver (or none) answered.
class FakeDriver : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto why = cu::driver_unavailable()) GTEST_SKIP() << "no driver: " << *why;
    if (cu::snapshot_device(0).name.find("fake driver") == std::string::npos)
      GTEST_SKIP() << "the driver found is not the stand-in (bench/fake_driver.cpp)";
    ctx = cu::primary_context(0);
    module = cu::Module::load_cubin(ctx, "stand-in", "k.cu");
  }

  CUfunction kernel(const char* name) const { return module->function(name)->get(); }
  void launch(CUfunction f, CUstream s) const {
    WL_CU_CHECK(cu::api().cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, nullptr, nullptr), "kernel");
  }
  lab::DeviceArray array(DType t, std::size_t n) const {
    lab::DeviceArray a;
    a.type = t;
    a.count = n;
    a.buf = std::make_shared<cu::DeviceBuffer>(ctx, n * a.elem());
    a.buf->memset(0);
    return a;
  }
  lab::HostArray host(DType t, std::size_t n, bool pinned) const {
    lab::HostArray h;
    h.type = t;
    h.count = n;
    h.buf = std::make_shared<cu::HostBuffer>(pinned ? cu::HostBuffer::pinned(ctx, n * h.elem())
                                                    : cu::HostBuffer::pageable(n * h.elem()));
    return h;
  }
  static std::vector<int> ints(const lab::DeviceArray& a) {
    std::vector<int> out(a.count);
    a.buf->copy_to_host(out.data(), a.bytes(), a.byte_offset());
    return out;
  }
  // Captures body(stream) into a graph, as cuda.graph(fn) will.
  template <class Body>
  lab::Captured capture(lab::Capture& cap, const cu::Stream& s, Body&& body, const char* where = "x.lua:3") {
    cap.begin(ctx, s.get(), "cuda.graph", where);
    try {
      body();
    } catch (...) {
      cap.abort();
      throw;
    }
    return cap.end();
  }

  cu::ContextPtr ctx;
  std::shared_ptr<cu::Module> module;
};

}  // namespace

TEST_F(FakeDriver, StreamPrioritiesComeFromTheDevice) {
  const cu::PriorityRange r = cu::stream_priorities(ctx);
  EXPECT_EQ(r.least, 0);
  EXPECT_EQ(r.greatest, -5);
  EXPECT_TRUE(r.contains(-3));
  EXPECT_FALSE(r.contains(1));
  const cu::Stream s(ctx, true, lab::check_priority(-3, r));
  EXPECT_EQ(s.priority(), -3);
  EXPECT_EQ(cu::Stream(ctx).priority(), 0);
  EXPECT_EQ(error_of([&] { lab::check_priority(-9, r); }),
            "cuda.stream: priority -9 is outside this device's range, -5 (highest) to 0 (lowest); a smaller "
            "number runs first");
}

TEST_F(FakeDriver, TheStreamBookNumbersStreamsAndKnowsWhichAreBusy) {
  lab::StreamBook book;
  const cu::Stream a(ctx, true), b(ctx, false);
  EXPECT_EQ(book.add(a, true), 1);
  EXPECT_EQ(book.add(b, false), 2);
  EXPECT_EQ(book.note(nullptr), 0);  // the legacy default stream
  EXPECT_EQ(book.note(b.get()), 2);
  EXPECT_TRUE(book.busy().empty());  // a blocking stream: the default stream's wait covers it
  EXPECT_EQ(book.note(a.get()), 1);
  ASSERT_EQ(book.busy().size(), 1u);
  EXPECT_EQ(book.busy()[0], &a);
  EXPECT_TRUE(book.non_blocking(a.get()));
  EXPECT_FALSE(book.non_blocking(b.get()));
  book.settled();
  EXPECT_TRUE(book.busy().empty());
  book.remove(a);
  EXPECT_EQ(book.note(a.get()), 0);
  const cu::Stream c(ctx, true);
  EXPECT_EQ(book.add(c, true), 3);  // a number is never given twice in a run
}

TEST_F(FakeDriver, EventsWithoutTimingOrderButDoNotTime) {
  const cu::Stream a(ctx), b(ctx);
  cu::Event plain(ctx, false), t0(ctx), t1(ctx);
  EXPECT_FALSE(plain.timing());
  EXPECT_TRUE(t0.timing());
  plain.record(a.get());
  b.wait(plain);  // b's later work waits for a's work so far
  EXPECT_TRUE(plain.query());
  t0.record(a.get());
  t1.record(a.get());
  EXPECT_GE(cu::elapsed_ms(t0, t1), 0.0f);
  const std::string no_timing =
      "an event made without timing cannot be timed: make both events with timing (the default)";
  EXPECT_EQ(error_of([&] { cu::elapsed_ms(plain, t1); }), no_timing);
  EXPECT_EQ(error_of([&] { cu::elapsed_ms(t0, plain); }), no_timing);
  cu::Event moved = std::move(plain);  // the flag moves with the handle
  EXPECT_FALSE(moved.timing());
}

TEST_F(FakeDriver, CaptureRefusesWhatWouldRunNow) {
  const cu::Stream s(ctx), other(ctx);
  lab::DeviceArray a = array(DType::F32, 4), b = array(DType::F32, 4);
  lab::Capture cap;
  cap.begin(ctx, s.get(), "cuda.graph", "x.lua:3");
  EXPECT_TRUE(cap.active());
  EXPECT_EQ(cap.stream(), s.get());
  EXPECT_EQ(cap.label(), "cuda.graph at x.lua:3");
  EXPECT_EQ(
      error_of([&] { cap.refuse(lab::CaptureOp::synchronize, "cuda.synchronize()"); }),
      "cuda.synchronize() cannot run during the capture of cuda.graph at x.lua:3: a capture records work "
      "without running it, so there is nothing to wait for yet; synchronize after g:launch()");
  EXPECT_EQ(
      error_of([&] { cap.refuse(lab::CaptureOp::bench, "k:bench"); }),
      "k:bench cannot run during the capture of cuda.graph at x.lua:3: timing needs the work to run now, "
      "and a capture only records it; time g:launch() instead");
  EXPECT_EQ(
      error_of([&] { lab::copy_now(cap, a, b); }),
      "a:copy(b) without a stream cannot run during the capture of cuda.graph at x.lua:3: a copy without "
      "a stream runs at once and waits for the GPU; pass {stream = s} with the capture's stream to "
      "record the copy in the graph");
  // Every refusal names the capture; none is a driver code.
  for (const auto op : {lab::CaptureOp::element_access, lab::CaptureOp::allocate, lab::CaptureOp::query,
                        lab::CaptureOp::prefetch, lab::CaptureOp::advise, lab::CaptureOp::graph_launch}) {
    const std::string e = error_of([&] { cap.refuse(op, "x"); });
    EXPECT_EQ(e.rfind("x cannot run during the capture of cuda.graph at x.lua:3: ", 0), 0u) << e;
    EXPECT_EQ(e.find("CUDA_ERROR"), std::string::npos) << e;
  }
  EXPECT_EQ(
      error_of([&] { cap.check_stream(nullptr, "a kernel launch"); }),
      "a kernel launch on the default stream cannot be recorded by the capture of cuda.graph at x.lua:3: "
      "pass the stream cuda.graph gave the function (stream = s)");
  EXPECT_EQ(
      error_of([&] { cap.check_stream(other.get(), "a:copy"); }),
      "a:copy on a stream outside the capture of cuda.graph at x.lua:3 would run now, not in the graph: "
      "use the capture's stream, or make this stream join it by waiting for an event recorded on the "
      "capture's stream (s:wait(e))");
  // The refused operations never reached the driver: the capture is still good.
  const lab::Captured c = cap.end();
  EXPECT_FALSE(cap.active());
  EXPECT_EQ(c.graph.node_count(), 0u);
  EXPECT_EQ(cap.label(), "");
}

TEST_F(FakeDriver, CapturesDoNotNest) {
  const cu::Stream s(ctx), s2(ctx);
  lab::Capture cap;
  cap.begin(ctx, s.get(), "cuda.graph", "x.lua:3");
  EXPECT_EQ(error_of([&] { cap.begin(ctx, s2.get(), "cuda.graph", "x.lua:4"); }),
            "cuda.graph cannot start during the capture of cuda.graph at x.lua:3: captures do not nest; call "
            "the inner function directly and its work joins this capture");
  EXPECT_TRUE(cap.active());  // the outer capture goes on
  EXPECT_EQ(cap.label(), "cuda.graph at x.lua:3");
  cap.abort();
  EXPECT_FALSE(cap.active());
  EXPECT_FALSE(cu::capture_info(s.get()).active());
  EXPECT_EQ(error_of([&] { cap.begin(ctx, nullptr, "cuda.graph", ""); }),
            "cuda.graph needs a stream of its own to capture on, not the default stream");
}

TEST_F(FakeDriver, ADriverRefusalInvalidatesTheCaptureAndEndSaysSo) {
  // Why warplab refuses first: a synchronous call reaching the driver breaks the capture.
  const cu::Stream s(ctx);
  lab::Capture cap;
  lab::DeviceArray a = array(DType::I32, 4);
  cap.begin(ctx, s.get(), "g:update", "x.lua:9");
  const int v = 1;
  try {
    a.buf->copy_from_host(&v, sizeof v);
    FAIL() << "the stand-in let a synchronous copy run during a capture";
  } catch (const cu::Error& e) {
    EXPECT_EQ(e.code(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  }
  EXPECT_EQ(
      error_of([&] { cap.end(); }),
      "the capture of g:update at x.lua:9 was invalidated by an operation the driver does not allow "
      "during a capture (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED (operation failed due to a previous error "
      "during capture)): nothing was recorded");
  EXPECT_FALSE(cap.active());
}

TEST_F(FakeDriver, StreamsJoinACaptureThroughEventsAndMustJoinBack) {
  const cu::Stream s(ctx), side(ctx);
  cu::Event fork(ctx, false), join(ctx, false), outside(ctx, false);
  outside.record(side.get());
  lab::Capture cap;
  cap.begin(ctx, s.get(), "cuda.graph", "x.lua:3");
  EXPECT_EQ(
      error_of([&] { cap.check_wait(s.get(), outside.get(), "s:wait(e)"); }),
      "s:wait(e) cannot wait, during the capture of cuda.graph at x.lua:3, for an event recorded outside "
      "it: a graph cannot wait for work outside itself; record the event before cuda.graph and wait for "
      "it before g:launch()");
  cap.note_record(fork.get(), s.get(), "e:record");
  fork.record(s.get());
  cap.check_wait(side.get(), fork.get(), "s:wait(e)");
  side.wait(fork);  // side joins the capture
  EXPECT_EQ(error_of([&] { cap.check_stream(side.get(), "a kernel launch"); }), "");
  EXPECT_EQ(
      error_of([&] { cap.check_stream_free(side.get(), "s:free()"); }),
      "s:free() cannot run during the capture of cuda.graph at x.lua:3: the stream is part of the capture "
      "until it ends; free it after cuda.graph returns");
  EXPECT_EQ(error_of([&] { cap.check_stream_free(s.get(), "s:free()"); }).rfind("s:free() cannot run", 0),
            0u);
  const cu::Stream unrelated(ctx);
  EXPECT_EQ(error_of([&] { cap.check_stream_free(unrelated.get(), "s:free()"); }), "");
  launch(kernel("k1"), s.get());
  launch(kernel("k2"), side.get());
  cap.note_record(join.get(), side.get(), "e:record");
  join.record(side.get());
  cap.check_wait(s.get(), join.get(), "s:wait(e)");
  s.wait(join);  // and joins back
  lab::GraphObj g(cap.end());
  EXPECT_EQ(g.nodes(), 2u);

  // The same without the join back: the capture's end says what is missing.
  cap.begin(ctx, s.get(), "cuda.graph", "x.lua:7");
  cap.note_record(fork.get(), s.get(), "e:record");
  fork.record(s.get());
  side.wait(fork);
  launch(kernel("k2"), side.get());
  EXPECT_EQ(
      error_of([&] { cap.end(); }),
      "the capture of cuda.graph at x.lua:7 ended with a stream that joined it still unjoined: make the "
      "capture's stream wait (s:wait(e)) for an event recorded last on each stream that joined");
  EXPECT_FALSE(cu::capture_info(side.get()).active());
}

TEST_F(FakeDriver, AGraphRecordsCopiesAndReplaysThem) {
  const cu::Stream s(ctx);
  lab::Capture cap;
  lab::DeviceArray a = array(DType::I32, 4), b = array(DType::I32, 4);
  lab::HostArray h = host(DType::I32, 4, true);
  lab::GraphObj g(capture(cap, s, [&] {
    lab::copy_async(cap, a, h, s.get());  // host -> a
    launch(kernel("k1"), s.get());
    lab::copy_async(cap, b, a, s.get());  // a -> b
  }));
  EXPECT_EQ(g.nodes(), 3u);
  EXPECT_EQ(g.label(), "cuda.graph at x.lua:3");
  ASSERT_EQ(g.used().size(), 3u);  // a, the host array, b: each once
  EXPECT_EQ(g.used()[0].what, "an array i32[4]");
  EXPECT_EQ(g.used()[1].what, "a host array i32[4]");
  const int v[4] = {5, 6, 7, 8};
  std::memcpy(h.data(), v, sizeof v);
  EXPECT_EQ(ints(b), (std::vector<int>{0, 0, 0, 0}));  // recorded, not run
  replay(g, cap, s.get());
  s.synchronize();
  EXPECT_EQ(ints(b), (std::vector<int>{5, 6, 7, 8}));
  int w[4] = {1, 1, 2, 3};
  std::memcpy(h.data(), w, sizeof w);
  replay(g, cap, nullptr);  // a replay reads the host array anew
  EXPECT_EQ(ints(b), (std::vector<int>{1, 1, 2, 3}));
}

TEST_F(FakeDriver, AReplayAfterItsArrayWasFreedIsRefused) {
  const cu::Stream s(ctx);
  lab::Capture cap;
  lab::DeviceArray a = array(DType::F32, 1024), b = array(DType::F32, 1024);
  const lab::DeviceArray view = lab::view_of(b, {0, 512});
  lab::GraphObj g(capture(cap, s, [&] {
    lab::DeviceArray v = view;
    lab::copy_async(cap, v, lab::view_of(a, {0, 512}), s.get());
  }));
  replay(g, cap, s.get());
  lab::release(b, false);  // the owner of the view the graph writes
  EXPECT_EQ(
      error_of([&] { replay(g, cap, s.get()); }),
      "g:launch: the graph captured by cuda.graph at x.lua:3 uses an array f32[512] that was freed, so a "
      "replay would read freed memory; capture again with g:update(fn), or free the array only after the "
      "graph");
  // A new capture over live arrays makes it usable again: instantiated anew, since the old
  // executable's copy points at freed memory (the stand-in refuses such an update, as a
  // real driver's would be undefined).
  lab::DeviceArray c = array(DType::F32, 1024);
  const lab::GraphUpdate u = g.update(capture(
      cap, s, [&] { lab::copy_async(cap, c, a, s.get()); }, "x.lua:9"));
  EXPECT_TRUE(u.reinstantiated);
  EXPECT_EQ(u.why, "the old graph used an array f32[512] that was freed");
  EXPECT_EQ(g.label(), "cuda.graph at x.lua:9");
  EXPECT_EQ(error_of([&] { replay(g, cap, s.get()); }), "");
}

// The memory goes after the graph's instantiation: the stand-in refuses to instantiate a
// graph whose copy points at freed memory, so this fails if the free came first.
TEST_F(FakeDriver, FreesDuringACaptureWaitForTheGraph) {
  const cu::Stream s(ctx);
  lab::Capture cap;
  lab::DeviceArray a = array(DType::I32, 4), b = array(DType::I32, 4);
  const auto buf = a.buf;
  lab::GraphObj g(capture(cap, s, [&] {
    lab::copy_async(cap, b, a, s.get());
    cap.release(a, false);      // a:free() or a garbage collection inside fn
    EXPECT_TRUE(a.freed());     // the handle let go at once
    EXPECT_TRUE(buf->valid());  // the memory waits: freeing it now would break the capture
  }));
  EXPECT_FALSE(buf->valid());  // freed once the graph was instantiated
  EXPECT_NE(error_of([&] { replay(g, cap, s.get()); }).find("uses an array i32[4] that was freed"),
            std::string::npos);
}

// g:free() inside another capture's fn (or its own g:update's): destroying a graph while a
// stream captures invalidates the capture on a real driver, so the graph's objects wait for
// the capture's end, as freed arrays do; the capture still succeeds.
TEST_F(FakeDriver, AGraphFreedDuringACaptureGoesAfterIt) {
  const cu::Stream s(ctx);
  lab::Capture cap;
  lab::GraphObj g(capture(cap, s, [&] { launch(kernel("k1"), s.get()); }));
  lab::GraphObj g2(capture(cap, s, [&] {
    launch(kernel("k2"), s.get());
    g.free(cap);
    EXPECT_TRUE(g.freed());  // the handle let go at once
  }));
  EXPECT_EQ(g2.nodes(), 1u);  // the capture was not invalidated
  replay(g2, cap, s.get());
  EXPECT_EQ(error_of([&] { replay(g, cap, s.get()); }), "attempt to use a freed graph");
}

TEST_F(FakeDriver, AGraphRefusesUseAfterFreeAndLaunchDuringACapture) {
  const cu::Stream s(ctx), s2(ctx);
  lab::Capture cap;
  lab::GraphObj g(capture(cap, s, [&] { launch(kernel("k1"), s.get()); }));
  cap.begin(ctx, s2.get(), "cuda.graph", "x.lua:5");
  EXPECT_EQ(
      error_of([&] { replay(g, cap, s2.get()); }),
      "g:launch cannot run during the capture of cuda.graph at x.lua:5: graphs do not nest here; launch it "
      "before the capture or after it");
  cap.abort();
  replay(g, cap, s.get());
  g.free(cap);
  EXPECT_EQ(error_of([&] { replay(g, cap, s.get()); }), "attempt to use a freed graph");
  EXPECT_EQ(error_of([&] { g.nodes(); }), "attempt to use a freed graph");
}

TEST_F(FakeDriver, UpdateInPlaceOrReinstantiatedWithItsReason) {
  const cu::Stream s(ctx);
  lab::Capture cap;
  lab::DeviceArray a = array(DType::I32, 4), b = array(DType::I32, 4);
  const CUfunction k1 = kernel("k1"), k2 = kernel("k2");
  lab::GraphObj g(capture(cap, s, [&] {
    launch(k1, s.get());
    launch(k1, s.get());
  }));
  // Another kernel in the same place: the driver updates it in place.
  lab::GraphUpdate u = g.update(capture(cap, s, [&] {
    launch(k1, s.get());
    launch(k2, s.get());
  }));
  EXPECT_FALSE(u.reinstantiated);
  EXPECT_EQ(u.why, "");
  // One more launch: the topology changed.
  u = g.update(capture(cap, s, [&] {
    launch(k1, s.get());
    launch(k1, s.get());
    launch(k2, s.get());
  }));
  EXPECT_TRUE(u.reinstantiated);
  EXPECT_EQ(u.why, "the topology changed (2 nodes -> 3)");
  EXPECT_EQ(u.nodes_before, 2u);
  EXPECT_EQ(u.nodes_after, 3u);
  EXPECT_EQ(g.nodes(), 3u);
  // A copy where a kernel was: node 2 changed its type.
  u = g.update(capture(cap, s, [&] {
    launch(k1, s.get());
    lab::copy_async(cap, b, a, s.get());
    launch(k2, s.get());
  }));
  EXPECT_TRUE(u.reinstantiated);
  EXPECT_EQ(u.why, "node 2 changed from kernel to memcpy");
  replay(g, cap, s.get());  // the new executable runs
  EXPECT_EQ(error_of([&] { replay(g, cap, s.get()); }), "");
}

TEST_F(FakeDriver, AsyncCopiesNeedPinnedHostMemory) {
  const cu::Stream s(ctx);
  lab::Capture cap;
  lab::DeviceArray d = array(DType::I32, 4);
  lab::HostArray pinned = host(DType::I32, 4, true), back = host(DType::I32, 4, true);
  lab::HostArray plain = host(DType::I32, 4, false);
  const int v[4] = {9, 8, 7, 6};
  std::memcpy(pinned.data(), v, sizeof v);
  lab::copy_async(cap, d, pinned, s.get());
  lab::copy_async(cap, back, d, s.get());
  s.synchronize();
  EXPECT_EQ(std::memcmp(back.data(), v, sizeof v), 0);
  EXPECT_EQ(error_of([&] { lab::copy_async(cap, d, plain, s.get()); }), lab::kPageableOnStream);
  EXPECT_EQ(error_of([&] { lab::copy_async(cap, plain, d, s.get()); }), lab::kPageableOnStream);
}

TEST_F(FakeDriver, ManagedMemory) {
  const cu::Stream s(ctx);
  lab::Capture cap;
  const cu::DeviceSnapshot dev = cu::snapshot_device(0);
  lab::DeviceArray m;
  m.type = DType::I32;
  m.count = 8;
  m.buf = lab::managed_buffer(cap, ctx, dev, m.bytes());
  EXPECT_TRUE(m.buf->is_managed());
  EXPECT_EQ(m.buf->context(), ctx);  // the driver's managed memory, not host-backed
  int* p = reinterpret_cast<int*>(lab::host_elements(m));
  p[2] = 11;
  EXPECT_EQ(ints(m)[2], 11);  // the host's write is the device's memory
  lab::prefetch(cap, m, lab::location_index(0, cu::device_count(), "a:prefetch"), s.get(), dev);
  lab::prefetch(cap, m, lab::location_named("host", "a:prefetch"), s.get(), dev);
  lab::advise(cap, m, lab::parse_advice("preferred_location"), {false, 0});
  lab::advise(cap, m, lab::parse_advice("read_mostly"), {});
  // A device the driver does not have: cu::Error from the driver, for a location lab
  // did not check (location_index refuses it first for cuda's callers).
  EXPECT_NE(error_of([&] {
              m.buf->prefetch(lab::to_cu({false, 3}), s.get(), m.bytes());
            }).find("cuMemPrefetchAsync"),
            std::string::npos);
  // During a capture: no allocation, prefetch or advice.
  cap.begin(ctx, s.get(), "cuda.graph", "x.lua:3");
  EXPECT_EQ(error_of([&] { lab::managed_buffer(cap, ctx, dev, 64); }),
            "cuda.array cannot run during the capture of cuda.graph at x.lua:3: memory allocated inside the "
            "capture would not be part of the graph; allocate it before cuda.graph");
  EXPECT_EQ(
      error_of([&] {
        lab::prefetch(cap, m, {true, 0}, s.get(), dev);
      }),
      "a:prefetch cannot run during the capture of cuda.graph at x.lua:3: a prefetch cannot be recorded in "
      "a graph; prefetch before the capture or after g:launch()");
  EXPECT_EQ(error_of([&] { lab::advise(cap, m, lab::parse_advice("read_mostly"), {}); }),
            "a:advise cannot run during the capture of cuda.graph at x.lua:3: advice takes effect at once, "
            "outside stream order; give it before cuda.graph");
  cap.abort();
  // Freed like any device buffer.
  lab::release(m, false);
  EXPECT_TRUE(m.freed());
}
