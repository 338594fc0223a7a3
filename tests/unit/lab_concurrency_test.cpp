// lab_concurrency_test.cpp: the Lua-free rules of asynchronous copies, stream priorities,
// managed arrays and graphs that need no driver: argument checks and their sentences,
// offline (host-backed) managed arrays, the idle capture, a freed graph. The paths that
// need a driver run against the stand-in in tests/fake_driver. No GPU, no Lua.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "lab/capture.hpp"
#include "lab/copy.hpp"
#include "lab/fault.hpp"
#include "lab/graph.hpp"
#include "lab/managed.hpp"
#include "lab/stream.hpp"
#include "lab_test_util.hpp"

using namespace warplab;
using cu::DType;
using test::error_of;

namespace {

// An offline (host-backed) device array of n elements, managed or not.
lab::DeviceArray offline_array(DType t, std::size_t n, bool managed = false) {
  lab::DeviceArray a;
  a.type = t;
  a.count = n;
  a.buf = std::make_shared<cu::DeviceBuffer>(cu::DeviceBuffer::host_backed(n * a.elem(), managed));
  return a;
}

lab::HostArray pageable(DType t, std::size_t n) {
  lab::HostArray h;
  h.type = t;
  h.count = n;
  h.buf = std::make_shared<cu::HostBuffer>(cu::HostBuffer::pageable(n * h.elem()));
  return h;
}

cu::DeviceSnapshot profile(long long managed, long long concurrent) {
  cu::DeviceSnapshot d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.attributes = {{"managed_memory", managed}, {"concurrent_managed_access", concurrent}};
  return d;
}

const cu::PriorityRange kH100{0, -5};
const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST(LabStream, PriorityWithinTheDeviceRange) {
  EXPECT_EQ(lab::check_priority(0, kH100), 0);
  EXPECT_EQ(lab::check_priority(-5, kH100), -5);
  EXPECT_EQ(lab::check_priority(-2.0, kH100), -2);
  EXPECT_EQ(error_of([] { lab::check_priority(1, kH100); }),
            "cuda.stream: priority 1 is outside this device's range, -5 (highest) to 0 (lowest); a smaller "
            "number runs first");
  EXPECT_EQ(error_of([] { lab::check_priority(-6, kH100); }),
            "cuda.stream: priority -6 is outside this device's range, -5 (highest) to 0 (lowest); a smaller "
            "number runs first");
}

TEST(LabStream, PriorityMustBeAnInteger) {
  const std::string want = "cuda.stream: priority must be an integer from -5 (highest) to 0 (lowest), got ";
  EXPECT_EQ(error_of([] { lab::check_priority(kNaN, kH100); }), want + "nan");
  EXPECT_EQ(error_of([] { lab::check_priority(-kNaN, kH100); }), want + "nan");
  EXPECT_EQ(error_of([] { lab::check_priority(-1.5, kH100); }), want + "-1.5");
  EXPECT_EQ(error_of([] { lab::check_priority(-INFINITY, kH100); }), want + "-inf");
  EXPECT_EQ(
      error_of([] { lab::check_priority(1e300, kH100); }),
      "cuda.stream: priority 1e+300 is outside this device's range, -5 (highest) to 0 (lowest); a smaller "
      "number runs first");
}

TEST(LabCapture, IdleCaptureRefusesNothing) {
  lab::Capture cap;
  EXPECT_FALSE(cap.active());
  EXPECT_EQ(error_of([&] { cap.refuse(lab::CaptureOp::synchronize, "cuda.synchronize()"); }), "");
  EXPECT_EQ(error_of([&] { cap.check_stream(nullptr, "a kernel launch"); }), "");
  EXPECT_EQ(error_of([&] { cap.check_wait(nullptr, nullptr, "s:wait(e)"); }), "");
  EXPECT_EQ(error_of([&] { cap.end(); }), "no capture is running: nothing to end");
  // Outside a capture a free is a free: the memory goes now, views see it gone.
  lab::DeviceArray a = offline_array(DType::F32, 4);
  const lab::DeviceArray view = lab::view_of(a, {1, 2});
  cap.release(a, false);
  EXPECT_TRUE(a.freed());
  EXPECT_TRUE(view.freed());
}

TEST(LabCapture, DescribesArraysForItsSentences) {
  EXPECT_EQ(lab::describe(offline_array(DType::F32, 1024)), "an array f32[1024]");
  EXPECT_EQ(lab::describe(offline_array(DType::I32, 3, true)), "a managed array i32[3]");
  EXPECT_EQ(lab::describe(pageable(DType::U8, 16)), "a host array u8[16]");
}

TEST(LabCopy, AsyncDeviceCopiesOfflineAreDoneAtOnce) {
  lab::Capture cap;
  lab::DeviceArray a = offline_array(DType::I32, 4), b = offline_array(DType::I32, 4);
  const int v[4] = {1, 2, 3, 4};
  a.buf->copy_from_host(v, sizeof v);
  lab::copy_async(cap, b, a, nullptr);
  int out[4] = {};
  b.buf->copy_to_host(out, sizeof out);
  EXPECT_EQ(std::memcmp(out, v, sizeof v), 0);
  // A view copies its own elements only.
  lab::DeviceArray tail = lab::view_of(b, {2, 2});
  lab::DeviceArray head = lab::view_of(a, {0, 2});
  lab::copy_async(cap, tail, head, nullptr);
  b.buf->copy_to_host(out, sizeof out);
  EXPECT_EQ(out[2], 1);
  EXPECT_EQ(out[3], 2);
}

TEST(LabCopy, PageableHostArraysAreRefusedOnAStream) {
  lab::Capture cap;
  lab::DeviceArray d = offline_array(DType::F32, 8);
  lab::HostArray h = pageable(DType::F32, 8), h2 = pageable(DType::F32, 8);
  const std::string pageable_sentence = lab::kPageableOnStream;
  EXPECT_NE(pageable_sentence.find("would be synchronous anyway"), std::string::npos);
  EXPECT_EQ(error_of([&] { lab::copy_async(cap, d, h, nullptr); }), pageable_sentence);
  EXPECT_EQ(error_of([&] { lab::copy_async(cap, h, d, nullptr); }), pageable_sentence);
  EXPECT_EQ(error_of([&] { lab::copy_async(cap, h, h2, nullptr); }),
            "a:copy between two host arrays is a memmove on the CPU and has no stream: copy without "
            "{stream = ...}");
  // Without a stream the same pageable copy is fine.
  h.data()[0] = 7;
  EXPECT_EQ(error_of([&] { lab::copy_now(cap, d, h); }), "");
}

TEST(LabCopy, ShapesAreCheckedBeforeAnythingElse) {
  lab::Capture cap;
  lab::DeviceArray f = offline_array(DType::F32, 4), i = offline_array(DType::I32, 4);
  lab::HostArray h = pageable(DType::F32, 5);
  EXPECT_EQ(error_of([&] { lab::copy_async(cap, f, i, nullptr); }),
            "copy needs the same type and length: f32[4] <- i32[4]");
  EXPECT_EQ(error_of([&] { lab::copy_async(cap, f, h, nullptr); }),
            "copy needs the same type and length: f32[4] <- f32[5]");
}

TEST(LabManaged, OfflineManagedArraysAreHostBacked) {
  lab::Capture cap;
  const auto buf = lab::managed_buffer(cap, nullptr, profile(1, 1), 64);
  EXPECT_TRUE(buf->is_managed());
  EXPECT_EQ(buf->context(), nullptr);  // host-backed: no context, no driver
  lab::DeviceArray a;
  a.type = DType::I32;
  a.count = 16;
  a.buf = buf;
  // Zeroed, readable and writable on the host without a copy, and seen by a:get's path.
  int* p = reinterpret_cast<int*>(lab::host_elements(a));
  EXPECT_EQ(p[15], 0);
  p[3] = 42;
  int got = 0;
  a.buf->copy_to_host(&got, sizeof got, 3 * sizeof(int));
  EXPECT_EQ(got, 42);
  // A view's host elements start at the view.
  EXPECT_EQ(reinterpret_cast<int*>(lab::host_elements(lab::view_of(a, {3, 2})))[0], 42);
  // Prefetch and advise are checked, then have nothing to do.
  EXPECT_EQ(error_of([&] { lab::prefetch(cap, a, {true, 0}, nullptr, profile(1, 1)); }), "");
  EXPECT_EQ(error_of([&] { lab::prefetch(cap, a, {false, 0}, nullptr, profile(1, 1)); }), "");
  EXPECT_EQ(error_of([&] { lab::advise(cap, a, lab::parse_advice("read_mostly"), {}); }), "");
  EXPECT_EQ(p[3], 42);
}

TEST(LabManaged, PlainArraysAreNotManaged) {
  lab::Capture cap;
  const lab::DeviceArray a = offline_array(DType::F32, 4);
  EXPECT_EQ(error_of([&] { lab::host_elements(a); }),
            "only a managed array can be read on the host without a copy: make it with cuda.array(type, n, "
            "{managed = true}), or read this one with a[i] or a:get()");
  EXPECT_EQ(error_of([&] {
              lab::prefetch(cap, a, {true, 0}, nullptr, profile(1, 1));
            }),
            "a:prefetch needs a managed array: make it with cuda.array(type, n, {managed = true})");
  EXPECT_EQ(error_of([&] { lab::advise(cap, a, lab::parse_advice("accessed_by"), {}); }),
            "a:advise needs a managed array: make it with cuda.array(type, n, {managed = true})");
}

TEST(LabManaged, DevicesWithoutManagedMemorySaySo) {
  lab::Capture cap;
  EXPECT_EQ(error_of([&] { lab::managed_buffer(cap, nullptr, profile(0, 0), 64); }),
            "cuda.array: NVIDIA H100 80GB HBM3 has no managed memory (managed_memory = 0)");
  lab::DeviceArray a = offline_array(DType::F32, 4, true);
  EXPECT_EQ(error_of([&] {
              lab::prefetch(cap, a, {false, 0}, nullptr, profile(1, 0));
            }),
            "a:prefetch needs a device with concurrent managed access, and NVIDIA H100 80GB HBM3 has none "
            "(concurrent_managed_access = 0): its managed memory migrates only on demand");
}

TEST(LabManaged, LocationsAreADeviceIndexOrHost) {
  EXPECT_TRUE(lab::location_named("host", "a:prefetch").host);
  const lab::Location d = lab::location_index(0, 1, "a:prefetch");
  EXPECT_FALSE(d.host);
  EXPECT_EQ(d.device, 0);
  EXPECT_EQ(lab::to_string(d), "device 0");
  EXPECT_EQ(lab::to_string(lab::location_named("host", "a:prefetch")), "the host");
  EXPECT_EQ(lab::to_cu({true, 0}).type, CU_MEM_LOCATION_TYPE_HOST);
  EXPECT_EQ(lab::to_cu({false, 1}).type, CU_MEM_LOCATION_TYPE_DEVICE);
  EXPECT_EQ(lab::to_cu({false, 1}).id, 1);
  EXPECT_EQ(error_of([] { lab::location_named("gpu", "a:prefetch"); }),
            "a:prefetch: where must be a device index or \"host\", got \"gpu\"");
  EXPECT_EQ(error_of([] { lab::location_index(1, 1, "a:prefetch"); }),
            "a:prefetch: device 1 does not exist (valid: 0..0, or \"host\")");
  EXPECT_EQ(error_of([] { lab::location_index(-1, 2, "a:advise"); }),
            "a:advise: device -1 does not exist (valid: 0..1, or \"host\")");
  EXPECT_EQ(error_of([] { lab::location_index(kNaN, 1, "a:prefetch"); }),
            "a:prefetch: where must be a device index or \"host\", got nan");
  EXPECT_EQ(error_of([] { lab::location_index(0.5, 1, "a:prefetch"); }),
            "a:prefetch: where must be a device index or \"host\", got 0.5");
}

TEST(LabManaged, AdviceNames) {
  EXPECT_EQ(lab::parse_advice("read_mostly").advice, CU_MEM_ADVISE_SET_READ_MOSTLY);
  EXPECT_FALSE(lab::parse_advice("read_mostly").takes_location);
  EXPECT_EQ(lab::parse_advice("unset_read_mostly").advice, CU_MEM_ADVISE_UNSET_READ_MOSTLY);
  EXPECT_EQ(lab::parse_advice("preferred_location").advice, CU_MEM_ADVISE_SET_PREFERRED_LOCATION);
  EXPECT_TRUE(lab::parse_advice("preferred_location").takes_location);
  EXPECT_EQ(lab::parse_advice("unset_preferred_location").advice, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION);
  EXPECT_EQ(lab::parse_advice("accessed_by").advice, CU_MEM_ADVISE_SET_ACCESSED_BY);
  EXPECT_EQ(lab::parse_advice("unset_accessed_by").advice, CU_MEM_ADVISE_UNSET_ACCESSED_BY);
  EXPECT_TRUE(lab::parse_advice("unset_accessed_by").takes_location);
  EXPECT_EQ(
      error_of([] { lab::parse_advice("mostly_read"); }),
      "a:advise: unknown advice \"mostly_read\" (read_mostly, preferred_location, accessed_by, or one of "
      "them with unset_ before it)");
}

TEST(LabGraph, AFreedGraphRefusesEveryUse) {
  lab::Capture cap;
  lab::GraphObj g;  // as after g:free()
  EXPECT_TRUE(g.freed());
  EXPECT_EQ(error_of([&] { g.nodes(); }), "attempt to use a freed graph");
  EXPECT_EQ(error_of([&] { g.check_launch(cap); }), "attempt to use a freed graph");
  EXPECT_EQ(error_of([&] { g.update({}); }), "attempt to use a freed graph");
  g.free(cap);  // idempotent
  EXPECT_TRUE(g.freed());
}

// ---- fault notes and the watchdog name the stream, and a graph's replay ----------------

namespace {

lab::LaunchNote& note_at(lab::FaultLog& log, const char* kernel, int line, int stream, unsigned nodes = 0) {
  lab::LaunchNote& n = log.note(kernel, cu::LaunchConfig{}, cu::KernelLimits{});
  std::strcpy(n.source, "t.lua");
  n.line = line;
  n.stream = stream;
  n.nodes = nodes;
  return n;
}

}  // namespace

TEST(LabFault, ALaunchOnAStreamIsNamedWithItsNumber) {
  lab::FaultLog log;
  note_at(log, "k", 4, 0);
  note_at(log, "poke", 9, 2);
  EXPECT_EQ(
      lab::fault_text(log, CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize"),
      "kernel 'poke' launched at t.lua:9 on stream 2 faulted: " + cu::error_text(CUDA_ERROR_ILLEGAL_ADDRESS) +
          " (one of 2 launches since the last synchronization; earlier: k@t.lua:4; run with --sync to pin "
          "it down); noticed by cuCtxSynchronize. The context is now unusable: restart the script");
}

TEST(LabFault, AGraphReplayIsNamedByItsCaptureAndLaunch) {
  lab::FaultLog log;
  note_at(log, "cuda.graph at t.lua:3", 10, 1, 5);
  note_at(log, "k", 11, 0);
  note_at(log, "cuda.graph at t.lua:3", 12, 0, 1);
  EXPECT_EQ(lab::fault_text(log, CUDA_ERROR_LAUNCH_FAILED, "cuStreamSynchronize"),
            "the graph of cuda.graph at t.lua:3 (1 node) launched at t.lua:12 faulted: " +
                cu::error_text(CUDA_ERROR_LAUNCH_FAILED) +
                " (one of 3 launches since the last synchronization; earlier: k@t.lua:11 graph@t.lua:10; run "
                "with --sync to pin it down); noticed by cuStreamSynchronize. The context is now unusable: "
                "restart the script");
  log.forget();
  EXPECT_EQ(
      lab::timeout_text(log.ring[0], 1, cu::DeviceLimits{}),
      "the graph of cuda.graph at t.lua:3 (5 nodes) launched at t.lua:10 on stream 1 did not finish within "
      "1 s: a kernel in it deadlocked or runs very long (launch its work outside a graph to see which)");
}
