// module_reload.cpp: the live refresh and m:reload() (see module_reload.hpp).
#include "lab/module_reload.hpp"

#include <cstdio>

#include "lab/module_spec.hpp"
#include "rtc/compile.hpp"

namespace warplab::lab {

bool refresh(ModuleRef& m, const Builder& build, bool color, bool quiet) {
  if (m->spec.path.empty() || !files_changed(m->stamps)) return false;
  ModuleSpec spec = m->spec;
  if (const auto why = reread_source(spec)) {
    std::fprintf(stderr, "warplab: %s changed but cannot be read (%s); still using the previous module\n",
                 m->spec.path.c_str(), why->c_str());
    m->stamps.clear();  // nothing more to follow until m:reload()
    return false;
  }
  ModuleRef fresh = build(std::move(spec));
  if (!fresh->result.ok) {
    std::fprintf(stderr, "warplab: %s changed but no longer compiles; still using the previous module\n%s",
                 m->spec.path.c_str(), rtc::format_diagnostics(fresh->result, 10, color).c_str());
    m->stamps = std::move(fresh->stamps);  // report this version once
    return false;
  }
  if (!quiet)
    std::fprintf(stderr, "warplab: %s changed: recompiled (%.0f ms)\n", m->spec.path.c_str(),
                 fresh->result.compile_ms);
  m = std::move(fresh);  // kernels already handed out keep the old code alive
  return true;
}

std::optional<std::string> reload(const ModuleRef& m, const Builder& build, ModuleRef& fresh) {
  if (m->spec.path.empty())
    throw Error(ErrorKind::bad_input,
                "module " + std::string(m->spec.source.name.c_str()) + " has no file to reload from");
  ModuleSpec spec = m->spec;
  if (auto why = reread_source(spec)) return why;
  fresh = build(std::move(spec));
  return std::nullopt;
}

}  // namespace warplab::lab
