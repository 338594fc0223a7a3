// repl/help.cpp: `:help NAME` (help.hpp). lua-api.md is found beside the binary (a build
// tree's ../docs, an install's ../share/doc/warplab/docs) or in the source tree it was built
// from.
#include "app/repl/help.hpp"

#include <filesystem>
#include <sstream>
#include <vector>

#include "sys/read.hpp"
#include "sys/shown.hpp"
#include "sys/text.hpp"

namespace warplab::app::repl {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> candidates() {
  std::vector<fs::path> out;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back(exe.parent_path().parent_path() / "docs/lua-api.md");
    out.push_back(exe.parent_path().parent_path() / "share/doc/warplab/docs/lua-api.md");
  }
#ifdef WARPLAB_SOURCE_DIR
  out.push_back(fs::path(WARPLAB_SOURCE_DIR) / "docs/lua-api.md");
#endif
  return out;
}

// "| `a` | b | c |" -> {"`a`", "b", "c"} (a "\|" inside a cell is a literal bar).
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (row[i] == '|') {
      out.push_back(sys::trim(cur, " "));
      cur.clear();
    } else {
      cur += row[i];
    }
  }
  return out;
}

std::string strip_ticks(std::string s) {
  std::string out;
  for (char c : s)
    if (c != '`') out += c;
  return out;
}

}  // namespace

std::string api_help(const std::string& name) {
  for (const fs::path& p : candidates()) {
    std::error_code ec;
    if (!fs::exists(p, ec)) continue;
    std::string text;
    if (const auto e = sys::read_whole(p.string(), text, 16u << 20))
      return "cannot read " + p.string() + ": " + *e;
    std::istringstream in(text);
    std::string out;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("| `", 0) != 0) continue;
      const std::vector<std::string> c = cells(line);
      if (c.size() < 2 || c[0].find(name) == std::string::npos) continue;
      out += strip_ticks(c[0]) + ": " + strip_ticks(c[1]);
      if (c.size() > 2 && !c[2].empty()) out += "  (e.g. " + strip_ticks(c[2]) + ")";
      out += "\n";
    }
    if (!out.empty()) return out.substr(0, out.size() - 1);
    return "nothing about '" + sys::shown(name) + "' in " + p.string() +
           " (try :help cuda.array, :help k:launch)";
  }
  return "docs/lua-api.md was not found beside warplab or in its source tree";
}

}  // namespace warplab::app::repl
