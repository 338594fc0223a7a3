// launch_raw.cpp: the baseline for warplab's launch path: an empty kernel launched with
// plain cuLaunchKernel (through warplab's loader, no checks, no Lua) N times between two
// events. Prints one line: "raw <us per launch (events)> <us per launch (host submit)>".
// Used by scripts/bench, which runs bench/launch.lua the same way and compares.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cu/context.hpp"
#include "cu/device.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/module.hpp"
#include "cu/stream.hpp"
#include "rtc/compile.hpp"

int main(int argc, char** argv) {
  using namespace warplab;
  const long n = argc > 1 ? std::atol(argv[1]) : 100000;
  try {
    if (!cu::driver_available() || cu::device_count() == 0) {
      std::puts("skipped: no GPU");
      return 77;
    }
    const cu::DeviceSnapshot dev = cu::snapshot_device(0);
    rtc::Source src{"empty.cu", "__global__ void empty(int* p, int n) {}\n", {}, 0};
    rtc::Options opt;
    opt.arch = dev.arch();
    const rtc::CompileResult r = rtc::compile(src, opt);
    if (!r.ok) throw std::runtime_error(r.log);
    auto ctx = cu::primary_context(0);
    auto mod = cu::Module::load_cubin(ctx, std::string_view(r.cubin.data(), r.cubin.size()), "empty");
    CUfunction f = mod->function(r.entries.at(0))->get();
    CUdeviceptr p = 0;
    int count = 32;
    void* args[] = {&p, &count};
    const cu::Api& a = cu::api();
    for (int i = 0; i < 1000; ++i) a.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr);
    ctx->synchronize();
    cu::Event e0(ctx), e1(ctx);
    e0.record();
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i)
      WL_CU_CHECK(a.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), "empty");
    const auto t1 = std::chrono::steady_clock::now();
    e1.record();
    e1.synchronize();
    const double host_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / static_cast<double>(n);
    std::printf("raw %.3f %.3f\n", 1000.0 * cu::elapsed_ms(e0, e1) / static_cast<double>(n), host_us);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "launch_raw: %s\n", e.what());
    return 1;
  }
}
