// module.cpp: building a module (compile, record what it read, stamp, load) and making
// its kernels (resources, limits, layout, launch plan).
#include "lab/module.hpp"

#include <algorithm>
#include <cstdio>

#include "cu/trace.hpp"
#include "lab/launch.hpp"
#include "lab/prebuilt.hpp"
#include "lab/watch_feed.hpp"
#include "rtc/ptx.hpp"
#include "sys/output.hpp"

namespace warplab::lab {

void feed_dependencies(const ModuleSpec& spec, const rtc::CompileResult& r) {
  if (!spec.path.empty()) {
    feed_dependency(spec.path);
    sys::note_input(spec.path, "a kernel source");  // no output of this run replaces it (sys/output.hpp)
  }
  // Headers are known even when the compile failed: their fix must trigger a re-run too.
  for (const auto& d : r.dependencies) {
    feed_dependency(d.path.string());
    sys::note_input(d.path.string(), "a header of " + spec.source.name);
  }
}

ModuleRef build(ModuleSpec spec, rtc::Cache* cache, const cu::ContextPtr& ctx) {
  feed_module(spec);                       // for `warplab watch`'s next run (prebuilt.hpp)
  ModuleRef m = take_prebuilt(spec, ctx);  // built ahead by a watched run's standby
  const bool ahead = m != nullptr;
  if (!ahead) {
    m = std::make_shared<ModuleObj>();
    m->spec = std::move(spec);
    m->result = rtc::compile(m->spec.source, m->spec.options, cache);
  }
  if (cu::tracing()) {  // WARPLAB_STARTUP_TRACE: where a run's compile time went
    const rtc::CompileResult& r = m->result;
    const std::string how = ahead          ? "built ahead"
                            : r.from_cache ? "from the cache"
                            : r.pch        ? "warm headers"
                                           : "no PCH";
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.1f", r.compile_ms);
    cu::trace(("module " + m->spec.source.name + " (" + how + ", compile " + ms + " ms)").c_str());
  }
  feed_dependencies(m->spec, m->result);
  if (!ahead) m->stamps = stamp_files(m->spec, m->result);
  if (m->result.ok) feed_code(m->spec.source.name, m->result);
  if (m->result.ok && ctx && !ahead) {
    const cu::TraceScope t("module loaded");
    m->live = cu::Module::load_cubin(ctx, std::string_view(m->result.cubin.data(), m->result.cubin.size()),
                                     m->spec.source.name);
  }
  return m;
}

KernelObj::~KernelObj() {
  if (module) feed_launch(module->spec.source.name, mangled, last_launch);
}

KernelRef make_kernel(const ModuleRef& m, const std::string& mangled, std::optional<rtc::Signature> sig,
                      const cu::DeviceLimits* offline_limits) {
  auto k = std::make_shared<KernelObj>();
  k->module = m;
  k->mangled = mangled;
  k->sig = std::move(sig);
  k->display = k->sig ? k->sig->name : mangled;
  if (const auto* r = m->result.resources(mangled)) k->res = *r;
  k->limits = {k->res.registers.value_or(0), static_cast<int>(k->res.shared_bytes.value_or(0)), 0,
               std::max(1, k->res.barriers.value_or(1))};
  if (m->live) {
    // The parameter count from the PTX's .entry, so the driver is asked for exactly those.
    const auto entry = rtc::ptx_entry(m->result.ptx, mangled);
    k->fn = m->live->function(mangled, entry ? std::optional(entry->params.size()) : std::nullopt);
    k->limits = k->fn->limits();
    k->limits.barriers = std::max(1, k->res.barriers.value_or(1));  // the driver does not report them
    for (const auto& p : k->fn->params()) {
      k->offsets.push_back(p.offset);
      k->sizes.push_back(p.size);
    }
    if (!k->fn->params_known()) ptx_layout(*k);  // a driver before CUDA 12.4
  } else {
    // Unknown registers: max_threads stays 0 (unknown) rather than a guess.
    if (k->res.registers && offline_limits) offline_max_threads(*k, *offline_limits);
    ptx_layout(*k);
  }
  code_rules(*k);
  if (k->sig && !k->offsets.empty() && k->sig->params.size() != k->offsets.size())
    throw Error(ErrorKind::bad_input, "kernel " + k->display + ": the declared signature has " +
                                          std::to_string(k->sig->params.size()) +
                                          " parameters but the kernel takes " +
                                          std::to_string(k->offsets.size()));
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < k->offsets.size(); ++i) bytes = std::max(bytes, k->offsets[i] + k->sizes[i]);
  k->argbuf.assign(bytes + 16, 0);
  for (std::size_t off : k->offsets) k->argptrs.push_back(k->argbuf.data() + off);
  plan_args(*k);  // the per-parameter launch plan (launch.hpp)
  return k;
}

}  // namespace warplab::lab
