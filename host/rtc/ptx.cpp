// ptx.cpp: scanning PTX for .entry directives (each at the start of its line in the PTX
// NVRTC emits), reading only the lines that mention one.
#include "rtc/ptx.hpp"

#include <regex>

namespace warplab::rtc {

std::vector<std::string> ptx_entries(const std::string& ptx) {
  // Linkage directives may precede .entry: .visible for kernels, .weak for template
  // instantiations, .extern for declarations.
  static const std::regex entry(
      R"re(^\s*(?:\.(?:visible|weak|extern)\s+)*\.entry\s+([A-Za-z_$%][\w$%]*))re");
  std::vector<std::string> out;
  // Visit each ".entry" once and read the line it sits on.
  for (std::size_t at = ptx.find(".entry"); at != std::string::npos; ) {
    const std::size_t bol = ptx.rfind('\n', at);
    const std::size_t start = bol == std::string::npos ? 0 : bol + 1;
    std::size_t eol = ptx.find('\n', at);
    if (eol == std::string::npos) eol = ptx.size();
    const std::string line = ptx.substr(start, eol - start);
    std::smatch m;
    if (std::regex_search(line, m, entry)) out.push_back(m[1]);
    at = ptx.find(".entry", eol);
  }
  return out;
}

}  // namespace warplab::rtc
