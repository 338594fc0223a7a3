// gpu_support.hpp: helpers for the GPU tests: NVRTC compiled straight to a cubin for the
// device's architecture, and a live DeviceSnapshot read attribute by attribute (so these
// tests do not depend on device.cpp). Used only by tests/gpu/*.cpp.
#pragma once
#include <string>
#include <vector>

#include "cu/context.hpp"
#include "cu/device.hpp"
#include "cu/module.hpp"

namespace warplab_gpu {

// "sm_90" for device 0.
std::string device_arch();
// Compiles CUDA C++ `source` with NVRTC for device 0's architecture (cubin) or, with
// `ptx`, for its virtual architecture. Throws std::runtime_error with the NVRTC log.
std::string nvrtc_compile(const std::string& source, const std::string& name,
                          const std::vector<std::string>& options = {}, bool ptx = false);
// Compile + load in one step.
warplab::cu::ModulePtr load(const warplab::cu::ContextPtr& ctx, const std::string& source,
                            const std::string& name, const std::vector<std::string>& options = {});
// The attributes device_limits() needs, read with cuDeviceGetAttribute.
warplab::cu::DeviceSnapshot live_snapshot(int ordinal = 0);

// Kernels shared by several tests (extern "C" except scale, which keeps its mangled name
// _Z5scalePffi): iota_k, scale, params_k, touch, bounded (__launch_bounds__(256)),
// dyn_smem, fault.
extern const char* const kBasicKernels;

}  // namespace warplab_gpu
