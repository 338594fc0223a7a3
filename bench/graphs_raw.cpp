// graphs_raw.cpp: the baseline for the graphs section of scripts/bench: N empty kernels
// (bench/launch_kernels.cu's empty2) launched one by one on a stream against the same N
// launches captured once into a graph and replayed (cuGraphLaunch), for N = 1, 10, 100,
// 1000, through warplab's loader with no checks and no Lua. Each figure is the best of
// TRIALS trials (default 5):
//   graphs       µs per kernel, wall time: the N launches (or one replay) and a stream
//                synchronization, averaged over REPS = max(5, 10000 / N) rounds;
//   graphs-host  µs per kernel, the launch calls only (N cuLaunchKernel or one cuGraphLaunch);
//   graphs-build µs for the whole graph: capture (begin, N launches, end), instantiate
//                (cuGraphInstantiateWithFlags) and update in place (cuGraphExecUpdate from a
//                new capture whose launches pass another argument value) and destroy (the
//                graph an update replaces), each its own best;
//                then capture + instantiate and capture + update each timed in one window,
//                as bench/graphs.lua times cuda.graph and g:update.
// Prints one record per figure for bench/report.py ("@ <section> <row> <column> <value>",
// tab-separated), or exits 77 with "skipped: no GPU". Runs on the stand-in driver as well
// (tests/cli/bench_graphs_fake.sh), where the figures mean nothing but every path runs.
// Usage: warplab_bench_graphs <launch_kernels.cu> [trials = 5] [sizes = 1,10,100,1000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cu/context.hpp"
#include "cu/device.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/graph.hpp"
#include "cu/module.hpp"
#include "cu/stream.hpp"
#include "rtc/compile.hpp"

namespace {

using namespace warplab;
using Clock = std::chrono::steady_clock;
double us(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

struct Bench {
  const cu::Api& a;
  CUfunction f;
  CUstream s;
  CUdeviceptr p;

  // N launches of empty2(p, n) on the stream.
  void launches(int n_kernels, int n) const {
    void* args[] = {const_cast<CUdeviceptr*>(&p), &n};
    for (int i = 0; i < n_kernels; ++i)
      WL_CU_CHECK(a.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, args, nullptr), "empty2");
  }
  void sync() const { WL_CU_CHECK(a.cuStreamSynchronize(s), "stream"); }
  cu::Graph capture(const cu::ContextPtr& ctx, int n_kernels, int n) const {
    cu::begin_capture(s);
    launches(n_kernels, n);
    return cu::end_capture(ctx, s);
  }
};

// The best (smallest) of `trials` results of f().
template <class F>
double best_of(int trials, F&& f) {
  double best = 1e300;
  for (int t = 0; t < trials; ++t) best = std::min(best, f());
  return best;
}

void record(const char* section, const char* row, int n, double v) {
  std::printf("@\t%s\t%s\t%d kernels\t%.4f\n", section, row, n, v);
}

void measure(const Bench& b, const cu::ContextPtr& ctx, int n, int trials) {
  const int reps = std::max(5, 10000 / n);
  // Stream launches: host time of the launch calls, and wall time with the synchronization.
  double host = 1e300;
  const double wall = best_of(trials, [&] {
    double calls = 0;
    const auto t0 = Clock::now();
    for (int r = 0; r < reps; ++r) {
      const auto c0 = Clock::now();
      b.launches(n, r);
      calls += us(Clock::now() - c0);
      b.sync();
    }
    host = std::min(host, calls / reps / n);
    return us(Clock::now() - t0) / reps / n;
  });
  record("graphs", "raw C++ stream launches", n, wall);
  record("graphs-host", "raw C++ stream launches", n, host);

  // Capture, instantiate: each trial from scratch.
  record("graphs-build", "raw C++ capture", n, best_of(trials, [&] {
           const auto t0 = Clock::now();
           cu::Graph g = b.capture(ctx, n, 7);
           return us(Clock::now() - t0);
         }));
  cu::Graph graph = b.capture(ctx, n, 7);
  if (graph.node_count() != static_cast<std::size_t>(n))
    throw std::runtime_error("the captured graph has " + std::to_string(graph.node_count()) + " nodes, not " +
                             std::to_string(n));
  record("graphs-build", "raw C++ instantiate", n, best_of(trials, [&] {
           const auto t0 = Clock::now();
           cu::GraphExec e(graph);
           const double t = us(Clock::now() - t0);
           return t;  // destroyed outside the timed part
         }));

  // Replay: one cuGraphLaunch per round.
  cu::GraphExec exec(graph);
  exec.launch(b.s);  // uploads the graph
  b.sync();
  double replay_host = 1e300;
  const double replay = best_of(trials, [&] {
    double calls = 0;
    const auto t0 = Clock::now();
    for (int r = 0; r < reps; ++r) {
      const auto c0 = Clock::now();
      WL_CU_CHECK(b.a.cuGraphLaunch(exec.get(), b.s), "graph");
      calls += us(Clock::now() - c0);
      b.sync();
    }
    replay_host = std::min(replay_host, calls / reps / n);
    return us(Clock::now() - t0) / reps / n;
  });
  record("graphs", "raw C++ graph replay", n, replay);
  record("graphs-host", "raw C++ graph replay", n, replay_host);

  // As bench/graphs.lua times warplab's cuda.graph: capture and instantiate in one window,
  // the best of the trials (the rows above take each part's own best, and the sum of two
  // bests is below the best of the sums when the parts vary).
  record("graphs-build", "raw C++ capture + instantiate, one window", n, best_of(trials, [&] {
           const auto t0 = Clock::now();
           cu::Graph g = b.capture(ctx, n, 7);
           cu::GraphExec e(g);
           const double t = us(Clock::now() - t0);
           return t;  // both destroyed outside the timed part
         }));

  // Update in place from a capture of the same launches with another argument.
  int arg = 8;
  record(
      "graphs-build", "raw C++ update", n, best_of(trials, [&] {
        cu::Graph next = b.capture(ctx, n, arg++);
        const auto t0 = Clock::now();
        const cu::GraphExec::Update u = exec.update(next);
        const double t = us(Clock::now() - t0);
        if (!u.ok())
          throw std::runtime_error("cuGraphExecUpdate refused an update that changes one argument (result " +
                                   std::to_string(static_cast<int>(u.result)) + ")");
        return t;
      }));
  // Destroying a captured graph of n kernels: what g:update also does with the graph it
  // replaces (a part the sum of capture and update leaves out).
  record("graphs-build", "raw C++ destroy", n, best_of(trials, [&] {
           cu::Graph g = b.capture(ctx, n, arg++);
           const auto t0 = Clock::now();
           g.destroy();
           return us(Clock::now() - t0);
         }));
  // As g:update is timed: capture and update in one window, the graph kept in place of the
  // one it replaces (which is destroyed then, as warplab's GraphObj keeps the last capture).
  cu::Graph kept = b.capture(ctx, n, arg++);
  record("graphs-build", "raw C++ capture + update, one window", n, best_of(trials, [&] {
           const auto t0 = Clock::now();
           cu::Graph next = b.capture(ctx, n, arg++);
           const cu::GraphExec::Update u = exec.update(next);
           kept = std::move(next);
           const double t = us(Clock::now() - t0);
           if (!u.ok())
             throw std::runtime_error("cuGraphExecUpdate refused an update that changes one argument");
           return t;
         }));
  exec.launch(b.s);  // the updated graph still runs
  b.sync();
}

std::vector<int> parse_sizes(const char* text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (const int n = std::atoi(item.c_str()); n > 0) out.push_back(n);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: warplab_bench_graphs <launch_kernels.cu> [trials = 5] [sizes = 1,10,100,1000]\n");
    return 2;
  }
  const int trials = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  const std::vector<int> sizes = parse_sizes(argc > 3 ? argv[3] : "1,10,100,1000");
  if (sizes.empty()) {
    std::fprintf(stderr, "warplab_bench_graphs: sizes must be positive integers separated by commas\n");
    return 2;
  }
  try {
    if (!cu::driver_available() || cu::device_count() == 0) {
      std::puts("skipped: no GPU");
      return 77;
    }
    std::ifstream in(argv[1]);
    std::stringstream text;
    text << in.rdbuf();
    if (!in || text.str().empty()) throw std::runtime_error(std::string("cannot read ") + argv[1]);
    const cu::DeviceSnapshot dev = cu::snapshot_device(0);
    rtc::Source src{"launch_kernels.cu", text.str(), {}, 0};
    rtc::Options opt;
    opt.arch = dev.arch();
    const rtc::CompileResult r = rtc::compile(src, opt);
    if (!r.ok) throw std::runtime_error(r.log);
    auto ctx = cu::primary_context(0);
    auto mod =
        cu::Module::load_cubin(ctx, std::string_view(r.cubin.data(), r.cubin.size()), "launch_kernels");
    const cu::Stream stream(ctx, true);  // non-blocking: a capture must not join the legacy stream
    CUdeviceptr p = 0;
    WL_CU_CHECK(cu::api().cuMemAlloc(&p, 256), "256 bytes");
    const Bench b{cu::api(), mod->function("empty2")->get(), stream.get(), p};
    b.launches(1000, 0);  // loads the code, warms the path
    b.sync();
    for (const int n : sizes) measure(b, ctx, n, trials);
    cu::api().cuMemFree(p);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "graphs_raw: %s\n", e.what());
    return 1;
  }
}
