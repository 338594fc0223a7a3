// function.cpp: reads a kernel's attributes and parameter layout once; remembers the
// dynamic shared memory opt-in.
#include "cu/function.hpp"

#include "cu/driver.hpp"
#include "cu/error.hpp"

namespace warplab::cu {

Function::Function(ContextPtr ctx, CUfunction f, std::string name, std::optional<std::size_t> param_count)
    : ctx_(std::move(ctx)), fn_(f), name_(std::move(name)) {
  const Api& a = api();
  ctx_->make_current();
  auto get = [&](CUfunction_attribute which) {
    int v = 0;
    WL_CU_CHECK(a.cuFuncGetAttribute(&v, which, fn_), "kernel " + name_);
    return v;
  };
  // Under lazy module loading (the CUDA 12.2+ default) an enumerated handle may be only
  // partially loaded; finish loading now so the queries below and launches see it whole.
  if (a.cuFuncLoad) WL_CU_CHECK(a.cuFuncLoad(fn_), "kernel " + name_);
  attrs_.num_regs = get(CU_FUNC_ATTRIBUTE_NUM_REGS);
  attrs_.shared_size_bytes = get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  attrs_.local_size_bytes = get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  attrs_.const_size_bytes = get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
  attrs_.max_threads_per_block = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  attrs_.ptx_version = get(CU_FUNC_ATTRIBUTE_PTX_VERSION);
  attrs_.binary_version = get(CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  attrs_.max_dynamic_shared_size_bytes = get(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  dynamic_limit_.store(static_cast<unsigned>(attrs_.max_dynamic_shared_size_bytes));
  limits_.regs = attrs_.num_regs;
  limits_.static_shared = attrs_.shared_size_bytes;
  limits_.max_threads_per_block = attrs_.max_threads_per_block;
  limits_.barriers = 1;

  // Parameter layout: index 0 .. param_count - 1 when the count is known (CUDA 13 has no
  // call that gives it); else ask 0, 1, ... until the driver says the index is out of
  // range (CUDA_ERROR_INVALID_VALUE). 4 KiB of parameters allow at most 4096 of them
  // (32 KiB on newer drivers), so the cap only guards against a driver that never stops.
  if (a.cuFuncGetParamInfo) {
    params_known_ = true;
    const std::size_t n = param_count.value_or(32768);
    for (std::size_t i = 0; i < n; ++i) {
      ParamInfo p;
      const CUresult rc = a.cuFuncGetParamInfo(fn_, i, &p.offset, &p.size);
      if (rc == CUDA_ERROR_INVALID_VALUE && !param_count) break;
      if (rc != CUDA_SUCCESS)
        throw Error(rc, "cuFuncGetParamInfo", "kernel " + name_ + ", parameter " + std::to_string(i));
      params_.push_back(p);
    }
  }
}

void Function::ensure_dynamic_shared(unsigned bytes) const {
  if (bytes <= dynamic_limit_.load(std::memory_order_relaxed)) return;
  WL_CU_CHECK(
      api().cuFuncSetAttribute(fn_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(bytes)),
      "kernel " + name_ + ", " + std::to_string(bytes) + " bytes of dynamic shared memory");
  // Only ever raised: a concurrent caller with a larger need wins.
  unsigned cur = dynamic_limit_.load(std::memory_order_relaxed);
  while (cur < bytes && !dynamic_limit_.compare_exchange_weak(cur, bytes)) {
  }
}

void Function::allow_non_portable_clusters() const {
  if (non_portable_clusters_.load(std::memory_order_relaxed)) return;
  WL_CU_CHECK(api().cuFuncSetAttribute(fn_, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
              "kernel " + name_ + ", clusters above the portable size of 8 blocks");
  non_portable_clusters_.store(true, std::memory_order_relaxed);
}

}  // namespace warplab::cu
