// sanitize/rerun.cpp: finding compute-sanitizer and running warplab again under it
// (cli/sanitize.hpp, rerun.hpp): this very binary (/proc/self/exe) with the same arguments
// minus --sanitize, and WARPLAB_LINEINFO=1 so every cuda.compile adds -lineinfo; the tool
// writes its own log file, so the script's output reaches the terminal untouched. POSIX;
// depends on log.hpp, cli/exit_codes.hpp and rtc/toolkit.hpp (where NVRTC's CUDA is).
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "app/cli/exit_codes.hpp"
#include "app/sanitize/log.hpp"
#include "app/sanitize/rerun.hpp"
#include "rtc/toolkit.hpp"
#include "sys/read.hpp"
#include "sys/temp.hpp"
#include "sys/write.hpp"

namespace warplab::app::sanitize {
namespace fs = std::filesystem;
namespace {

constexpr int kToolErrorExit = 86;  // --error-exitcode: the tool found errors
constexpr const char* kPrintLimit = "10000";

// The toolkit roots next to the CUDA headers NVRTC uses: include/ -> .., and
// targets/<arch>/include -> ../../.. as well.
std::vector<std::string> toolkit_roots() {
  std::vector<std::string> out;
  for (const fs::path& inc : rtc::cuda_include_dirs()) {
    const fs::path root = inc.parent_path();
    out.push_back(root.string());
    if (root.parent_path().filename() == "targets") out.push_back(root.parent_path().parent_path().string());
    break;  // the first is the include dir; the second its cccl/ subdir
  }
  return out;
}

bool executable(const std::string& p) {
  std::error_code ec;
  return !p.empty() && fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// The child's environment: ours plus `extra` (replacing variables of the same name).
std::vector<std::string> child_env(const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    bool replaced = false;
    for (const std::string& x : extra) replaced = replaced || s.rfind(x.substr(0, x.find('=') + 1), 0) == 0;
    if (!replaced) out.push_back(s);
  }
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

// fork + execve, waiting with SIGINT/SIGQUIT ignored as system() does: Ctrl-C stops the
// child, and we still print what its log holds. Returns an exit code (128 + signal).
int spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::vector<char*> args, envp;  // built before fork: the child may not allocate
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  args.push_back(nullptr);
  envp.push_back(nullptr);
  struct sigaction ignore = {}, old_int = {}, old_quit = {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGQUIT, SIG_DFL);
    // The tool dies with us (kept across execve), and the run it starts with it
    // (die_with_the_tool): nothing is left running when `run --sanitize` is killed.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  int status = 0;
  while (pid > 0 && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  if (pid < 0) throw Error(ErrorKind::internal, "cannot start compute-sanitizer (fork failed)");
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : kInternal;
}

// A fresh private log file for the tool (sys/temp.hpp: a bad TMPDIR falls back to /tmp,
// saying so once); removed by the destructor. No folder at all can hold one: the
// machine's problem, said in one sentence (exit 1), never an internal error.
struct LogFile {
  LogFile() {
    sys::TempFile f = sys::make_temp_file("warplab-sanitize-");
    if (!f.fd)
      throw Error(ErrorKind::failed, "--sanitize needs a file for compute-sanitizer's log: " + f.note);
    if (!f.note.empty()) std::cerr << "warplab: " << f.note << "\n";
    path = f.path;
  }
  ~LogFile() { ::unlink(path.c_str()); }
  // What the tool wrote; a log that cannot be read is said (exit 1), never taken for an
  // empty one, which would read as a run with nothing to report.
  std::string text() const {
    std::string out;
    if (const auto e = sys::read_whole(path, out, SIZE_MAX))
      throw Error(ErrorKind::failed, "--sanitize: cannot read compute-sanitizer's log " + path + ": " + *e);
    return out;
  }
  std::string path;
};

}  // namespace

void die_with_the_tool() {
  const char* v = std::getenv("WARPLAB_SANITIZE");
  if (!v || !*v) return;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
}

const std::vector<std::string>& tools() {
  static const std::vector<std::string> t = {"memcheck", "racecheck", "synccheck", "initcheck"};
  return t;
}

bool valid_tool(const std::string& tool) {
  return std::find(tools().begin(), tools().end(), tool) != tools().end();
}

std::vector<std::string> candidates(const Getenv& getenv, const std::vector<std::string>& toolkit_dirs) {
  if (const char* v = getenv("WARPLAB_COMPUTE_SANITIZER")) return {v};
  std::vector<std::string> out;
  auto add = [&out](const std::string& p) {
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  if (const char* path = getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string dir; std::getline(ss, dir, ':');) add((dir.empty() ? "." : dir) + "/compute-sanitizer");
  }
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH", "CUDAToolkit_ROOT"})
    if (const char* v = getenv(var); v && *v) roots.emplace_back(v);
  roots.insert(roots.end(), toolkit_dirs.begin(), toolkit_dirs.end());
  roots.emplace_back("/usr/local/cuda");
  for (const std::string& r : roots) {
    add(r + "/bin/compute-sanitizer");
    add(r + "/compute-sanitizer/compute-sanitizer");
  }
  return out;
}

std::string find_tool(const std::vector<std::string>& candidates) {
  for (const std::string& c : candidates)
    if (executable(c)) return c;
  return {};
}

std::vector<std::string> child_argv(const std::vector<std::string>& argv, const std::string& exe) {
  std::vector<std::string> out = {exe};
  bool rest = false;  // after "--": script arguments, kept as they are
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (!rest && a == "--sanitize") {
      ++i;
      continue;
    }
    if (!rest && a.rfind("--sanitize=", 0) == 0) continue;
    rest = rest || a == "--";
    out.push_back(a);
  }
  return out;
}

int run(const std::string& tool, const std::vector<std::string>& argv) {
  const std::vector<std::string> looked = candidates(std::getenv, toolkit_roots());
  const std::string exe_tool = find_tool(looked);
  if (exe_tool.empty()) {
    if (const char* v = std::getenv("WARPLAB_COMPUTE_SANITIZER"))
      throw Error(ErrorKind::tool, std::string("--sanitize needs compute-sanitizer, and "
                                               "WARPLAB_COMPUTE_SANITIZER='") +
                                       v + "' is not an executable file");
    std::string dirs;
    for (std::size_t i = 0; i < looked.size(); ++i) {
      const std::string d = fs::path(looked[i]).parent_path().string();
      if (dirs.find(" " + d + ",") == std::string::npos) dirs += " " + d + ",";
    }
    dirs.pop_back();
    throw Error(ErrorKind::tool,
                "--sanitize needs compute-sanitizer (part of the CUDA toolkit), found in "
                "none of" +
                    dirs + " (put it on PATH or set WARPLAB_COMPUTE_SANITIZER)");
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error(ErrorKind::internal, "cannot find warplab's own binary (/proc/self/exe)");
  LogFile log;
  std::vector<std::string> cmd = {exe_tool, "--tool", tool, "--log-file", log.path, "--print-limit",
                                  kPrintLimit, "--error-exitcode", std::to_string(kToolErrorExit),
                                  // warplab probes the driver (cuGetProcAddress, attributes) and
                                  // handles each failure itself: those are not the script's errors.
                                  "--report-api-errors", "no", "--show-backtrace", "no"};
  for (const std::string& a : child_argv(argv, self.string())) cmd.push_back(a);
  std::cout.flush();
  const int rc = spawn(cmd, child_env({"WARPLAB_LINEINFO=1", "WARPLAB_SANITIZE=" + tool}));
  const std::string text = log.text();
  // The raw log, for a closer look: WARPLAB_SANITIZE_LOG=FILE replaces FILE (docs/sanitize.md).
  if (const char* keep = std::getenv("WARPLAB_SANITIZE_LOG"); keep && *keep)
    if (const sys::WriteResult w = sys::write_file(keep, text, sys::Replace::allowed); !w)
      std::cerr << "warplab: WARPLAB_SANITIZE_LOG: " << w.message << "\n";
  Report r = parse_log(text);
  if (rc == 127 && !r.banner)
    throw Error(ErrorKind::tool, "--sanitize: " + exe_tool + " could not be started");
  if (rc == kToolErrorExit && r.errors() == 0)
    r.mismatches.push_back("compute-sanitizer exited with its error code, yet warplab read no error");
  std::cout << "\n" << format_summary(tool, r, fs::current_path(ec).string());
  if (!r.has_summary() && !text.empty()) {
    // Its own failure (no GPU it supports, a crash): show the end of what it wrote.
    std::cerr << "compute-sanitizer's log (" << text.size() << " bytes), last lines:\n";
    std::cerr << text.substr(text.size() > 2000 ? text.size() - 2000 : 0);
  }
  std::cout.flush();
  if (r.errors() > 0 || rc == kToolErrorExit) return kSanitizerFindings;
  if (!r.has_summary()) return rc != 0 ? rc : kFailed;
  return rc;
}

}  // namespace warplab::app::sanitize
