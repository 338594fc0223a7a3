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

std::shared_ptr<Module> Module::load_cubin(ContextPtr ctx, std::string_view image, std::string name) {
  // An ELF image carries its own size, so the driver reads no further than the bytes.
  if (image.size() < 4) throw Error("module '" + name + "': the cubin image is empty");
  return load(std::move(ctx), image.data(), std::move(name), "cubin");
}

std::shared_ptr<Module> Module::load_ptx(ContextPtr ctx, std::string_view ptx, std::string name) {
  // The driver reads PTX up to a NUL: copy so the terminator is guaranteed.
  const std::string text(ptx);
  return load(std::move(ctx), text.c_str(), std::move(name), "PTX");
}

std::shared_ptr<Module> Module::load(ContextPtr ctx, const void* image, std::string name, const char* kind) {
  ctx->make_current();
  std::shared_ptr<Module> m(new Module(std::move(ctx), std::move(name)));
  // The JIT writes its diagnostics into caller-provided buffers; without them a bad
  // PTX load says only CUDA_ERROR_INVALID_PTX.
  constexpr unsigned kLogBytes = 16384;
  std::string error_log(kLogBytes, '\0');
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(kLogBytes))};
  const CUresult rc = api().cuModuleLoadDataEx(&m->mod_, image, 2, opts, values);
  if (rc != CUDA_SUCCESS) {
    m->mod_ = nullptr;
    std::string msg =
        "cuModuleLoadDataEx (module '" + m->name_ + "', " + kind + ") failed: " + error_text(rc);
    const std::string log = trim_log(error_log.data(), kLogBytes);
    if (!log.empty()) msg += "; JIT log: " + log;
    throw Error(msg, rc);
  }
  m->enumerate();
  return m;
}

void Module::enumerate() {
  const Api& a = api();
  if (!a.cuModuleGetFunctionCount || !a.cuModuleEnumerateFunctions || !a.cuFuncGetName)
    return;  // older driver: function() still works by name
  unsigned count = 0;
  WL_CU_CHECK(a.cuModuleGetFunctionCount(&count, mod_), "module '" + name_ + "'");
  handles_.resize(count);
  if (count > 0)
    WL_CU_CHECK(a.cuModuleEnumerateFunctions(handles_.data(), count, mod_), "module '" + name_ + "'");
  names_.reserve(count);
  for (CUfunction f : handles_) {
    const char* n = nullptr;
    WL_CU_CHECK(a.cuFuncGetName(&n, f), "module '" + name_ + "'");
    names_.emplace_back(n ? n : "");
  }
}

Module::~Module() {
  // Destroy the Function objects first (they hold no driver resources, only handles).
  functions_.clear();
  // Errors are ignored: a destructor must not throw, and after a sticky fault
  // (illegal address) every call fails anyway.
  if (mod_ && driver_available()) {
    api().cuCtxSetCurrent(ctx_->get());
    api().cuModuleUnload(mod_);
  }
}

bool Module::has_function(std::string_view mangled) const {
  return std::find(names_.begin(), names_.end(), mangled) != names_.end();
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
      const CUresult rc = api().cuModuleGetFunction(&handle, mod_, mangled.c_str());
      if (rc == CUDA_ERROR_NOT_FOUND || rc == CUDA_ERROR_INVALID_VALUE) {
        std::string known;
        for (std::size_t i = 0; i < names_.size() && i < 12; ++i) known += (i ? ", " : "") + names_[i];
        if (names_.size() > 12) known += ", ...";
        throw Error("module '" + name_ + "' has no kernel '" + mangled +
                    "': " + (names_.empty() ? std::string("it has no kernels") : "it has " + known));
      }
      if (rc != CUDA_SUCCESS) throw Error(rc, "cuModuleGetFunction", "'" + mangled + "'");
    }
    it = functions_.emplace(mangled, std::make_unique<Function>(ctx_, handle, mangled, param_count)).first;
  }
  // Aliasing constructor: the caller's pointer owns the module, points at the kernel.
  return std::shared_ptr<Function>(shared_from_this(), it->second.get());
}

}  // namespace warplab::cu
