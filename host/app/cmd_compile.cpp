// cmd_compile.cpp: `warplab compile FILE.cu`: NVRTC only, no GPU needed. Prints the
// diagnostics (stderr), a resource table per kernel, the PTX on request, writes the
// cubin on request. Uses rtc/ for everything; the target arch comes from --arch, else
// the live device or the profile (select_target), else sm_90 with a note.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "app/cli.hpp"
#include "rtc/cache.hpp"
#include "rtc/compile.hpp"

namespace warplab::app {
namespace {

struct CompileArgs {
  std::string file;
  std::string arch;
  std::vector<std::string> defines;
  std::vector<std::string> include_dirs;
  bool ptx = false;
  std::string cubin;
  bool lineinfo = false;
  std::size_t max_errors = 10;
  bool arch_given = false;  // --arch "" is an error, not "no --arch"
};

std::string join_archs() {
  std::string out;
  for (const std::string& a : rtc::supported_archs()) out += (out.empty() ? "" : ", ") + a;
  return out;
}

// --arch, else the target's (the profile asked for, the live device, the default
// profile), else sm_90, saying so. A profile that was asked for and fails is an error.
std::string choose_arch(const CompileArgs& a, const Globals& g) {
  if (!a.arch.empty()) return a.arch;
  if (!g.profile.empty()) return select_target(g, true).arch();
  try {
    return select_target(g, true).arch();
  } catch (const std::exception& e) {
    if (!g.quiet)
      std::cerr << "warplab: " << e.what() << "; compiling for sm_90 (choose with --arch)\n";
    return "sm_90";
  }
}

// "48 KiB" when exact, else bytes: shared memory sizes read best that way. "?": unknown.
std::string human_bytes(std::optional<long> b) {
  if (!b) return "?";
  if (*b >= 1024 && *b % 1024 == 0) return std::to_string(*b / 1024) + " KiB";
  return std::to_string(*b) + " B";
}

template <class T>
std::string num(std::optional<T> v) {
  return v ? std::to_string(*v) : "?";
}

// One row per kernel: signature (demangled when C++), then its resources (rtc/resources.hpp).
void print_table(std::ostream& os, const rtc::CompileResult& r) {
  std::vector<std::string> names;
  std::size_t width = 6;
  for (const rtc::KernelResources& k : r.kernels) {
    const auto sig = rtc::demangle(k.mangled);
    names.push_back(sig ? sig->to_string() : k.mangled);
    width = std::max(width, names.back().size());
  }
  os << std::left << std::setw(static_cast<int>(width)) << "kernel" << std::right
     << std::setw(6) << "regs" << std::setw(10) << "shared" << std::setw(10) << "const"
     << std::setw(10) << "stack" << std::setw(14) << "spill st/ld" << std::setw(10)
     << "barriers" << "\n";
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    const rtc::KernelResources& k = r.kernels[i];
    os << std::left << std::setw(static_cast<int>(width)) << names[i] << std::right
       << std::setw(6) << num(k.registers) << std::setw(10) << human_bytes(k.shared_bytes)
       << std::setw(10) << human_bytes(k.const_bytes) << std::setw(10)
       << human_bytes(k.stack_bytes) << std::setw(14)
       << (num(k.spill_store_bytes) + "/" + num(k.spill_load_bytes)) << std::setw(10)
       << num(k.barriers) << "\n";
  }
  // One line per reason a number above is "?", or where the CUBIN and ptxas disagree.
  for (const std::string& n : r.resource_notes) os << "note: " << n << "\n";
}


int run_compile(const CompileArgs& a, const Globals& g) {
  if (a.arch_given && a.arch.empty())
    throw Failure(kBadInput, "--arch needs an architecture, e.g. sm_90 (valid: " + join_archs() + ")");
  if (!a.cubin.empty()) {
    std::error_code ec;
    if (a.cubin == a.file || std::filesystem::equivalent(a.cubin, a.file, ec))
      throw Failure(kBadInput, "refusing to write the cubin over the source file '" + a.file + "'");
    if (std::filesystem::is_directory(a.cubin, ec))
      throw Failure(kBadInput, "cannot write the cubin to '" + a.cubin + "': it is a folder");
  }
  rtc::Source src;
  try {
    src = rtc::load_source(a.file);
  } catch (const rtc::Error& e) {
    throw Failure(kBadInput, e.what());
  }
  rtc::Options opt;
  opt.arch = choose_arch(a, g);
  try {
    for (const std::string& d : a.defines) opt.defines.push_back(rtc::parse_define(d));
  } catch (const rtc::Error& e) {
    throw Failure(kUsage, std::string("-D: ") + e.what());
  }
  opt.include_dirs = a.include_dirs;
  opt.lineinfo = a.lineinfo;
  // An rtc::Error without an NVRTC code is bad input (the arch); with one, NVRTC broke.
  rtc::CompileResult r;
  std::optional<rtc::Cache> cache;
  if (!g.no_cache) cache.emplace(rtc::Cache::default_dir());
  if (cache && !cache->warning().empty()) std::cerr << "warplab: " << cache->warning() << "\n";
  try {
    r = rtc::compile(src, opt, cache ? &*cache : nullptr);
  } catch (const rtc::Error& e) {
    throw Failure(e.code() == NVRTC_SUCCESS ? kBadInput : kInternal, e.what());
  }
  // Colour only for a terminal: diagnostics piped into a file or an editor stay plain.
  const bool color = !g.no_color && isatty(STDERR_FILENO);
  std::cerr << rtc::format_diagnostics(r, a.max_errors, color);
  if (!r.ok) {
    std::cerr << "warplab: " << a.file << " did not compile for " << r.arch << " ("
              << r.errors() << (r.errors() == 1 ? " error" : " errors") << ")\n";
    return kCompileError;
  }
  // With --ptx, stdout carries only the PTX (so it can be redirected); the table moves
  // to stderr.
  std::ostream& table = a.ptx ? std::cerr : std::cout;
  if (!g.quiet) {
    std::ostringstream ms;
    ms << std::fixed << std::setprecision(0) << r.compile_ms;
    table << a.file << ": " << r.kernels.size() << (r.kernels.size() == 1 ? " kernel" : " kernels")
          << " for " << r.arch << " (NVRTC " << r.nvrtc_version << ", " << ms.str() << " ms"
          << (r.from_cache ? ", from the cache" : "") << ")\n";
  }
  print_table(table, r);
  if (a.ptx) std::cout << r.ptx;
  if (!a.cubin.empty()) {
    std::ofstream out(a.cubin, std::ios::binary);
    out.write(r.cubin.data(), static_cast<std::streamsize>(r.cubin.size()));
    out.flush();
    if (!out.good())
      throw Failure(kBadInput, "cannot write the cubin to '" + a.cubin + "': " + std::strerror(errno));
    if (!g.quiet) table << "cubin: " << a.cubin << " (" << r.cubin.size() << " bytes)\n";
  }
  return kOk;
}

}  // namespace

void add_compile_command(CLI::App& app, const Globals& g, Commands& out) {
  auto args = std::make_shared<CompileArgs>();
  auto* sub = app.add_subcommand(
      "compile", "compile a .cu file with NVRTC: diagnostics, resources per kernel, PTX");
  sub->add_option("file", args->file, "CUDA source file")->required();
  sub->add_option_function<std::string>(
      "--arch",
      [args](const std::string& v) {
        args->arch = v;
        args->arch_given = true;
      },
      "target architecture, e.g. sm_90 (default: the GPU's)");
  // One value per flag, so `-D N=1 file.cu` does not swallow the file name.
  sub->add_option("-D", args->defines, "define a macro: NAME or NAME=VALUE")
      ->allow_extra_args(false);
  sub->add_option("-I", args->include_dirs, "add a directory for #include \"...\"")
      ->allow_extra_args(false);
  sub->add_flag("--ptx", args->ptx, "print the PTX on stdout (the table goes to stderr)");
  sub->add_option("--cubin", args->cubin, "write the cubin (ELF) to this file");
  sub->add_flag("--lineinfo", args->lineinfo, "generate line information (-lineinfo)");
  sub->add_option("--max-errors", args->max_errors, "show at most N diagnostics (0: all)")
      ->capture_default_str();
  out.push_back({sub, [args, &g] { return run_compile(*args, g); }});
}

}  // namespace warplab::app
