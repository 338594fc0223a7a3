// cli/examples.cpp: the examples folder shipped with warplab and a script named by its
// `warplab list` name ("warps/ids.lua"), so `warplab run warps/ids.lua` works from any
// folder once installed. The folder is found relative to the binary (build/../examples in
// a checkout, PREFIX/share/warplab/examples once installed), else in the source tree the
// binary was built from.
#include <filesystem>

#include "app/cli/command.hpp"

namespace fs = std::filesystem;

namespace warplab::app {

std::vector<std::string> examples_candidates() {
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back((exe.parent_path().parent_path() / "examples").lexically_normal().string());
    out.push_back((exe.parent_path().parent_path() / "share/warplab/examples").lexically_normal().string());
  }
  out.push_back((fs::path(WARPLAB_SOURCE_DIR) / "examples").lexically_normal().string());
  return out;
}

std::string shipped_examples() {
  std::error_code ec;
  for (const std::string& d : examples_candidates())
    if (fs::is_directory(d, ec)) return d;
  return {};
}

std::string resolve_script(const std::string& script) {
  std::error_code ec;
  // A file by that name here (or an absolute path) is always the one meant.
  if (script.empty() || fs::exists(script, ec) || fs::path(script).is_absolute()) return script;
  const std::string dir = shipped_examples();
  if (dir.empty()) return script;
  // "warps/ids.lua", or "examples/warps/ids.lua" as the README writes it from the checkout.
  for (fs::path name : {fs::path(script), fs::path(script).lexically_relative("examples")}) {
    name = name.lexically_normal();
    if (name.empty() || *name.begin() == "..") continue;
    const fs::path p = fs::path(dir) / name;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return script;
}

}  // namespace warplab::app
