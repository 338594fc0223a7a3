// function.hpp: one kernel of a loaded module. Its attributes (cuFuncGetAttribute) and
// parameter layout (cuFuncGetParamInfo) are read once at creation, so a launch queries
// nothing. Obtained from Module::function(), which keeps one Function per kernel.
#pragma once
#include <cuda.h>

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cu/context.hpp"
#include "cu/limits.hpp"

namespace warplab::cu {

// The CU_FUNC_ATTRIBUTE_* values warplab shows, named as in cuda.h (lower case).
struct FunctionAttributes {
  int num_regs = 0;
  int shared_size_bytes = 0;  // static __shared__
  int local_size_bytes = 0;   // per thread (spills, local arrays)
  int const_size_bytes = 0;
  int max_threads_per_block = 0;          // the kernel's own cap: launch bounds or registers
  int ptx_version = 0;                    // 90 for compute_90
  int binary_version = 0;                 // 90 for sm_90
  int max_dynamic_shared_size_bytes = 0;  // at creation (48 KiB - static by default)
};

// Where one parameter sits in the kernel's parameter buffer.
struct ParamInfo {
  std::size_t offset = 0;
  std::size_t size = 0;
};

class Function {
 public:
  // Reads attributes and parameter layout of `f` (mangled name `name`) in `ctx`. With
  // `param_count` (the kernel's .entry parameters, from its PTX) the layout is asked for
  // exactly those; without it, index by index until the driver refuses one, which tools
  // such as compute-sanitizer report as an API error.
  Function(ContextPtr ctx, CUfunction f, std::string name, std::optional<std::size_t> param_count = {});
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;

  CUfunction get() const noexcept { return fn_; }
  const std::string& name() const noexcept { return name_; }  // mangled
  const ContextPtr& context() const noexcept { return ctx_; }
  const FunctionAttributes& attributes() const noexcept { return attrs_; }
  // The resources launch validation and occupancy use (barriers: unknown, taken as 1).
  const KernelLimits& limits() const noexcept { return limits_; }

  // False on drivers without cuFuncGetParamInfo (before CUDA 12.4).
  bool params_known() const noexcept { return params_known_; }
  const std::vector<ParamInfo>& params() const noexcept { return params_; }

  // Dynamic shared memory the kernel may currently use without another opt-in.
  unsigned dynamic_shared_limit() const noexcept { return dynamic_limit_.load(std::memory_order_relaxed); }
  // Raises CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES to `bytes` when that is above
  // the current limit; the new limit is remembered, so this calls the driver only when
  // the requirement grows. Throws cu::Error naming the kernel and the size.
  void ensure_dynamic_shared(unsigned bytes) const;

  // Sets CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED (once): clusters above the
  // portable 8 blocks, up to what the device allows. Throws cu::Error naming the kernel.
  void allow_non_portable_clusters() const;

 private:
  ContextPtr ctx_;
  CUfunction fn_ = nullptr;
  std::string name_;
  FunctionAttributes attrs_;
  KernelLimits limits_;
  bool params_known_ = false;
  std::vector<ParamInfo> params_;
  mutable std::atomic<unsigned> dynamic_limit_{0};
  mutable std::atomic<bool> non_portable_clusters_{false};
};

}  // namespace warplab::cu
