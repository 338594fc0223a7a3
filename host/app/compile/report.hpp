// compile/report.hpp: what `warplab compile` prints about a result: the resource table,
// the --json object, and the template kernels a source declares (for the "0 kernels" hint).
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "cu/limits.hpp"
#include "rtc/compile.hpp"

namespace warplab::app {

// One row per kernel: signature (demangled when C++), then its resources and the largest
// block it can be launched with on `limits` (launch bounds and registers, as k.max_threads
// says; unknown without limits); "?" for an unknown number, with the result's notes below
// saying why.
void print_table(std::ostream& os, const rtc::CompileResult& r, const cu::DeviceLimits* limits);

// The names of `template ... __global__` kernels in a source's text.
std::vector<std::string> template_kernels(const std::string& text);

// `compile --json`: {file, arch, nvrtc, ok, ptx_only, from_cache, kernels, notes,
// diagnostics}; unknown numbers are null, never 0 (docs/cli.md). A kernel's max_threads
// is print_table's, on `limits`.
nlohmann::ordered_json result_json(const std::string& file, const rtc::CompileResult& r,
                                   const cu::DeviceLimits* limits);

}  // namespace warplab::app
