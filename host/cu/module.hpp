// module.hpp: a loaded CUDA module (a cubin) and its kernels. Loading captures the JIT
// error log into the error message; the kernels are enumerated by mangled name
// (cuModuleEnumerateFunctions + cuFuncGetName).
#pragma once
#include <cuda.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cu/context.hpp"
#include "cu/function.hpp"
#include "cu/handle.hpp"

namespace warplab::cu {

struct ModuleTraits {
  using Raw = CUmodule;
  static void destroy(CUmodule m) noexcept;  // cuModuleUnload
};

// Always held through std::shared_ptr: a Function handed out by function() shares the
// module's ownership (aliasing shared_ptr), so a kernel handle keeps its module loaded,
// and the module keeps its context.
class Module : public std::enable_shared_from_this<Module> {
 public:
  // `image`: a cubin (ELF) or fatbin as produced by NVRTC. `name` labels errors
  // ("module 'clock.cu'"). Throws cu::Error with the JIT log appended on failure.
  static std::shared_ptr<Module> load_cubin(ContextPtr ctx, std::string_view image, std::string name);
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  CUmodule get() const noexcept { return mod_.get(); }
  const std::string& name() const noexcept { return name_; }
  const ContextPtr& context() const noexcept { return mod_.context(); }

  // The kernel with this mangled (lowered) name, created once per module and shared by
  // every caller, so a dynamic-shared opt-in is remembered per kernel. Throws cu::Error:
  // "module 'm.cu' has no kernel 'foo': it has _Z3bari, _Z3bazv". `param_count`: as
  // Function's (the first caller's count is the one used).
  std::shared_ptr<Function> function(const std::string& mangled,
                                     std::optional<std::size_t> param_count = {}) const;

 private:
  Module(Handle<ModuleTraits> mod, std::string name) : mod_(std::move(mod)), name_(std::move(name)) {}
  // The kernels' mangled names and handles, in the driver's order (none when the driver
  // predates cuModuleEnumerateFunctions, CUDA 12.4: function() then asks by name).
  void enumerate();

  // Declared first, so destroyed last: the Function objects below go before the unload.
  Handle<ModuleTraits> mod_;
  std::string name_;
  std::vector<std::string> names_;
  std::vector<CUfunction> handles_;  // parallel to names_
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::unique_ptr<Function>, std::less<>> functions_;
};

using ModulePtr = std::shared_ptr<Module>;

}  // namespace warplab::cu
