// sass.cpp: finding the disassembler, running it on a CUBIN and cutting one kernel out of
// its output (sass.hpp). POSIX: fork/exec with a pipe; Linux: the tool dies with warplab.
#include "rtc/sass.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <sstream>

#include "rtc/error.hpp"
#include "sys/temp.hpp"

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

// Runs argv (argv[0] a path) with stdin and stderr on /dev/null; its stdout and exit status.
std::string capture(const std::vector<std::string>& argv, int& status) {
  std::vector<char*> args;  // built before fork: the child may only call async-signal-safe functions
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(ErrorKind::failed, "cannot run " + argv[0] + ": no pipe");
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]), ::close(fds[1]);
    throw Error(ErrorKind::failed, "cannot run " + argv[0] + ": fork failed");
  }
  if (pid == 0) {
    // Killed with warplab, however warplab ends (else it would run on with parent 1).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // warplab died before prctl took effect
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0), ::dup2(null, 2), ::dup2(fds[1], 1);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return out;
}

// The kernel a header line of either tool's output names, or "".
std::string header_name(const std::string& line) {
  const std::size_t f = line.find("Function : ");  // cuobjdump -sass
  if (f != std::string::npos) {
    std::string name = line.substr(f + 11);
    return name.substr(0, name.find_first_of(" \t\r"));
  }
  const std::size_t b = line.find_first_not_of(" \t");  // nvdisasm: ".text.NAME:"
  if (b == std::string::npos || line.compare(b, 6, ".text.") != 0) return {};
  const std::size_t colon = line.find(':', b);
  return colon == std::string::npos ? std::string() : line.substr(b + 6, colon - b - 6);
}

}  // namespace

std::vector<std::string> SassTool::argv() const {
  if (nvdisasm) return {path};
  return {path, "-sass"};
}

SassTool find_sass_tool() {
  if (std::string c = find_tool("cuobjdump"); !c.empty()) return {std::move(c), false};
  if (std::string d = find_tool("nvdisasm"); !d.empty()) return {std::move(d), true};
  return {};
}

std::string disassemble(const std::vector<char>& cubin, const char* what) {
  const SassTool tool = find_sass_tool();
  if (!tool.found()) throw Error(ErrorKind::tool, std::string(what) + ": " + kNoSassTool);
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
  std::vector<std::string> argv = tool.argv();
  argv.push_back(path);
  int status = 0;
  std::string out = capture(argv, status);
  ::unlink(path.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error(ErrorKind::failed, std::string(what) + ": " + tool.path + " failed (" +
                                       (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                                          : std::string("killed")) +
                                       ")");
  return out;
}

std::string sass_of(const std::string& dump, const std::string& mangled) {
  std::stringstream ss(dump);
  std::string out;
  bool in = false;
  for (std::string line; std::getline(ss, line);) {
    const std::string name = header_name(line);
    if (!name.empty()) in = name == mangled;
    if (in) out += line + "\n";
  }
  return out;
}

}  // namespace warplab::rtc
