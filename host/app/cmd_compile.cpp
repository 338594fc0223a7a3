// cmd_compile.cpp: `warplab compile FILE.cu`: NVRTC only, no GPU needed. Prints the
// diagnostics (stderr), a resource table per kernel (or JSON with --json), the PTX on
// request, writes the cubin on request; --kernel instantiates templates. Uses rtc/ for
// everything; the target arch comes from --arch (compute_XX: PTX only), else the live
// device or the profile (select_target), else sm_90 with a note.
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

#include <nlohmann/json.hpp>
#include <regex>

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
  std::vector<std::string> kernels;  // --kernel 'NAME<...>': name expressions to instantiate
  bool json = false;
};

std::string join_archs() {
  std::string out;
  for (const std::string& a : rtc::supported_archs()) out += (out.empty() ? "" : ", ") + a;
  return out + " (or compute_XX for PTX only)";
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

// The names of `template ... __global__` kernels in the source: what --kernel can
// instantiate when a file holds nothing else.
std::vector<std::string> template_kernels(const std::string& text) {
  // template <...> __global__ [qualifiers] void [__launch_bounds__(...)] NAME(
  static const std::regex re(
      R"re(template\s*<[^{;]*?>\s*__global__\s+(?:[\w:]+(?:\([^)]*\))?\s+)*?void\s+)re"
      R"re((?:__\w+__\s*(?:\([^)]*\))?\s*)*([A-Za-z_]\w*)\s*\()re");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1].str());
  return out;
}

template <class T>
nlohmann::json opt_json(std::optional<T> v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// The __launch_bounds__ cap the CUBIN records (.maxntid / .reqntid), null when none.
nlohmann::json declared_max_threads(const std::vector<rtc::ElfKernel>& elf, const std::string& name) {
  const rtc::ElfKernel* k = rtc::find_kernel(elf, name);
  if (!k) return nullptr;
  for (const auto& dims : {k->max_threads, k->reqntid})
    if (dims[0]) return static_cast<long>(dims[0]) * std::max(1u, dims[1]) * std::max(1u, dims[2]);
  return nullptr;
}

// `compile --json`: one object; unknown numbers are null, never 0 (docs/cli.md).
nlohmann::ordered_json result_json(const std::string& file, const rtc::CompileResult& r) {
  nlohmann::ordered_json j;
  j["file"] = file;
  j["arch"] = r.arch;
  j["nvrtc"] = r.nvrtc_version;
  j["ok"] = r.ok;
  j["ptx_only"] = rtc::is_virtual_arch(r.arch);
  j["from_cache"] = r.from_cache;
  std::vector<rtc::ElfKernel> elf;
  try {
    if (!r.cubin.empty()) elf = rtc::read_cubin(r.cubin);
  } catch (const rtc::Error&) {
  }  // the notes already say why the CUBIN could not be read
  j["kernels"] = nlohmann::ordered_json::array();
  for (const rtc::KernelResources& k : r.kernels) {
    const auto sig = rtc::demangle(k.mangled);
    std::string expression;
    for (const auto& [e, m] : r.lowered)
      if (m == k.mangled) expression = e;
    nlohmann::ordered_json o;
    o["name"] = sig ? sig->name : k.mangled;
    // extern "C" names carry no parameter types: the signature is unknown.
    o["signature"] = sig ? nlohmann::ordered_json(sig->to_string()) : nlohmann::ordered_json(nullptr);
    o["mangled"] = k.mangled;
    o["expression"] = expression.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(expression);
    o["regs"] = opt_json(k.registers);
    o["shared"] = opt_json(k.shared_bytes);
    o["const"] = opt_json(k.const_bytes);
    o["local"] = opt_json(k.stack_bytes);
    o["spill_store"] = opt_json(k.spill_store_bytes);
    o["spill_load"] = opt_json(k.spill_load_bytes);
    o["spills"] = k.spill_store_bytes && k.spill_load_bytes
                      ? nlohmann::ordered_json(*k.spill_store_bytes + *k.spill_load_bytes)
                      : nlohmann::ordered_json(nullptr);
    o["barriers"] = opt_json(k.barriers);
    o["max_threads"] = declared_max_threads(elf, k.mangled);
    o["arch"] = r.arch;
    j["kernels"].push_back(o);
  }
  j["notes"] = r.resource_notes;
  j["diagnostics"] = nlohmann::ordered_json::array();
  for (const rtc::Diagnostic& d : r.diagnostics)
    j["diagnostics"].push_back({{"file", d.file},
                                {"line", d.line},
                                {"column", d.col},
                                {"severity", std::string(rtc::to_string(d.severity))},
                                {"message", d.message}});
  return j;
}

// What to say when the source compiled to no kernel at all.
std::string no_kernels_hint(const rtc::Source& src, const CompileArgs& a) {
  if (!a.kernels.empty()) return {};
  const std::vector<std::string> names = template_kernels(src.text);
  if (names.empty()) return {};
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return ": instantiate with --kernel, e.g. --kernel '" + names.front() + "<...>' (templates: " +
         list + ")";
}


void write_cubin(const CompileArgs& a, const rtc::CompileResult& r) {
  if (a.cubin.empty()) return;
  std::ofstream out(a.cubin, std::ios::binary);
  out.write(r.cubin.data(), static_cast<std::streamsize>(r.cubin.size()));
  out.flush();
  if (!out.good())
    throw Failure(kBadInput, "cannot write the cubin to '" + a.cubin + "': " + std::strerror(errno));
}

int run_compile(const CompileArgs& a, const Globals& g) {
  if (a.arch_given && a.arch.empty())
    throw Failure(kBadInput, "--arch needs an architecture, e.g. sm_90 (valid: " + join_archs() + ")");
  if (!a.cubin.empty() && rtc::is_virtual_arch(a.arch))
    throw Failure(kBadInput, "--cubin needs a real architecture (sm_XX): " + a.arch + " gives PTX only");
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
  opt.allow_virtual = true;  // compute_XX: PTX only
  opt.name_expressions = a.kernels;
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
  if (a.json) std::cout << result_json(a.file, r).dump(2) << "\n";
  if (!r.ok) {
    std::cerr << "warplab: " << a.file << " did not compile for " << r.arch << " ("
              << r.errors() << (r.errors() == 1 ? " error" : " errors") << ")\n";
    return kCompileError;
  }
  write_cubin(a, r);
  if (a.json) return kOk;
  // With --ptx, stdout carries only the PTX (so it can be redirected); the table moves
  // to stderr.
  std::ostream& table = a.ptx ? std::cerr : std::cout;
  const bool ptx_only = rtc::is_virtual_arch(r.arch);
  if (!g.quiet || r.kernels.empty()) {
    std::ostringstream ms;
    ms << std::fixed << std::setprecision(0) << r.compile_ms;
    table << a.file << ": " << r.kernels.size() << (r.kernels.size() == 1 ? " kernel" : " kernels")
          << " for " << r.arch << " (NVRTC " << r.nvrtc_version << ", " << ms.str() << " ms"
          << (r.from_cache ? ", from the cache" : "") << (ptx_only ? ", PTX only" : "") << ")\n";
  }
  if (const std::string hint = r.kernels.empty() ? no_kernels_hint(src, a) : ""; !hint.empty())
    table << "0 kernels" << hint << "\n";
  if (ptx_only) {  // no cubin, so no resources: the kernels by name, and why
    for (const rtc::KernelResources& k : r.kernels) {
      const auto sig = rtc::demangle(k.mangled);
      table << (sig ? sig->to_string() : k.mangled) << "\n";
    }
    for (const std::string& n : r.resource_notes) table << "note: " << n << "\n";
  } else if (!r.kernels.empty()) {
    print_table(table, r);
  }
  if (a.ptx) std::cout << r.ptx;
  if (!a.cubin.empty() && !g.quiet)
    table << "cubin: " << a.cubin << " (" << r.cubin.size() << " bytes)\n";
  return kOk;
}

}  // namespace

std::vector<std::string> arch_choices() {
  std::vector<std::string> out = rtc::supported_archs();
  const std::size_t real = out.size();
  for (std::size_t i = 0; i < real; ++i) out.push_back("compute_" + out[i].substr(3));
  return out;
}

void add_compile_command(CLI::App& app, const Globals& g, Commands& out) {
  auto args = std::make_shared<CompileArgs>();
  auto* sub = app.add_subcommand(
      "compile", "compile a .cu file with NVRTC: diagnostics, resources per kernel, PTX");
  sub->add_option("file", args->file, "CUDA source file")->required()->type_name("FILE.cu");
  sub->add_option_function<std::string>(
         "--arch",
         [args](const std::string& v) {
           args->arch = v;
           args->arch_given = true;
         },
         "target architecture: sm_90, sm_90a, ... (default: the GPU's); compute_90: PTX only")
      ->type_name("ARCH");
  // One value per flag, so `-D N=1 file.cu` does not swallow the file name.
  sub->add_option("-D", args->defines, "define a macro: NAME or NAME=VALUE")
      ->allow_extra_args(false)
      ->type_name("NAME[=VALUE]");
  sub->add_option("-I", args->include_dirs, "add a directory for #include \"...\"")
      ->allow_extra_args(false)
      ->type_name("DIR");
  sub->add_option("--kernel", args->kernels,
                  "instantiate a template kernel: 'NAME<ARGS>' (repeatable), as kernels = in Lua")
      ->allow_extra_args(false)
      ->type_name("NAME<...>");
  auto* ptx = sub->add_flag("--ptx", args->ptx, "print the PTX on stdout (the table goes to stderr)");
  auto* json = sub->add_flag("--json", args->json,
                             "print the kernels and their resources as JSON (unknown: null)");
  json->excludes(ptx);
  sub->add_option("--cubin", args->cubin, "write the cubin (ELF) to this file")->type_name("FILE");
  sub->add_flag("--lineinfo", args->lineinfo, "generate line information (-lineinfo)");
  sub->add_option("--max-errors", args->max_errors, "show at most N diagnostics (0: all)")
      ->capture_default_str()
      ->type_name("N");
  set_help(sub,
           {"warplab compile kernels_src/warps/thread_ids.cu --arch sm_90",
            "warplab compile k.cu --kernel 'reduce<256>' --json",
            "warplab compile k.cu --arch compute_90 --ptx > k.ptx"},
           "Exit status: 0 compiled; 4 unreadable file or unsupported architecture; 5 NVRTC "
           "rejected the source.\n");
  out.push_back({sub, [args, &g] { return run_compile(*args, g); }});
}

}  // namespace warplab::app
