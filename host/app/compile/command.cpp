// compile/command.cpp: `warplab compile FILE.cu`: NVRTC only, no GPU needed. Prints the
// diagnostics (stderr), a resource table per kernel (or JSON), the PTX or the cubin on
// request; --kernel instantiates templates. The arch comes from --arch (compute_XX: PTX
// only), else the live device or profile (select_target), else sm_90 with a note.
// --sass prints the SASS (rtc/sass.hpp); --timings says where the time went; --pch keeps
// the headers warm first, as watch does.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "app/cli/cleanup.hpp"
#include "app/cli/command.hpp"
#include "app/compile/lines.hpp"
#include "app/compile/report.hpp"
#include "cu/context.hpp"
#include "cu/limits.hpp"
#include "cu/module.hpp"
#include "cu/profile.hpp"
#include "rtc/cache.hpp"
#include "rtc/compile.hpp"
#include "rtc/pch.hpp"
#include "rtc/sass.hpp"
#include "sys/output.hpp"
#include "sys/text.hpp"
#include "sys/write.hpp"

namespace warplab::app {
namespace {

struct CompileArgs {
  std::string file;
  std::string arch;
  std::vector<std::string> defines;
  std::vector<std::string> include_dirs;
  bool ptx = false;
  bool sass = false;  // --sass: the SASS on stdout (cuobjdump or nvdisasm: rtc/sass.hpp)
  std::string cubin;
  bool cubin_given = false;  // --cubin "" is an error, not "no --cubin"
  bool lineinfo = false;
  std::size_t max_errors = 10;
  bool arch_given = false;           // --arch "" is an error, not "no --arch"
  std::vector<std::string> kernels;  // --kernel 'NAME<...>': name expressions to instantiate
  bool json = false;
  bool timings = false;  // where the time went
  bool pch = false;      // headers kept warm before the compile
  bool lines = false;    // --lines: each kernel's source lines and the instructions they made (lines.hpp)
};

std::string join_archs() {
  std::string out;
  for (const std::string& a : rtc::supported_archs()) out += (out.empty() ? "" : ", ") + a;
  return out + " (or compute_XX for PTX only)";
}

// --arch, else the target's (the profile asked for, the live device, the default
// profile), else sm_90, saying so. A profile that was asked for and fails is an error.
// `live`: the device, when the arch is the live GPU's (--timings then times a load);
// `target`: the device or profile the arch came from.
std::string choose_arch(const CompileArgs& a, const Globals& g, int* live,
                        std::optional<cu::DeviceSnapshot>& target) {
  if (!a.arch.empty()) return a.arch;
  if (!g.opts.profile.empty()) return target.emplace(select_target(g, true)).arch();
  try {
    const cu::DeviceSnapshot& t = target.emplace(select_target(g, true));
    if (t.live()) *live = t.ordinal;
    return t.arch();
  } catch (const std::exception& e) {
    if (!g.opts.quiet) std::cerr << "warplab: " << e.what() << "; compiling for sm_90 (choose with --arch)\n";
    return "sm_90";
  }
}

// The limits a kernel's largest block is computed on: the target's, when the arch came
// from it; else the shipped architecture profile of the arch (sm_90a: sm_90), whose
// per-SM limits are those of every GPU of that architecture; else none (unknown).
std::optional<cu::DeviceLimits> arch_limits(const std::string& arch,
                                            const std::optional<cu::DeviceSnapshot>& target) {
  try {
    if (target && target->arch() == arch) return cu::device_limits(*target);
    std::string base = arch;
    if (base.size() > 3 && (base.back() == 'a' || base.back() == 'f')) base.pop_back();
    if (cu::find_embedded_profile(base) && !rtc::is_virtual_arch(arch))
      return cu::device_limits(cu::load_profile(base));
  } catch (const std::exception&) {
  }  // a profile without the limits: the number stays unknown
  return std::nullopt;
}

std::string ms(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(v < 10 ? 1 : 0) << v;
  return o.str();
}

// --timings: "time: 212 ms: includes 0.4, cache 0.2, NVRTC 205 (front end 180, ...)",
// whether a PCH was used, and on a GPU the context and the module load.
void print_timings(std::ostream& os, const rtc::CompileResult& r, const rtc::WarmResult* warm, int live) {
  const rtc::CompileTimes& t = r.times;
  os << "time: " << ms(r.compile_ms) << " ms: includes " << ms(t.includes) << ", cache " << ms(t.cache);
  if (r.from_cache) {
    os << " (a hit: no NVRTC)\n";
  } else {
    os << ", NVRTC " << ms(t.nvrtc);
    std::string split;
    for (const auto& [name, v] :
         {std::pair{"front end", t.frontend}, {"optimizer", t.optimizer}, {"PTX", t.ptx}, {"ptxas", t.ptxas}})
      if (v >= 0) split += (split.empty() ? "" : ", ") + std::string(name) + " " + ms(v);
    os << (split.empty() ? "" : " (" + split + ")") << ", outputs " << ms(t.outputs) << "\n";
  }
  if (warm)
    os << "PCH: headers kept warm in " << ms(warm->ms) << " ms"
       << (warm->made ? "" : " (none: " + warm->why + ")") << "; "
       << (r.pch          ? "used"
           : r.from_cache ? "not needed"
                          : "not used (" + r.pch_note + ")")
       << "\n";
  else
    os << "PCH: not used (none kept warm in this process; --pch keeps them, as watch does)\n";
  if (live < 0 || r.cubin.empty()) return;
  const auto t0 = std::chrono::steady_clock::now();
  const cu::ContextPtr ctx = cu::primary_context(live);
  const auto t1 = std::chrono::steady_clock::now();
  const cu::ModulePtr m =
      cu::Module::load_cubin(ctx, std::string_view(r.cubin.data(), r.cubin.size()), r.arch);
  const auto t2 = std::chrono::steady_clock::now();
  auto d = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  os << "load: " << ms(d(t1, t2)) << " ms into device " << live << " (its context first: " << ms(d(t0, t1))
     << " ms)\n";
}

// What to say when the source compiled to no kernel at all.
std::string no_kernels_hint(const rtc::Source& src, const CompileArgs& a) {
  if (!a.kernels.empty()) return {};
  const std::vector<std::string> names = template_kernels(src.text);
  if (names.empty()) return {};
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return ": instantiate with --kernel, e.g. --kernel '" + names.front() + "<...>' (templates: " + list + ")";
}

// --cubin FILE replaces FILE (docs/cli.md), through the one writer: a failed write leaves
// the old file as it was. Never a file the compile read: the source and the profile were
// checked before the compile (run_compile), the headers it included are noted as inputs
// now, which the writer refuses.
void write_cubin(const CompileArgs& a, const rtc::CompileResult& r) {
  if (a.cubin.empty()) return;
  sys::note_input(a.file, "the source");
  for (const rtc::Dependency& d : r.dependencies) sys::note_input(d.path.string(), "a header of " + a.file);
  const sys::WriteResult w =
      sys::write_file(a.cubin, std::string_view(r.cubin.data(), r.cubin.size()), sys::Replace::allowed);
  if (!w) throw Error(ErrorKind::bad_input, "--cubin: " + w.message);  // as any file named that fails (4)
}

int run_compile(const CompileArgs& a, const Globals& g) {
  if (a.arch_given && a.arch.empty())
    throw Error(ErrorKind::bad_input,
                "--arch needs an architecture, e.g. sm_90 (valid: " + join_archs() + ")");
  if (a.cubin_given && a.cubin.empty())
    throw Error(ErrorKind::usage, "--cubin needs a file name: --cubin FILE");
  if (!a.cubin.empty() && rtc::is_virtual_arch(a.arch))
    throw Error(ErrorKind::bad_input,
                "--cubin needs a real architecture (sm_XX): " + a.arch + " gives PTX only");
  if (a.sass && rtc::is_virtual_arch(a.arch))
    throw Error(ErrorKind::bad_input,
                "--sass needs a real architecture (sm_XX): " + a.arch + " gives PTX only");
  if (!a.cubin.empty()) {  // before the compile (sys/output.hpp): never the source or the profile
    std::vector<sys::NamedInput> inputs = {{a.file, "the source"}};
    if (!g.opts.profile.empty() && !cu::find_embedded_profile(g.opts.profile))
      inputs.push_back({g.opts.profile, "the profile"});
    if (const auto why = sys::output_refusal(a.cubin, sys::Replace::allowed, inputs))
      throw Error(ErrorKind::bad_input, "--cubin: " + *why);
  }
  const rtc::Source src = rtc::load_source(a.file);  // an unreadable file: bad input (4)
  rtc::Options opt;
  int live = -1;
  std::optional<cu::DeviceSnapshot> target;
  opt.arch = choose_arch(a, g, &live, target);
  try {
    for (const std::string& d : a.defines) opt.defines.push_back(rtc::parse_define(d));
  } catch (const rtc::Error& e) {
    throw Error(ErrorKind::usage, std::string("-D: ") + e.what());
  }
  opt.include_dirs = a.include_dirs;
  opt.lineinfo = a.lineinfo || a.lines;  // --lines needs the line table
  opt.allow_virtual = true;              // compute_XX: PTX only
  opt.name_expressions = a.kernels;
  // An rtc::Error is bad input (the arch, an include folder), or internal when NVRTC broke.
  rtc::CompileResult r;
  std::optional<rtc::Cache> cache;
  if (g.opts.cache) cache.emplace(rtc::Cache::default_dir());
  if (cache && !cache->warning().empty()) std::cerr << "warplab: " << cache->warning() << "\n";
  std::optional<Cleanup> keep;  // the warm headers' file, removed however this ends
  std::optional<rtc::WarmResult> warm;
  if (a.timings) rtc::set_phase_times(true);
  if (a.pch) {
    keep.emplace("compile");
    if (!keep->note().empty())
      std::cerr << "warplab: " << keep->note()
                << (keep->dir().empty() ? ": compiling without warm headers" : "") << "\n";
    if (!keep->dir().empty()) {
      warm = rtc::warm_headers(src, opt, keep->dir());
    } else {  // no folder of ours for the PCH file (never the current folder)
      warm.emplace();
      warm->why = "no folder for the precompiled headers";
    }
  }
  r = rtc::compile(src, opt, cache ? &*cache : nullptr);
  // Colour only for a terminal: diagnostics piped into a file or an editor stay plain.
  const bool color = g.opts.color && isatty(STDERR_FILENO);
  std::cerr << rtc::format_diagnostics(r, a.max_errors, color);
  const std::optional<cu::DeviceLimits> limits = r.ok ? arch_limits(r.arch, target) : std::nullopt;
  if (a.json) std::cout << result_json(a.file, r, limits ? &*limits : nullptr).dump(2) << "\n";
  if (!r.ok) {
    std::cerr << "warplab: " << a.file << " did not compile for " << r.arch << " ("
              << sys::plural(r.errors(), "error") << ")\n";
    if (a.timings) print_timings(std::cerr, r, warm ? &*warm : nullptr, -1);
    return kCompileError;
  }
  write_cubin(a, r);
  if (a.json) return kOk;
  // With --ptx or --sass, stdout carries only that code (so it can be redirected); the
  // table moves to stderr.
  std::ostream& table = a.ptx || a.sass ? std::cerr : std::cout;
  const bool ptx_only = rtc::is_virtual_arch(r.arch);
  if (!g.opts.quiet || r.kernels.empty()) {
    std::ostringstream ms;
    ms << std::fixed << std::setprecision(0) << r.compile_ms;
    table << a.file << ": " << sys::plural(r.kernels.size(), "kernel") << " for " << r.arch << " (NVRTC "
          << r.nvrtc_version << ", " << ms.str() << " ms" << (r.from_cache ? ", from the cache" : "")
          << (ptx_only ? ", PTX only" : "") << ")\n";
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
    print_table(table, r, limits ? &*limits : nullptr);
  }
  if (a.ptx) std::cout << r.ptx;
  // The listing, with --sass each line's SASS under it. Without a disassembler --sass is
  // kind tool, exit 8, as run --sanitize without its tool; the tool failing: exit 1.
  if (a.lines)
    std::cout << compile_lines(src, opt, r, a.sass, g.opts.color && isatty(STDOUT_FILENO));
  else if (a.sass)
    std::cout << rtc::disassemble(r.cubin, "--sass");
  if (!a.cubin.empty() && !g.opts.quiet)
    table << "cubin: " << a.cubin << " (" << r.cubin.size() << " bytes)\n";
  if (a.timings) print_timings(table, r, warm ? &*warm : nullptr, live);
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
  auto* sub =
      app.add_subcommand("compile", "compile a .cu file with NVRTC: diagnostics, resources per kernel, PTX");
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
  auto* json =
      sub->add_flag("--json", args->json, "print the kernels and their resources as JSON (unknown: null)");
  json->excludes(ptx);
  auto* sass =
      sub->add_flag("--sass", args->sass,
                    "print the SASS on stdout, from cuobjdump or nvdisasm (the table goes to stderr)");
  sass->excludes(ptx);
  sass->excludes(json);
  auto* lines =
      sub->add_flag("--lines", args->lines,
                    "list each kernel's source lines with the instructions each made and their kinds "
                    "(shared/global/local loads and stores, branches, barriers, atomics), compiled with line "
                    "information; with --sass, each line's SASS under it");
  lines->excludes(ptx);
  lines->excludes(json);
  sub->add_option_function<std::string>(
         "--cubin",
         [args](const std::string& v) {
           args->cubin = v;
           args->cubin_given = true;
         },
         "write the cubin (ELF) to this file, replacing it (never a file the compile read)")
      ->type_name("FILE");
  sub->add_flag("--lineinfo", args->lineinfo, "generate line information (-lineinfo)");
  sub->add_flag("--timings", args->timings,
                "say where the time went: includes, cache, NVRTC's phases, ptxas, PCH, the load on a GPU");
  sub->add_flag("--pch", args->pch,
                "keep the headers the file opens with warm first (as watch does), then compile with them");
  sub->add_option("--max-errors", args->max_errors, "show at most N diagnostics (0: all)")
      ->check(count_upto(1000000))
      ->capture_default_str()
      ->type_name("N");
  set_help(sub,
           {"warplab compile kernels_src/warps/thread_ids.cu --arch sm_90",
            "warplab compile k.cu --kernel 'reduce<256>' --json",
            "warplab compile k.cu --arch compute_90 --ptx > k.ptx"},
           "Exit status: 0 compiled; 4 unreadable file or unsupported architecture; 5 NVRTC "
           "rejected the source; 8 --sass without cuobjdump or nvdisasm.\n");
  out.push_back({sub, [args, &g] { return run_compile(*args, g); }});
}

}  // namespace warplab::app
