// cli/examples.cpp: the examples folder shipped with warplab and a script named by its
// `warplab list` name ("warps/ids.lua"), so `warplab run warps/ids.lua` works from any
// folder once installed. The folder is found relative to the binary (build/../examples in
// a checkout, PREFIX/share/warplab/examples once installed), else in the source tree the
// binary was built from. Also the examples' names (completion offers them) and the name
// nearest a script that is not there ("did you mean 'warps/ids.lua'?").
#include <algorithm>
#include <filesystem>

#include "app/cli/command.hpp"
#include "sys/text.hpp"

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

std::vector<std::string> example_names() {
  std::vector<std::string> out;
  const std::string dir = shipped_examples();
  if (dir.empty()) return out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    if (it->path().extension() == ".lua" && it->is_regular_file(fec))
      out.push_back(it->path().lexically_relative(dir).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string nearest_script(const std::string& script) {
  const fs::path given(script);
  const std::string base = given.filename().string();
  std::vector<std::string> names = example_names();
  const std::size_t examples = names.size();
  std::error_code ec;  // the .lua files of the folder the name points into (here, by default)
  const fs::path here = given.has_parent_path() ? given.parent_path() : fs::path(".");
  for (fs::directory_iterator it(here, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    if (it->path().extension() == ".lua" && it->is_regular_file(fec))
      names.push_back(
          (given.has_parent_path() ? here / it->path().filename() : it->path().filename()).string());
  }
  // An example of that very file name first ("ids.lua" is warps/ids.lua), then the closest
  // whole name or file name within two edits; a tie goes to the file here.
  // Names of up to three letters get one edit ("ab.lua" is not "ids.lua"), others two.
  std::size_t best = names.size(), best_d = given.stem().string().size() <= 3 ? 2 : 3;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const fs::path n(names[i]);
    std::size_t d =
        std::min(sys::edit_distance(script, names[i]), sys::edit_distance(base, n.filename().string()));
    if (i < examples && n.filename() == base) d = 0;
    if (d < best_d || (d == best_d && i >= examples && best < examples)) best = i, best_d = d;
  }
  return best < names.size() ? names[best] : std::string();
}

}  // namespace warplab::app
