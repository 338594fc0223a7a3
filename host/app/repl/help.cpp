// repl/help.cpp: `:help NAME` (help.hpp). lua-api.md is found beside the binary (a build
// tree's ../docs, an install's ../share/doc/warplab/docs) or in the source tree it was built
// from. Its cells are Markdown; the terminal gets them as plain text (terminal_text).
#include "app/repl/help.hpp"

#include <algorithm>
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

// A link's target as the terminal shows it: a section of `page` ("#graphs") or another page
// of the docs ("cli.md#script-arguments") named by its file; a web address as it is.
std::string link_text(const std::string& text, const std::string& target, const std::string& page) {
  if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0) return text + " (" + target + ")";
  const std::string file = target.substr(0, target.find('#'));
  if (file.empty()) return text + " in docs/" + page;
  if (text == file) return "docs/" + file;
  return text + " in docs/" + file;
}

// At `at`, "[text](target)" with no brackets or blanks where they cannot be: its length and
// parts, or 0.
std::size_t link_at(const std::string& s, std::size_t at, std::string& text, std::string& target) {
  const std::size_t close = s.find(']', at + 1);
  if (close == std::string::npos || close + 1 >= s.size() || s[close + 1] != '(') return 0;
  const std::size_t end = s.find(')', close + 2);
  if (end == std::string::npos) return 0;
  text = s.substr(at + 1, close - at - 1);
  target = s.substr(close + 2, end - close - 2);
  if (text.empty() || target.empty() || text.find('[') != std::string::npos ||
      target.find_first_of(" \t(") != std::string::npos)
    return 0;
  return end + 1 - at;
}

// At `at`, a pointer into the page, "(below)", "(above)", "(fields below)": its length, or 0.
std::size_t pointer_at(const std::string& s, std::size_t at) {
  const std::size_t end = s.find(')', at);
  if (end == std::string::npos || end - at > 20) return 0;
  const std::string inside = s.substr(at + 1, end - at - 1);
  const std::size_t last = inside.rfind(' ');
  const std::string word = last == std::string::npos ? inside : inside.substr(last + 1);
  const bool words = std::count(inside.begin(), inside.end(), ' ') <= 1;
  return words && (word == "below" || word == "above") ? end + 1 - at : 0;
}

}  // namespace

std::string terminal_text(const std::string& cell, const std::string& page) {
  std::string out;
  bool code = false;  // inside `...`: kept as written
  for (std::size_t i = 0; i < cell.size();) {
    std::string text, target;
    std::size_t n = 0;
    if (cell[i] == '`') {
      code = !code;
      ++i;
    } else if (code) {
      out += cell[i++];
    } else if (cell.compare(i, 4, "<!--") == 0) {  // a note for the docs' own checks
      const std::size_t end = cell.find("-->", i);
      i = end == std::string::npos ? cell.size() : end + 3;
    } else if (cell[i] == '[' && (n = link_at(cell, i, text, target)) > 0) {
      out += link_text(terminal_text(text, page), target, page);
      i += n;
    } else if (cell[i] == '(' && (n = pointer_at(cell, i)) > 0) {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      i += n;
    } else {
      out += cell[i++];
    }
  }
  return sys::trim(out, " ");
}

std::string api_help(const std::string& name) {
  for (const fs::path& p : candidates()) {
    std::error_code ec;
    if (!fs::exists(p, ec)) continue;
    std::string text;
    if (const auto e = sys::read_whole(p.string(), text, 16u << 20))
      return "cannot read " + p.string() + ": " + *e;
    std::istringstream in(text);
    const std::string page = p.filename().string();
    std::string out;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("| `", 0) != 0) continue;
      const std::vector<std::string> c = cells(line);
      if (c.size() < 2 || c[0].find(name) == std::string::npos) continue;
      const std::string example = c.size() > 2 ? terminal_text(c[2], page) : "";
      out += terminal_text(c[0], page) + ": " + terminal_text(c[1], page);
      if (!example.empty()) out += "  (e.g. " + example + ")";
      out += "\n";
    }
    if (!out.empty()) return out.substr(0, out.size() - 1);
    return "nothing about '" + sys::shown(name) + "' in " + p.string() +
           " (try :help cuda.array, :help k:launch)";
  }
  return "docs/lua-api.md was not found beside warplab or in its source tree";
}

}  // namespace warplab::app::repl
