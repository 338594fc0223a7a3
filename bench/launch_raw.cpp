// launch_raw.cpp: the baseline for warplab's launch path: plain cuLaunchKernel (through
// warplab's loader, no checks, no Lua) of bench/launch_kernels.cu's empty kernels with 0,
// 2 and 4 arguments, measured as bench/launch.lua and bench/peers.py measure theirs:
//   host:      batches of BATCH launches, then a synchronization; the host time of the
//              launch calls only, per launch, the median over the batches (the launch
//              queue never fills, so this is the host's cost, not the GPU's rate);
//   sustained: SUSTAINED back-to-back launches and one synchronization, wall time per
//              launch (the queue fills: the slower of the host and the GPU's launch rate).
// Prints one record per figure for bench/report.py ("@ <section> <row> <column> <value>",
// tab-separated), or exits 77 with "skipped: no GPU".
// Usage: warplab_bench_launch <launch_kernels.cu> [batches = 200] [batch = 64] [sustained = 20000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cu/context.hpp"
#include "cu/device.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/module.hpp"
#include "rtc/compile.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double us(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

struct Run {
  CUfunction f;
  void** args;
  const warplab::cu::Api& a;
  const warplab::cu::ContextPtr& ctx;
  void launch() const {
    WL_CU_CHECK(a.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), "empty");
  }
};

double host_us(const Run& r, int batches, int batch) {
  std::vector<double> per;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = Clock::now();
    for (int i = 0; i < batch; ++i) r.launch();
    per.push_back(us(Clock::now() - t0) / batch);
    r.ctx->synchronize();
  }
  std::nth_element(per.begin(), per.begin() + per.size() / 2, per.end());
  return per[per.size() / 2];
}

double sustained_us(const Run& r, int n) {
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) r.launch();
  r.ctx->synchronize();
  return us(Clock::now() - t0) / n;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace warplab;
  if (argc < 2) {
    std::fprintf(stderr, "usage: warplab_bench_launch <launch_kernels.cu> [batches] [batch] [sustained]\n");
    return 2;
  }
  const int batches = argc > 2 ? std::max(1, std::atoi(argv[2])) : 200;
  const int batch = argc > 3 ? std::max(1, std::atoi(argv[3])) : 64;
  const int sustained = argc > 4 ? std::max(1, std::atoi(argv[4])) : 20000;
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
    CUdeviceptr p = 0;
    WL_CU_CHECK(cu::api().cuMemAlloc(&p, 256), "256 bytes");
    int n = 32, b = 7;
    float a = 2.0f;
    void* args0[] = {nullptr};
    void* args2[] = {&p, &n};
    void* args4[] = {&p, &n, &a, &b};
    const struct {
      const char* name;
      int nargs;
      void** args;
    } kernels[] = {{"empty0", 0, args0}, {"empty2", 2, args2}, {"empty4", 4, args4}};
    for (const auto& k : kernels) {
      const Run run{mod->function(k.name)->get(), k.args, cu::api(), ctx};
      for (int i = 0; i < 1000; ++i) run.launch();  // loads the code, warms the path
      ctx->synchronize();
      std::printf("@\tlaunch\traw C++ cuLaunchKernel\t%d args\t%.4f\n", k.nargs,
                  host_us(run, batches, batch));
      std::printf("@\tsustained\traw C++ cuLaunchKernel\t%d args\t%.4f\n", k.nargs,
                  sustained_us(run, sustained));
    }
    cu::api().cuMemFree(p);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "launch_raw: %s\n", e.what());
    return 1;
  }
}
