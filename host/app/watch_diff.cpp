// watch_diff.cpp: see watch_diff.hpp. The diff is the textbook longest-common-subsequence
// table over lines, which is plenty for kernels (capped at 3000 lines a side).
#include "app/watch_diff.hpp"

#include "rtc/ptx.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "rtc/signature.hpp"

namespace fs = std::filesystem;

namespace warplab::app::watch {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string find_tool(const char* name) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string d; std::getline(ss, d, ':');) dirs.push_back(d);
  }
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(env)) dirs.push_back(std::string(v) + "/bin");
  dirs.push_back("/usr/local/cuda/bin");
  for (const auto& d : dirs)
    if (!d.empty() && ::access((d + "/" + name).c_str(), X_OK) == 0) return d + "/" + name;
  return {};
}

std::string run_capture(const std::string& cmd) {
  std::string out;
  if (FILE* f = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    ::pclose(f);
  }
  return out;
}

std::string pretty(const std::string& mangled) {
  auto s = rtc::demangle(mangled);
  return s ? s->demangled : mangled;
}

}  // namespace

std::string line_diff(const Lines& a, const Lines& b, int context, int max_lines) {
  const std::size_t n = a.size(), m = b.size();
  if (n > 3000 || m > 3000)
    return "  (" + std::to_string(n) + " -> " + std::to_string(m) + " lines: too large to diff)\n";
  // lcs[i][j]: length of the common subsequence of a[i..] and b[j..].
  std::vector<std::vector<unsigned short>> lcs(n + 1, std::vector<unsigned short>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  struct Op { char tag; const std::string* line; };
  std::vector<Op> ops;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) ops.push_back({' ', &a[i++]}), ++j;
    else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push_back({'-', &a[i++]});
    else ops.push_back({'+', &b[j++]});  // deletions print before insertions
  }
  // Keep changed lines and `context` lines around them.
  std::vector<bool> keep(ops.size(), false);
  for (std::size_t k = 0; k < ops.size(); ++k)
    if (ops[k].tag != ' ')
      for (long d = -context; d <= context; ++d) {
        const long x = static_cast<long>(k) + d;
        if (x >= 0 && x < static_cast<long>(ops.size())) keep[static_cast<std::size_t>(x)] = true;
      }
  std::string out;
  int shown = 0, hidden = 0;
  bool gap = false;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (!keep[k]) { gap = true; continue; }
    if (shown >= max_lines) { hidden += ops[k].tag != ' '; continue; }
    if (gap && !out.empty()) out += "  ...\n";
    gap = false;
    out += std::string(1, ops[k].tag) + " " + *ops[k].line + "\n";
    ++shown;
  }
  if (hidden) out += "  ... and " + std::to_string(hidden) + " more changed lines\n";
  return out;
}

std::map<std::string, Lines> ptx_kernels(const std::string& ptx) {
  // The entries and their extent come from the one PTX reader (rtc/ptx.hpp).
  std::map<std::string, Lines> out;
  for (const rtc::PtxEntry& e : rtc::ptx_entry_list(ptx)) {
    std::stringstream ss(ptx.substr(e.begin, e.end - e.begin));
    Lines& body = out[e.name];
    for (std::string line; std::getline(ss, line);) {
      const std::string t = trim(line);
      if (!t.empty() && t.rfind("//", 0) != 0) body.push_back(t);
    }
  }
  return out;
}

std::map<std::string, Lines> sass_kernels(const std::string& dump) {
  std::map<std::string, Lines> out;
  static const std::regex fn(R"(Function\s*:\s*(\S+))");
  static const std::regex noise(R"(/\*[0-9a-fA-Fx ]*\*/)");
  std::stringstream ss(dump);
  std::string cur;
  for (std::string line; std::getline(ss, line);) {
    std::smatch mt;
    if (std::regex_search(line, mt, fn)) { cur = mt[1]; continue; }
    if (cur.empty()) continue;
    const std::string t = trim(std::regex_replace(line, noise, ""));
    if (!t.empty() && t[0] != '.' && t.find("..........") == std::string::npos) out[cur].push_back(t);
  }
  return out;
}

CodeDiff::CodeDiff() : cuobjdump_(find_tool("cuobjdump")) {
  std::string tmpl = (fs::temp_directory_path() / "warplab-code-XXXXXX").string();
  if (::mkdtemp(tmpl.data())) dir_ = tmpl;
}

CodeDiff::~CodeDiff() {
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

std::string CodeDiff::collect() {
  std::map<std::string, Lines> ptx, sass;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    const std::string stem = e.path().stem().string();  // "<n>.<module>"
    const std::string module = stem.substr(stem.find('.') + 1);
    if (e.path().extension() == ".ptx")
      for (auto& [k, v] : ptx_kernels(read(e.path()))) ptx[module + "|" + k] = std::move(v);
    else if (e.path().extension() == ".cubin" && !cuobjdump_.empty())
      for (auto& [k, v] : sass_kernels(run_capture(cuobjdump_ + " -sass '" + e.path().string() + "' 2>/dev/null")))
        sass[module + "|" + k] = std::move(v);
  }
  for (const auto& e : fs::directory_iterator(dir_, ec)) fs::remove(e.path(), ec);
  std::string report;
  if (!first_) {
    for (const auto& [key, code] : ptx) {
      const std::string kernel = pretty(key.substr(key.find('|') + 1));
      auto old = ptx_.find(key);
      if (old == ptx_.end()) { report += "new kernel " + kernel + "\n"; continue; }
      if (old->second == code) continue;
      report += "PTX of " + kernel + " changed:\n" + line_diff(old->second, code, 2, 40);
      auto s_new = sass.find(key), s_old = sass_.find(key);
      if (s_new != sass.end() && s_old != sass_.end() && s_new->second != s_old->second)
        report += "SASS of " + kernel + " changed:\n" + line_diff(s_old->second, s_new->second, 1, 40);
    }
    for (const auto& [key, code] : ptx_)
      if (!ptx.count(key)) report += "kernel " + pretty(key.substr(key.find('|') + 1)) + " is gone\n";
  }
  first_ = false;
  ptx_ = std::move(ptx);
  sass_ = std::move(sass);
  return report;
}

}  // namespace warplab::app::watch
