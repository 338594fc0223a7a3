// sass.cpp: finding the disassembler, running it on a CUBIN and cutting its output into
// kernels (sass.hpp). POSIX: fork/exec with two pipes; Linux: the tool dies with warplab.
#include "rtc/sass.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "rtc/compile.hpp"
#include "rtc/error.hpp"
#include "sys/temp.hpp"

extern char** environ;

namespace warplab::rtc {
namespace {

// `name` in the first folder that has it as an executable file: PATH, then the toolkit's.
std::string find_tool(const char* name) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string d; std::getline(ss, d, ':');) dirs.push_back(d);
  }
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(env); v && *v) dirs.push_back(std::string(v) + "/bin");
  dirs.emplace_back("/usr/local/cuda/bin");
  for (const auto& d : dirs)
    if (!d.empty() && ::access((d + "/" + name).c_str(), X_OK) == 0) return d + "/" + name;
  return {};
}

struct ToolRun {
  std::string out, err;  // what it printed on stdout and stderr
  int status = 0;        // as waitpid gives it
  bool cancelled = false;
};

// Runs argv (argv[0] a path) with stdin on /dev/null and `env` added to warplab's
// environment; its stdout, stderr and exit status. The child gets an empty signal mask and
// is killed when warplab dies (else it would run on with parent 1) or `cancelled` says so.
ToolRun run_tool(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                 const std::function<bool()>& cancelled) {
  // Built before fork: the child may only call async-signal-safe functions.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  for (char** e = environ; e && *e; ++e) {
    bool replaced = false;
    for (const auto& mine : env)
      replaced = replaced || std::strncmp(*e, mine.c_str(), mine.find('=') + 1) == 0;
    if (!replaced) envp.push_back(*e);
  }
  envp.push_back(nullptr);
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw Error(ErrorKind::failed, "cannot run " + argv[0] + ": no pipe");
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]);
    throw Error(ErrorKind::failed, "cannot run " + argv[0] + ": no pipe");
  }
  const pid_t parent = ::getpid();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    throw Error(ErrorKind::failed, "cannot run " + argv[0] + ": fork failed");
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // warplab died before prctl took effect
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0), ::dup2(out[1], 1), ::dup2(err[1], 2);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::close(out[1]), ::close(err[1]);
  ToolRun r;
  pollfd p[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* into[2] = {&r.out, &r.err};
  char buf[65536];
  while (p[0].fd >= 0 || p[1].fd >= 0) {
    const int ready = ::poll(p, 2, 100);
    if (cancelled && cancelled()) {
      ::kill(pid, SIGKILL);
      r.cancelled = true;
      break;
    }
    if (ready <= 0) continue;  // 100 ms without output, or EINTR
    for (int i = 0; i < 2; ++i) {
      if (p[i].fd < 0 || p[i].revents == 0) continue;
      const ssize_t n = ::read(p[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(p[i].fd);
        p[i].fd = -1;  // poll ignores a negative descriptor
        continue;
      }
      into[i]->append(buf, static_cast<std::size_t>(n));
    }
  }
  for (const pollfd& f : p)
    if (f.fd >= 0) ::close(f.fd);
  while (::waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
  }
  return r;
}

// What a tool said on stderr, as one clause: its last lines, blanks collapsed, at most 400
// characters.
std::string reason_of(const std::string& err) {
  std::string out;
  bool space = false;
  for (char c : err) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > 400) out = "..." + out.substr(out.size() - 397);
  return out;
}

// The kernel a header line of either tool's output names, or "": cuobjdump -sass writes
// "Function : NAME", nvdisasm a ".text.NAME:" label. Read by hand, not with std::regex: a
// mangled name may be thousands of characters, and libstdc++'s matcher recurses once per
// character.
std::string header_name(const std::string& line) {
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

std::vector<std::string> SassTool::argv() const {
  if (nvdisasm) return {path};
  return {path, "-sass"};
}

SassTool find_sass_tool() {
  std::string d = find_tool("nvdisasm");
  if (std::string c = find_tool("cuobjdump"); !c.empty())
    return {std::move(c), false, d.empty() ? std::string() : d.substr(0, d.rfind('/'))};
  if (!d.empty()) return {std::move(d), true, {}};
  return {};
}

std::string nvdisasm_source() {
  std::string v = nvrtc_version();  // "13.0": the toolkit whose NVRTC warplab loaded
  for (char& c : v)
    if (c == '.') c = '-';
  return "nvdisasm comes with the CUDA toolkit (NVIDIA's package cuda-nvdisasm-" + v + ")";
}

std::optional<std::string> disassemble_file(const std::string& path, const char* what,
                                            const std::function<bool()>& cancelled) {
  const SassTool tool = find_sass_tool();
  if (!tool.found())
    throw Error(ErrorKind::tool, std::string(what) + ": " + kNoSassTool + ": " + nvdisasm_source());
  std::vector<std::string> argv = tool.argv();
  argv.push_back(path);
  std::vector<std::string> env;  // cuobjdump finds nvdisasm on PATH or in NVDISASM_PATH
  if (!tool.nvdisasm && !tool.nvdisasm_dir.empty() && !std::getenv("NVDISASM_PATH"))
    env.push_back("NVDISASM_PATH=" + tool.nvdisasm_dir);
  ToolRun r = run_tool(argv, env, cancelled);
  if (r.cancelled) return std::nullopt;
  if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) return std::move(r.out);
  const std::string how = WIFEXITED(r.status) ? "exit " + std::to_string(WEXITSTATUS(r.status))
                                              : "killed by signal " + std::to_string(WTERMSIG(r.status));
  const std::string reason = reason_of(r.err);
  const std::string said =
      tool.path + " failed (" + how + (reason.empty() ? ", nothing on stderr)" : "): " + reason);
  // cuobjdump prints SASS through nvdisasm: without one, its failure is a missing tool.
  if (!tool.nvdisasm && tool.nvdisasm_dir.empty())
    throw Error(ErrorKind::tool,
                std::string(what) + ": " + said +
                    "; cuobjdump needs nvdisasm for SASS and none was found (PATH, CUDA_HOME, "
                    "/usr/local/cuda): " +
                    nvdisasm_source());
  throw Error(ErrorKind::failed, std::string(what) + ": " + said);
}

std::string disassemble(const std::vector<char>& cubin, const char* what) {
  if (!find_sass_tool().found())
    throw Error(ErrorKind::tool, std::string(what) + ": " + kNoSassTool + ": " + nvdisasm_source());
  if (cubin.empty()) throw Error(std::string(what) + ": no CUBIN (PTX only) to disassemble");
  sys::TempFile file = sys::make_temp_file("warplab-sass-");
  if (!file.fd)
    throw Error(ErrorKind::failed,
                std::string(what) + ": no temporary file for the CUBIN (" + file.note + ")");
  const std::string path = file.path + ".cubin";  // both tools read the file by its extension
  std::size_t done = 0;
  while (done < cubin.size()) {
    const ssize_t n = ::write(file.fd.get(), cubin.data() + done, cubin.size() - done);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) done += static_cast<std::size_t>(n);
  }
  const bool written = done == cubin.size() && ::rename(file.path.c_str(), path.c_str()) == 0;
  if (!written) ::unlink(file.path.c_str());
  if (!written)
    throw Error(ErrorKind::failed, std::string(what) + ": cannot write the CUBIN to a temporary file");
  try {
    std::optional<std::string> out = disassemble_file(path, what);
    ::unlink(path.c_str());
    return std::move(*out);  // never cancelled: no `cancelled` was given
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
}

std::vector<std::pair<std::string, std::string>> sass_sections(const std::string& dump) {
  std::vector<std::pair<std::string, std::string>> out;
  std::stringstream ss(dump);
  for (std::string line; std::getline(ss, line);) {
    if (std::string name = header_name(line); !name.empty()) out.emplace_back(std::move(name), std::string());
    if (!out.empty()) out.back().second += line + "\n";
  }
  return out;
}

std::string sass_of(const std::string& dump, const std::string& mangled) {
  for (auto& [name, text] : sass_sections(dump))
    if (name == mangled) return std::move(text);
  return {};
}

}  // namespace warplab::rtc
