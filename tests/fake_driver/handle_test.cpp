// handle_test.cpp: cu::Handle, the one owner of every driver handle (cu/handle.hpp), against
// the stand-in driver (bench/fake_driver.cpp): a move leaves the source empty, a handle is
// destroyed exactly once however often it is released, it keeps its context alive until
// then (and what the context runs at its release runs after them, before the release), and
// releasing stays safe when there is no driver, after a sticky fault and while the process
// exits. The stand-in deletes the object behind a handle when it is destroyed,
// so a second destroy is a double free (glibc's allocator aborts on it; ASan names it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cu/device.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/graph.hpp"
#include "cu/handle.hpp"
#include "cu/host_buffer.hpp"
#include "cu/memory.hpp"
#include "cu/module.hpp"
#include "cu/stream.hpp"

using namespace warplab;

namespace {

// A handle kind whose destroy only counts, and remembers what it destroyed.
struct Counted {
  using Raw = int*;
  static inline std::vector<int*> destroyed;
  static void destroy(int* p) noexcept { destroyed.push_back(p); }
};
using CountedHandle = cu::Handle<Counted>;

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Whether the driver found is the stand-in (not the real one, nor none).
bool stand_in() {
  return cu::driver_available() && cu::snapshot_device(0).name.find("fake driver") != std::string::npos;
}

class Handle : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!stand_in()) GTEST_SKIP() << "the driver found is not the stand-in (bench/fake_driver.cpp)";
    Counted::destroyed.clear();
    ctx = cu::primary_context(0);
  }
  cu::ContextPtr ctx;
  int a = 0, b = 0;
};

}  // namespace

TEST_F(Handle, AMoveLeavesTheSourceEmptyAndTheHandleIsDestroyedOnce) {
  CountedHandle h(ctx, &a);
  EXPECT_TRUE(h.valid());
  CountedHandle moved(std::move(h));
  EXPECT_FALSE(h.valid());  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_EQ(h.context(), nullptr);
  EXPECT_EQ(moved.get(), &a);
  EXPECT_EQ(moved.context(), ctx);
  h.release();  // empty: nothing to destroy
  EXPECT_TRUE(Counted::destroyed.empty());
  moved.release();
  moved.release();  // idempotent
  EXPECT_EQ(Counted::destroyed, std::vector<int*>{&a});
  EXPECT_FALSE(moved.valid());
  EXPECT_EQ(moved.context(), nullptr);
  EXPECT_EQ(error_of([&] { moved.live("stream"); }), "use of a destroyed stream");
}

TEST_F(Handle, AssigningReleasesWhatTheTargetHeldAndSelfAssignmentKeepsIt) {
  {
    CountedHandle x(ctx, &a), y(ctx, &b);
    y = std::move(x);
    EXPECT_EQ(Counted::destroyed, std::vector<int*>{&b});
    CountedHandle& same = y;
    y = std::move(same);
    EXPECT_EQ(y.get(), &a);
    EXPECT_EQ(Counted::destroyed.size(), 1u);
  }
  EXPECT_EQ(Counted::destroyed, (std::vector<int*>{&b, &a}));  // the destructor released a
}

TEST_F(Handle, KeepsItsContextUntilReleased) {
  // Only the handle holds the context here (this test's own pointer is moved in).
  std::weak_ptr<cu::Context> weak = ctx;
  CountedHandle h(std::move(ctx), &a);
  ASSERT_FALSE(weak.expired());
  h.release();
  EXPECT_TRUE(weak.expired()) << "the context outlived its last handle";
  EXPECT_EQ(Counted::destroyed, std::vector<int*>{&a});
}

// What must be undone while the context exists (CUPTI's SASS-metric configuration, which
// cu/sass_metrics.cpp unsets there) runs when the last holder lets go: after the handles
// that kept the context (a module unloaded first), newest first, once, and before the
// primary context is released (the stand-in counts retains: active until then).
TEST_F(Handle, AtReleaseRunsOnceNewestFirstBeforeTheContextIsReleased) {
  const CUdevice dev = ctx->device();
  auto active = [dev] {
    unsigned flags = 0;
    int on = -1;
    EXPECT_EQ(cu::api().cuDevicePrimaryCtxGetState(dev, &flags, &on), CUDA_SUCCESS);
    return on;
  };
  std::vector<std::string> seen;
  ctx->at_release([&] { seen.push_back("first registered, active " + std::to_string(active())); });
  ctx->at_release([&] { seen.push_back("second registered, active " + std::to_string(active())); });
  std::weak_ptr<cu::Context> weak = ctx;
  CountedHandle h(std::move(ctx), &a);  // the last holder besides the handle goes
  EXPECT_TRUE(seen.empty()) << "ran while a handle still held the context";
  EXPECT_EQ(active(), 1);
  h.release();
  EXPECT_TRUE(weak.expired());
  EXPECT_EQ(seen, (std::vector<std::string>{"second registered, active 1", "first registered, active 1"}));
  EXPECT_EQ(active(), 0) << "the primary context was not released after them";
  ctx = cu::primary_context(0);  // a new one: nothing registered on it runs the old callbacks
  ctx.reset();
  EXPECT_EQ(seen.size(), 2u);
}

// Every driver handle warplab owns goes through cu::Handle: moved, released twice, and used
// after its release, each says so in one sentence and destroys once (the stand-in would
// free twice otherwise).
TEST_F(Handle, EveryDriverHandleIsOwnedOnce) {
  cu::Stream s(ctx);
  cu::Stream s2(std::move(s));
  EXPECT_FALSE(s.valid());  // NOLINT(bugprone-use-after-move)
  s2.destroy();
  s2.destroy();
  EXPECT_EQ(error_of([&] { s2.synchronize(); }), "use of a destroyed stream");

  cu::Event e(ctx, false);
  cu::Event e2 = std::move(e);
  EXPECT_FALSE(e2.timing());
  e2.destroy();
  e2.destroy();
  EXPECT_EQ(error_of([&] { e2.record(); }), "use of a destroyed event");

  cu::Stream cs(ctx);
  cu::begin_capture(cs.get());
  cu::Graph g = cu::end_capture(ctx, cs.get());
  ASSERT_TRUE(g.valid());
  cu::GraphExec x(g);
  cu::GraphExec x2 = std::move(x);
  cu::Graph g2 = std::move(g);
  EXPECT_EQ(g2.node_count(), 0u);
  x2.destroy();
  x2.destroy();
  g2.destroy();
  g2.destroy();
  EXPECT_EQ(error_of([&] { g2.nodes(); }), "use of a destroyed graph");
  EXPECT_EQ(error_of([&] { x2.launch(nullptr); }), "use of a destroyed executable graph");

  cu::DeviceBuffer d(ctx, 64);
  cu::DeviceBuffer d2 = std::move(d);
  EXPECT_FALSE(d.valid());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(d2.size(), 64u);
  d2.free();
  d2.free();
  EXPECT_EQ(d2.size(), 0u);
  EXPECT_EQ(error_of([&] { d2.memset(0); }), "use of a freed device buffer (memset)");

  cu::HostBuffer p = cu::HostBuffer::pinned(ctx, 64);
  EXPECT_TRUE(p.is_pinned());
  cu::HostBuffer p2 = std::move(p);
  EXPECT_EQ(p.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(p2.size(), 64u);
  p2.free();
  p2.free();
  EXPECT_FALSE(p2.valid());

  std::weak_ptr<cu::Module> m;
  {
    const cu::ModulePtr loaded = cu::Module::load_cubin(ctx, "stand-in", "k.cu");
    m = loaded;
    EXPECT_EQ(loaded->context(), ctx);
  }
  EXPECT_TRUE(m.expired());  // unloaded with its last holder
}

// With no driver (WARPLAB_NO_DRIVER, as when libcuda.so.1 is missing or cuInit failed), a
// release calls nothing: there is nothing to call it with. Run in a fresh process, where the
// driver is looked for anew.
TEST(HandleDeathTest, ReleasingWithoutADriverCallsNothing) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ::setenv("WARPLAB_NO_DRIVER", "1", 1);
  EXPECT_EXIT(
      {
        int raw = 0;
        {
          CountedHandle h(nullptr, &raw);
          h.release();
          CountedHandle other(nullptr, &raw);  // released by its destructor
        }
        std::exit(!cu::driver_available() && Counted::destroyed.empty() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  ::unsetenv("WARPLAB_NO_DRIVER");
}

// After a sticky fault (an illegal address) every call fails, destroys included: releasing
// ignores it, empties the handles and the process goes on. In a child, so that the fault
// stays there.
TEST(HandleDeathTest, ReleasingAfterAStickyFaultIsQuiet) {
  if (!stand_in()) GTEST_SKIP() << "the driver found is not the stand-in (bench/fake_driver.cpp)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const cu::ContextPtr ctx = cu::primary_context(0);
        const cu::ModulePtr m = cu::Module::load_cubin(ctx, "stand-in", "k.cu");
        cu::Stream s(ctx);
        cu::Event e(ctx);
        cu::DeviceBuffer d(ctx, 64);
        cu::api().cuLaunchKernel(m->function("fake_fault")->get(), 1, 1, 1, 32, 1, 1, 0, s.get(), nullptr,
                                 nullptr);
        const std::string why = error_of([&] { s.synchronize(); });
        s.destroy();  // the stand-in's cuStreamDestroy answers the sticky error
        e.destroy();
        d.free();
        std::exit(why.find("CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos && !s.valid() && !e.valid() &&
                          !d.valid()
                      ? 0
                      : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// Handles still alive when the process exits (a static, as a library might keep one) are
// released by the static destructors, after main: that must end the process cleanly.
TEST(HandleDeathTest, ReleasingWhileTheProcessExitsEndsCleanly) {
  if (!stand_in()) GTEST_SKIP() << "the driver found is not the stand-in (bench/fake_driver.cpp)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        static cu::Stream s(cu::primary_context(0));
        static cu::DeviceBuffer d(s.context(), 64);
        std::exit(s.valid() && d.valid() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}
