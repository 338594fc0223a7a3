// compile/lines.cpp: compile_lines (lines.hpp): the module as lab sees it, each kernel's
// line map, the listing.
#include "app/compile/lines.hpp"

#include "lab/line_map.hpp"
#include "lab/lines.hpp"
#include "rtc/signature.hpp"

namespace warplab::app {

std::string compile_lines(const rtc::Source& src, const rtc::Options& opt, const rtc::CompileResult& r,
                          bool sass, bool color) {
  lab::ModuleObj m;
  m.spec.source = src;
  m.spec.options = opt;
  m.result = r;
  std::vector<lab::KernelLines> maps;
  for (const std::string& mangled : r.entries) {
    const auto sig = rtc::demangle(mangled);
    maps.push_back(lab::kernel_lines(m, mangled, sig ? sig->name : mangled));
  }
  return lab::lines_text(lab::map_report(maps), color, sass);
}

}  // namespace warplab::app
