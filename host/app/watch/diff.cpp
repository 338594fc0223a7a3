// watch/diff.cpp: comparing two runs' code folders (diff.hpp). The diff is the textbook
// longest-common-subsequence table over lines, plenty for kernels (3000 lines a side at
// most). The disassembler runs as a child that dies with the watcher and is killed when a
// signal asks the watcher to leave. Linux (prctl).
#include "app/watch/diff.hpp"

#include "app/watch/child.hpp"
#include "app/watch/signals.hpp"

#include "rtc/ptx.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "rtc/elf.hpp"
#include "rtc/error.hpp"
#include "rtc/sass.hpp"
#include "rtc/signature.hpp"
#include "sys/temp.hpp"
#include "sys/text.hpp"

namespace fs = std::filesystem;

namespace warplab::app::watch {
namespace {

// A feed file of the code folder; one that cannot be read is said in `notes` and counts as
// none.
std::string read(const fs::path& p, std::string& notes) {
  FeedFile r = read_feed_file(p.string());
  if (!r.problem.empty()) notes += "warplab: " + r.problem + "\n";
  return std::move(r.text);
}

// Runs argv (argv[0] a path) with stdin and stderr on /dev/null: its stdout, or "" when it
// cannot start or a signal to leave comes first (it is killed then, not waited for). It
// dies with the watcher (PR_SET_PDEATHSIG) and gets an empty signal mask, not ours.
std::string output_of(const std::vector<std::string>& argv) {
  std::vector<char*> args;  // built before fork: the child only makes system calls
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  const pid_t parent = ::getpid();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return {};
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the watcher died before prctl took effect
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 2);
    ::dup2(fds[1], 1);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string out;
  char buf[65536];
  for (;;) {
    pollfd p = {fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    if (Signals::leave_pending()) {
      ::kill(pid, SIGKILL);
      out.clear();
      break;
    }
    if (ready <= 0) continue;  // 100 ms without output, or EINTR
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return out;
}

// A kernel as its author wrote it, as `warplab compile` prints it: "k(const float*, int)",
// not the demangler's "k(float const*, int)".
// "<module>|<kernel>" -> "<module>".
std::string module_of(const std::string& key) { return key.substr(0, key.find('|')); }

std::string pretty(const std::string& mangled) {
  auto s = rtc::demangle(mangled);
  return s ? s->to_string() : mangled;
}

}  // namespace

bool same_code(const Lines& a, const Lines& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const std::string& x, const std::string& y) {
    return x == y || normalize(x) == normalize(y);
  });
}

std::string normalize(const std::string& line) {
  // PTX virtual registers (%r12, %rd3, %f7, %p1, %rs2, ...) and SASS registers (R12, UR4,
  // P0, UP1): renumbering alone is not a change.
  static const std::regex ptx_reg(R"((%[a-z]+)\d+)");
  static const std::regex sass_reg(R"(\b(U?[RP])\d+\b)");
  return std::regex_replace(std::regex_replace(line, ptx_reg, "$1#"), sass_reg, "$1#");
}

std::string line_diff(const Lines& a, const Lines& b, int context, int max_lines) {
  const std::size_t n = a.size(), m = b.size();
  if (n > 3000 || m > 3000)
    return "  (" + std::to_string(n) + " -> " + std::to_string(m) + " lines: too large to diff)\n";
  Lines na, nb;
  for (const auto& l : a) na.push_back(normalize(l));
  for (const auto& l : b) nb.push_back(normalize(l));
  // lcs[i][j]: length of the common subsequence of na[i..] and nb[j..].
  std::vector<std::vector<unsigned short>> lcs(n + 1, std::vector<unsigned short>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = na[i] == nb[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  struct Op {
    char tag;
    const std::string* line;
    std::size_t ai, bi;  // 0-based line numbers in a and b at this op
  };
  std::vector<Op> ops;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && na[i] == nb[j])
      ops.push_back({' ', &b[j], i, j}), ++i, ++j;
    else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]))
      ops.push_back({'-', &a[i], i, j}), ++i;
    else
      ops.push_back({'+', &b[j], i, j}), ++j;  // deletions print before insertions
  }
  // Hunks: changed lines with `context` lines around them, each under "@@ -a,n +b,m @@".
  std::vector<bool> keep(ops.size(), false);
  for (std::size_t k = 0; k < ops.size(); ++k)
    if (ops[k].tag != ' ')
      for (long d = -context; d <= context; ++d) {
        const long x = static_cast<long>(k) + d;
        if (x >= 0 && x < static_cast<long>(ops.size())) keep[static_cast<std::size_t>(x)] = true;
      }
  std::string out;
  int shown = 0, hidden = 0;
  for (std::size_t k = 0; k < ops.size();) {
    if (!keep[k]) {
      ++k;
      continue;
    }
    std::size_t end = k;
    while (end < ops.size() && keep[end]) ++end;
    std::size_t na_lines = 0, nb_lines = 0;
    for (std::size_t x = k; x < end; ++x) {
      na_lines += ops[x].tag != '+';
      nb_lines += ops[x].tag != '-';
    }
    if (shown < max_lines)
      out += "@@ -" + std::to_string(ops[k].ai + 1) + "," + std::to_string(na_lines) + " +" +
             std::to_string(ops[k].bi + 1) + "," + std::to_string(nb_lines) + " @@\n";
    for (; k < end; ++k) {
      if (shown >= max_lines) {
        hidden += ops[k].tag != ' ';
        continue;
      }
      out += std::string(1, ops[k].tag) + " " + *ops[k].line + "\n";
      ++shown;
    }
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
      const std::string t = sys::trim(line, " \t\r");
      if (!t.empty() && t.rfind("//", 0) != 0) body.push_back(t);
    }
  }
  return out;
}

namespace {

// The kernel a line of a SASS dump opens, or "": cuobjdump -sass writes "Function : NAME",
// nvdisasm a ".text.NAME:" label. Read by hand, not with std::regex: a mangled name may be
// thousands of characters, and libstdc++'s matcher recurses once per character.
std::string sass_function(const std::string& line) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::size_t at = std::string::npos;
  if (const std::size_t f = line.find("Function"); f != std::string::npos) {
    std::size_t i = f + 8;
    while (i < line.size() && space(line[i])) ++i;
    if (i < line.size() && line[i] == ':') {
      ++i;
      while (i < line.size() && space(line[i])) ++i;
      at = i;
    }
  }
  if (at == std::string::npos) {
    std::size_t i = 0;
    while (i < line.size() && space(line[i])) ++i;
    if (line.compare(i, 6, ".text.") == 0) at = i + 6;
  }
  if (at == std::string::npos) return "";
  std::size_t end = at;
  while (end < line.size() && !space(line[end]) && line[end] != ':') ++end;
  return line.substr(at, end - at);
}

}  // namespace

std::map<std::string, Lines> sass_kernels(const std::string& dump) {
  std::map<std::string, Lines> out;
  static const std::regex noise(R"(/\*[0-9a-fA-Fx ]*\*/)");
  std::stringstream ss(dump);
  std::string cur;
  for (std::string line; std::getline(ss, line);) {
    if (std::string name = sass_function(line); !name.empty()) {
      cur = std::move(name);
      continue;
    }
    if (cur.empty()) continue;
    const std::string t = sys::trim(std::regex_replace(line, noise, ""), " \t\r");
    if (!t.empty() && t[0] != '.' && t.find("..........") == std::string::npos) out[cur].push_back(t);
  }
  return out;
}

CodeDiff::CodeDiff(bool code_diffs, const std::string& under) : code_diffs_(code_diffs) {
  // SASS from cuobjdump, else nvdisasm (both in the toolkit); the first report says when
  // neither is there.
  if (!code_diffs_) {
  } else if (const rtc::SassTool t = rtc::find_sass_tool(); t.found()) {  // the one finder (rtc/sass.hpp)
    tool_ = t.argv();
  }
  if (under.empty()) {  // $TMPDIR, or /tmp when TMPDIR cannot hold it
    dir_ = sys::make_temp_folder("warplab-code-").path;
    return;
  }
  std::string tmpl = (fs::path(under) / "warplab-code-XXXXXX").string();
  if (::mkdtemp(tmpl.data())) dir_ = tmpl;
}

CodeDiff::~CodeDiff() {
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

void CodeDiff::discard() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) fs::remove(e.path(), ec);
}

std::string CodeDiff::collect(bool whole_run) {
  if (dir_.empty()) return {};
  std::map<std::string, Lines> ptx, sass;
  std::map<std::string, KernelNumbers> res;
  std::map<std::string, std::pair<long, long>> spills;
  std::map<std::string, rtc::PtxEntry> entries;
  std::string report;  // what could not be read first, then what changed
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    const std::string stem = e.path().stem().string();  // "<n>.<module>"
    const std::string module = stem.substr(stem.find('.') + 1);
    const std::string ext = e.path().extension().string();
    if (ext == ".ptx") {
      const std::string text = read(e.path(), report);
      for (auto& [k, v] : ptx_kernels(text)) ptx[module + "|" + k] = std::move(v);
      for (rtc::PtxEntry& k : rtc::ptx_entry_list(text)) entries[module + "|" + k.name] = std::move(k);
    }
    if (ext == ".spills")
      for (auto& [k, v] : parse_spills(read(e.path(), report))) spills[module + "|" + k] = v;
    if (ext == ".cubin") {
      const std::string bytes = read(e.path(), report);
      try {
        for (auto& k : rtc::read_cubin(std::vector<char>(bytes.begin(), bytes.end())))
          res[module + "|" + k.name].elf = k;
      } catch (const rtc::Error&) {  // no resource line for a CUBIN that cannot be read
      }
    }
    if (ext == ".cubin" && !tool_.empty()) {
      std::vector<std::string> argv = tool_;
      argv.push_back(e.path().string());
      for (auto& [k, v] : sass_kernels(output_of(argv))) sass[module + "|" + k] = std::move(v);
    }
  }
  for (auto& [key, sp] : spills)
    if (auto r = res.find(key); r != res.end()) std::tie(r->second.spill_store, r->second.spill_load) = sp;
  for (auto& [key, l] : parse_launches(read(fs::path(dir_) / "launches", report))) launched_[key] = l;
  for (auto& [key, k] : res) {  // the PTX's directives, and the newest launch known
    if (auto e = entries.find(key); e != entries.end()) k.entry = std::move(e->second);
    if (auto l = launched_.find(key); l != launched_.end()) k.launch = l->second;
  }
  if (auto d = parse_device(read(fs::path(dir_) / "device.json", report))) dev_ = d;
  discard();
  std::set<std::string> seen;  // the modules this run compiled
  for (const auto& [key, code] : ptx) seen.insert(module_of(key));

  if (first_ && code_diffs_ && tool_.empty())
    report += "warplab: " + std::string(rtc::kNoSassTool) + ": PTX diffs only\n";
  if (!first_) {
    for (const auto& [key, code] : ptx) {
      const std::string kernel = pretty(key.substr(key.find('|') + 1));
      auto old = ptx_.find(key);
      if (old == ptx_.end()) {
        report += "new kernel " + kernel + "\n";
        continue;
      }
      // One line per changed kernel: its resources and occupancy, old -> new. A cap or a
      // flag can move them with the same PTX; a changed PTX with the same numbers says so.
      std::string line;
      if (auto r_new = res.find(key), r_old = res_.find(key); r_new != res.end() && r_old != res_.end()) {
        line = resource_line(r_old->second, r_new->second, dev_ ? &*dev_ : nullptr);
      }
      const std::string d = code_diffs_ ? line_diff(old->second, code, 2, 40) : "";  // "": only renumbered
      if (!line.empty())
        report += kernel + ": " + line + "\n";
      else if (code_diffs_ ? !d.empty() : !same_code(old->second, code))
        report += kernel + ": code changed, same resources\n";
      if (!code_diffs_) continue;
      if (!d.empty()) report += "PTX of " + kernel + " changed:\n" + d;
      auto s_new = sass.find(key), s_old = sass_.find(key);
      if (s_new != sass.end() && s_old != sass_.end())
        if (const std::string sd = line_diff(s_old->second, s_new->second, 1, 40); !sd.empty())
          report += "SASS of " + kernel + " changed:\n" + sd;
    }
    for (const auto& [key, code] : ptx_)
      if (!ptx.count(key) && (whole_run || seen.count(module_of(key))))
        report += "kernel " + pretty(key.substr(key.find('|') + 1)) + " is gone\n";
  }
  first_ = false;
  if (whole_run) {
    ptx_ = std::move(ptx);
    sass_ = std::move(sass);
    res_ = std::move(res);
    return report;
  }
  // A run that ended early: what it compiled replaces those modules' code; the modules it
  // did not get to stay as they were.
  for (auto* m : {&ptx_, &sass_})
    std::erase_if(*m, [&](const auto& kv) { return seen.count(module_of(kv.first)) > 0; });
  std::erase_if(res_, [&](const auto& kv) { return seen.count(module_of(kv.first)) > 0; });
  ptx_.merge(ptx);
  sass_.merge(sass);
  res_.merge(res);
  return report;
}

}  // namespace warplab::app::watch
