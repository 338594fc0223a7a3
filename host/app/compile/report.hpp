// compile/report.hpp: what `warplab compile` prints about a result: the summary line, the
// resource table and what moved in it, the timings, the --json object, and the template
// kernels a source declares (for the "0 kernels" hint).
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "cu/limits.hpp"
#include "rtc/compile.hpp"
#include "rtc/pch.hpp"

namespace warplab::app {

// "k.cu: 1 kernel for sm_90 (NVRTC 13.0, 80 ms)", on `os`.
void print_summary(std::ostream& os, const std::string& file, const rtc::CompileResult& r);

// One row per kernel: signature (demangled when C++, read when extern "C"), then its
// resources and the largest block it can be launched with on `limits` (launch bounds and
// registers, as k.max_threads says; unknown without limits); "?" for an unknown number,
// with the result's notes below saying why.
void print_table(std::ostream& os, const rtc::CompileResult& r, const cu::DeviceLimits* limits);

// "regs 32→40, shared 1 KiB→2 KiB": the table's numbers that differ; "" when none does.
std::string resource_changes(const rtc::KernelResources& a, const rtc::KernelResources& b);

// --timings: "time: 212 ms: includes 0.4, cache 0.2, NVRTC 205 (front end 180, ...)",
// whether a PCH was used (`warm`: the headers kept warm first, or null), and on the GPU
// `live` (-1: none) the context and the module's load.
void print_timings(std::ostream& os, const rtc::CompileResult& r, const rtc::WarmResult* warm, int live);

// The names of `template ... __global__` kernels in a source's text.
std::vector<std::string> template_kernels(const std::string& text);

// `compile --json`: {file, arch, nvrtc, ok, ptx_only, from_cache, kernels, notes,
// diagnostics}; unknown numbers are null, never 0 (docs/cli.md). A kernel's max_threads
// is print_table's, on `limits`.
nlohmann::ordered_json result_json(const std::string& file, const rtc::CompileResult& r,
                                   const cu::DeviceLimits* limits);

}  // namespace warplab::app
