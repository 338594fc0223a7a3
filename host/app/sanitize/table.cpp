// sanitize/table.cpp: the closing table of `run --sanitize` (log.hpp): findings grouped per
// kind, kernel and file:line, one row each, then one sentence with the totals and the first
// place. Pure functions: findings in, text out.
#include <algorithm>
#include <map>
#include <sstream>

#include "app/sanitize/log.hpp"
#include "sys/text.hpp"

namespace warplab::app::sanitize {
std::vector<Finding> group(const std::vector<Finding>& findings) {
  std::vector<Finding> out;
  std::map<std::string, std::size_t> at;
  for (const Finding& f : findings) {
    const std::string key = f.kind + '\n' + f.kernel + '\n' + f.file + '\n' + std::to_string(f.line) + '\n' +
                            f.detail + '\n' + (f.warning ? "w" : "e");
    const auto [it, fresh] = at.emplace(key, out.size());
    if (fresh)
      out.push_back(f);
    else
      out[it->second].count += f.count;
  }
  return out;
}

std::string display_path(const std::string& file, const std::string& cwd) {
  if (cwd.empty() || file.size() <= cwd.size() || file.compare(0, cwd.size(), cwd) != 0) return file;
  if (cwd.back() == '/') return file.substr(cwd.size());
  return file[cwd.size()] == '/' ? file.substr(cwd.size() + 1) : file;
}

std::string format_summary(const std::string& tool, const Report& r, const std::string& cwd) {
  std::ostringstream out;
  const std::vector<Finding> groups = group(r.findings);
  const bool race = tool == "racecheck";
  std::vector<std::vector<std::string>> rows = {{race ? "hazards" : "errors", "kernel", "at", "what"}};
  long long counted = 0, hazards = 0;
  for (const Finding& f : groups) {
    std::string what =
        f.kind + (f.detail.empty() ? "" : " (" + f.detail + ")") + (f.warning ? " [warning]" : "");
    const std::string at = f.file.empty() ? (f.kernel.empty() ? "host" : "? (no line information)")
                                          : display_path(f.file, cwd) + ":" + std::to_string(f.line);
    rows.push_back({std::to_string(f.count), f.kernel.empty() ? "-" : f.kernel, at, what});
    counted += f.warning ? 0 : (race ? 1 : f.count);
    hazards += f.count;
  }
  const long long errors = r.errors();
  // Errors the summary line counts that no record printed (--print-limit, unknown kinds).
  if (!race && errors > counted)
    rows.push_back({std::to_string(errors - counted), "?", "?", "not printed by the tool (see its log)"});
  std::vector<std::size_t> width(4, 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < 4; ++i) width[i] = std::max(width[i], row[i].size());
  out << "== sanitize: compute-sanitizer --tool " << tool << " ==\n";
  for (std::size_t r_i = 0; rows.size() > 1 && r_i < rows.size(); ++r_i) {
    std::string line;
    for (std::size_t i = 0; i < 4; ++i)
      line += rows[r_i][i] + (i < 3 ? std::string(width[i] - rows[r_i][i].size() + 2, ' ') : "");
    out << line << "\n";
    if (r_i == 0)  // a rule under the header, as warplab.report's tables have
      out << std::string(width[0], '-') << "  " << std::string(width[1], '-') << "  "
          << std::string(width[2], '-') << "  " << std::string(width[3], '-') << "\n";
  }
  for (const std::string& m : r.tool_messages) out << "compute-sanitizer: " << m << "\n";
  for (const std::string& m : r.mismatches) out << "note: " << m << "\n";
  out << tool << ": ";
  if (!r.has_summary())
    out << "no summary line in the tool's log: the run was not checked to the end\n";
  else if (errors == 0)
    out << "no errors" << (groups.empty() ? "" : " (warnings only)") << "\n";
  else {
    out << sys::plural(errors, "error") << (race ? " (" + sys::plural(hazards, "hazard") + ")" : "");
    // The first place, as one sentence, for a reader who wants only the gist.
    for (const Finding& f : groups)
      if (!f.warning) {
        out << "; first in " << (f.kernel.empty() ? "a host call" : "kernel " + f.kernel);
        if (!f.file.empty()) out << " at " << display_path(f.file, cwd) << ":" << f.line;
        out << " (" << f.kind << ")";
        break;
      }
    out << "\n";
  }
  return out.str();
}

}  // namespace warplab::app::sanitize
