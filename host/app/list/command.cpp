// list/command.cpp: `warplab list [FOLDER]`: every example script (examples/**/*.lua) with
// the one-line summary of its header, grouped by folder. The shipped examples are found by
// cli/examples.cpp (beside the binary, else the source tree); `warplab run FOLDER/NAME.lua`
// runs one of them from any folder. On a terminal the summaries wrap to its width under
// their own column; piped, each example stays one line (for grep).
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/command.hpp"
#include "sys/read.hpp"
#include "sys/shown.hpp"

namespace fs = std::filesystem;

namespace warplab::app {
namespace {

// The width to wrap at: 0 (none) when stdout is not a terminal, so that `warplab list |
// grep shared` finds an example's name with its whole summary; else $COLUMNS when it is a
// number, else the terminal's own width, else 80.
std::size_t wrap_width() {
  if (!isatty(STDOUT_FILENO)) return 0;
  if (const char* c = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(c, &end, 10);
    if (*c && *end == '\0' && n > 0 && n < 10000) return static_cast<std::size_t>(n);
  }
  winsize ws = {};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

// `text` after `lead` (printed first, `indent` columns wide), its words filling lines of
// `width` columns, each continuation indented to the same column (a hanging indent); a
// word longer than a line gets a line of its own. Width 0: one line.
std::string wrapped(const std::string& lead, const std::string& text, std::size_t indent, std::size_t width) {
  if (width == 0) return lead + text + "\n";
  width = std::max(width, indent + 20);  // a narrow terminal still gets 20 columns of text
  std::string out = lead;
  std::size_t col = lead.size();
  bool empty = true;  // no word on this line yet
  std::istringstream words(text);
  for (std::string w; words >> w;) {
    if (!empty && col + 1 + w.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
      empty = true;
    }
    out += (empty ? "" : " ") + w;
    col += w.size() + (empty ? 0 : 1);
    empty = false;
  }
  return out + "\n";
}

fs::path find_examples(const std::string& given) {
  std::error_code ec;
  if (!given.empty()) {
    if (!fs::is_directory(given, ec))
      throw Error(ErrorKind::bad_input, "examples folder '" + sys::shown(given) + "' is not a directory");
    return given;
  }
  if (const std::string d = shipped_examples(); !d.empty()) return d;
  std::string looked;
  for (const std::string& d : examples_candidates()) looked += (looked.empty() ? "" : ", ") + d;
  throw Error(ErrorKind::bad_input, "no examples folder found (looked in " + looked + ")");
}

// The header's first "-- <file name>: summary" line among the leading comment lines,
// joined with the lines that continue it (up to the next "Field:" line such as
// "-- Shows:"), so a summary wrapped over two lines prints whole; empty when none, or
// when the file cannot be read (`unreadable` says why).
struct Summary {
  std::string text;
  std::string unreadable;
};
Summary summary_of(const fs::path& file) {
  // Only the opening comment block matters: read at most its first 64 KiB (a huge file
  // with no line break must not be read whole).
  std::string head;
  if (auto e = sys::read_head(file.string(), head, 64 * 1024)) return {{}, std::move(*e)};
  std::istringstream in(head);
  const std::string prefix = "-- " + file.filename().string() + ":";
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("--", 0) != 0) break;  // the header is the opening comment block
    if (line.rfind(prefix, 0) == 0) {
      std::string s = line.substr(prefix.size());
      s.erase(0, s.find_first_not_of(" \t"));
      while (std::getline(in, line) && line.rfind("-- ", 0) == 0) {
        std::string more = line.substr(3);
        more.erase(0, more.find_first_not_of(" \t"));
        const auto colon = more.find(':');
        // A new header field ("Shows:", "Expect:", "Run:") or a blank comment ends it.
        if (more.empty() || (colon != std::string::npos && colon < 12 &&
                             more.substr(0, colon).find(' ') == std::string::npos))
          break;
        s += " " + more;
      }
      return {s, {}};
    }
  }
  return {};
}

// `list --json`: {"dir", "examples": [{"path", "folder", "name", "summary"}]}; a script
// without a header line has summary null, as one that cannot be read (said on stderr).
int list_json(const fs::path& root, const std::map<std::string, std::vector<fs::path>>& groups) {
  nlohmann::ordered_json j;
  j["dir"] = root.lexically_normal().string();
  j["examples"] = nlohmann::ordered_json::array();
  for (const auto& [dir, files] : groups)
    for (const fs::path& f : files) {
      const Summary s = summary_of(f);
      if (!s.unreadable.empty())
        std::cerr << "warplab: cannot read " << f.string() << ": " << s.unreadable << "\n";
      const std::string& summary = s.text;
      j["examples"].push_back(
          {{"path", f.lexically_normal().string()},
           {"folder", dir},
           {"name", f.filename().string()},
           {"summary", summary.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(summary)}});
    }
  std::cout << j.dump(2) << "\n";
  return kOk;
}

int list_examples(const std::string& folder, bool json) {
  // The shipped examples run by their name here ("warps/ids.lua"); another folder's by path.
  const bool shipped = folder.empty();
  const fs::path root = find_examples(folder);
  // Folder (relative, "" for the top) -> file names, both sorted.
  std::map<std::string, std::vector<fs::path>> groups;
  // Error codes, not exceptions: a symlink loop, a dangling link or an unreadable folder
  // inside is skipped, not the end of the listing. Links to folders are not followed.
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  if (ec)
    throw Error(ErrorKind::bad_input, "cannot read examples folder '" + root.string() + "': " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const fs::directory_entry& e = *it;
    std::error_code fec;
    if (!e.is_regular_file(fec) || e.path().extension() != ".lua") continue;
    const std::string rel = e.path().parent_path().lexically_relative(root).generic_string();
    groups[rel == "." ? "" : rel].push_back(e.path());
  }
  std::size_t width = 0;
  const std::size_t columns = wrap_width();
  for (auto& [dir, files] : groups) {
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) width = std::max(width, f.filename().string().size());
  }
  if (json) return list_json(root, groups);
  std::cout << "examples in " << root.lexically_normal().string() << "\n";
  if (groups.empty()) std::cout << "  (none)\n";
  for (const auto& [dir, files] : groups) {
    std::cout << "\n" << (dir.empty() ? "./" : dir + "/") << "\n";
    for (const fs::path& f : files) {
      const std::string name = f.filename().string();
      const Summary s = summary_of(f);
      std::string summary = s.text;
      if (!s.unreadable.empty())
        summary = "(cannot read it: " + s.unreadable + ")";
      else if (summary.empty())
        summary = "(no summary: its first line should read \"-- " + name + ": what it shows\")";
      std::cout << wrapped("  " + name + std::string(width - name.size() + 2, ' '), summary, width + 4,
                           columns);
    }
  }
  if (!groups.empty()) {
    const fs::path first = groups.begin()->second.front().lexically_normal();
    const std::string name = shipped ? first.lexically_relative(root).generic_string() : first.string();
    std::cout << "\n"
              << wrapped("run one: warplab run " + name + "  ",
                         std::string("(") + (shipped ? "by its name, from any folder; " : "") +
                             "--params lists what -p key=value sets)",
                         2, columns);
  }
  return kOk;
}

}  // namespace

void add_list_command(CLI::App& app, const Globals&, Commands& out) {
  auto folder = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("list", "list the example scripts with their one-line summaries");
  sub->add_option("folder", *folder, "an examples folder (default: the one shipped with warplab)")
      ->type_name("DIR");
  sub->add_flag("--json", *json, "print {dir, examples: [{path, folder, name, summary}]}");
  set_help(sub, {"warplab list", "warplab list --json", "warplab list my-experiments/"});
  out.push_back({sub, [folder, json] { return list_examples(*folder, *json); }});
}

}  // namespace warplab::app
