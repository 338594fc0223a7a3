// module.cpp: cuModuleLoadDataEx with a captured JIT log, kernel enumeration and the
// per-module table of Function objects.
#include "cu/module.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cu/driver.hpp"
#include "cu/error.hpp"

namespace warplab::cu {
namespace {

// Trailing whitespace and NULs off a driver log buffer.
std::string trim_log(const char* buf, std::size_t cap) {
  std::string s(buf, strnlen(buf, cap));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

void ModuleTraits::destroy(CUmodule m) noexcept { api().cuModuleUnload(m); }

std::shared_ptr<Module> Module::load_cubin(ContextPtr ctx, std::string_view image, std::string name) {
  // An ELF image carries its own size, so the driver reads no further than the bytes.
  if (image.size() < 4) throw Error("module '" + name + "': the cubin image is empty");
  ctx->make_current();
  // The JIT writes its diagnostics into caller-provided buffers; without them a bad
  // image says only its error code.
  constexpr unsigned kLogBytes = 16384;
  std::string error_log(kLogBytes, '\0');
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(kLogBytes))};
  CUmodule raw = nullptr;
  const CUresult rc = api().cuModuleLoadDataEx(&raw, image.data(), 2, opts, values);
  if (rc != CUDA_SUCCESS) {
    std::string msg = "cuModuleLoadDataEx (module '" + name + "', cubin) failed: " + error_text(rc);
    const std::string log = trim_log(error_log.data(), kLogBytes);
    if (!log.empty()) msg += "; JIT log: " + log;
    throw Error(msg, rc);
  }
  std::shared_ptr<Module> m(new Module(Handle<ModuleTraits>(std::move(ctx), raw), std::move(name)));
  m->enumerate();
  return m;
}

void Module::enumerate() {
  const Api& a = api();
  if (!a.cuModuleGetFunctionCount || !a.cuModuleEnumerateFunctions || !a.cuFuncGetName)
    return;  // older driver: function() still works by name
  unsigned count = 0;
  WL_CU_CHECK(a.cuModuleGetFunctionCount(&count, get()), "module '" + name_ + "'");
  handles_.resize(count);
  if (count > 0)
    WL_CU_CHECK(a.cuModuleEnumerateFunctions(handles_.data(), count, get()), "module '" + name_ + "'");
  names_.reserve(count);
  for (CUfunction f : handles_) {
    const char* n = nullptr;
    WL_CU_CHECK(a.cuFuncGetName(&n, f), "module '" + name_ + "'");
    names_.emplace_back(n ? n : "");
  }
}

std::shared_ptr<Function> Module::function(const std::string& mangled,
                                           std::optional<std::size_t> param_count) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = functions_.find(mangled);
  if (it == functions_.end()) {
    CUfunction handle = nullptr;
    const auto pos = std::find(names_.begin(), names_.end(), mangled);
    if (pos != names_.end()) {
      handle = handles_[static_cast<std::size_t>(pos - names_.begin())];
    } else {
      const CUresult rc = api().cuModuleGetFunction(&handle, get(), mangled.c_str());
      if (rc == CUDA_ERROR_NOT_FOUND || rc == CUDA_ERROR_INVALID_VALUE) {
        std::string known;
        for (std::size_t i = 0; i < names_.size() && i < 12; ++i) known += (i ? ", " : "") + names_[i];
        if (names_.size() > 12) known += ", ...";
        throw Error("module '" + name_ + "' has no kernel '" + mangled +
                    "': " + (names_.empty() ? std::string("it has no kernels") : "it has " + known));
      }
      if (rc != CUDA_SUCCESS) throw Error(rc, "cuModuleGetFunction", "'" + mangled + "'");
    }
    it = functions_.emplace(mangled, std::make_unique<Function>(context(), handle, mangled, param_count))
             .first;
  }
  // Aliasing constructor: the caller's pointer owns the module, points at the kernel.
  return std::shared_ptr<Function>(shared_from_this(), it->second.get());
}

}  // namespace warplab::cu
