// compile/command.cpp: `warplab compile FILE.cu`: NVRTC only, no GPU needed. Prints the
// diagnostics (stderr), a resource table per kernel (or JSON), the PTX or the cubin on
// request; --kernel instantiates templates. The arch comes from --arch (compute_XX: PTX
// only), else the live device or profile (select_target), else sm_90 with a note.
// --sass prints the SASS, clean or as the disassembler does (code.hpp); --diff compares it
// with a second variant's; --timings says where the time went; --pch keeps the headers warm
// first, as watch does.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include "app/cli/cleanup.hpp"
#include "app/cli/command.hpp"
#include "app/compile/args.hpp"
#include "app/compile/code.hpp"
#include "app/compile/lines.hpp"
#include "app/compile/report.hpp"
#include "cu/limits.hpp"
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

// --sass's value: clean (the listing, --sass alone) or raw (the disassembler's text).
CLI::Validator sass_mode() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        return v == "clean" || v == "raw" ? std::string() : "--sass=raw or --sass alone (got '" + v + "')";
      },
      "MODE");
}

// --arch, else the target's (the profile asked for, the live device, the default
// profile), else sm_90, saying so. A profile that was asked for and fails is an error.
// `live`: the device, when the arch is the live GPU's (--timings then times a load);
// `target`: the device or profile the arch came from.
std::string choose_arch(const Variant& v, const Globals& g, int* live,
                        std::optional<cu::DeviceSnapshot>& target) {
  if (!v.arch.empty()) return v.arch;
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

// --diff: the second variant compiled as the first was, then what changed, kernel by kernel.
int run_diff(const CompileArgs& a, const Globals& g, const rtc::CompileResult& first, rtc::Cache* cache) {
  const std::string file = a.diff_file.empty() ? a.file : a.diff_file;
  const rtc::Source src = rtc::load_source(file);  // an unreadable file: bad input (4)
  const rtc::Options opt = options_of(a, &a.second, a.second.arch_given ? a.second.arch : first.arch);
  const rtc::CompileResult r = rtc::compile(src, opt, cache);
  std::cerr << rtc::format_diagnostics(r, a.max_errors, g.opts.color && isatty(STDERR_FILENO));
  const CodeSide one{variant_label(a.file, nullptr), &first}, two{variant_label(file, &a.second), &r};
  if (!r.ok) {
    std::cerr << "warplab: " << two.label << " did not compile for " << r.arch << " ("
              << sys::plural(r.errors(), "error") << ")\n";
    return kCompileError;
  }
  if (!g.opts.quiet) {
    print_summary(std::cerr, one.label, first);
    print_summary(std::cerr, two.label, r);
  }
  const bool differ = print_code_diff(std::cout, one, two, a.ptx, a.diff_lines);
  return differ ? kFailed : kOk;  // as diff: 1 when they differ
}

int run_compile(const CompileArgs& given, const Globals& g) {
  const CompileArgs a = with_shipped_files(given);
  check_args(a);
  const bool sass = a.wants_sass();
  if (!a.cubin.empty()) {  // before the compile (sys/output.hpp): never the source or the profile
    std::vector<sys::NamedInput> inputs = {{a.file, "the source"}};
    if (!g.opts.profile.empty() && !cu::find_embedded_profile(g.opts.profile))
      inputs.push_back({g.opts.profile, "the profile"});
    if (const auto why = sys::output_refusal(a.cubin, sys::Replace::allowed, inputs))
      throw Error(ErrorKind::bad_input, "--cubin: " + *why);
  }
  const rtc::Source src = rtc::load_source(a.file);  // an unreadable file: bad input (4)
  int live = -1;
  std::optional<cu::DeviceSnapshot> target;
  const rtc::Options opt = options_of(a, nullptr, choose_arch(a.both, g, &live, target));
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
  if (a.diff) return run_diff(a, g, r, cache ? &*cache : nullptr);
  write_cubin(a, r);
  if (a.json) return kOk;
  // With --ptx or --sass, stdout carries only that code (so it can be redirected); the
  // table moves to stderr.
  std::ostream& table = a.ptx || sass ? std::cerr : std::cout;
  const bool ptx_only = rtc::is_virtual_arch(r.arch);
  if (!g.opts.quiet || r.kernels.empty()) print_summary(table, a.file, r);
  if (const std::string hint = r.kernels.empty() ? no_kernels_hint(src, a) : ""; !hint.empty())
    table << "0 kernels" << hint << "\n";
  if (ptx_only) {  // no cubin, so no resources: the kernels by name, and why
    for (const rtc::KernelResources& k : r.kernels) {
      const auto sig = r.signature(k.mangled);
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
    std::cout << compile_lines(src, opt, r, sass, g.opts.color && isatty(STDOUT_FILENO));
  else if (sass)
    std::cout << (a.sass == "raw" ? rtc::disassemble(r.cubin, "--sass") : sass_listing(r, "--sass"));
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
  // -D, -I and --arch are read as they come: after --diff they are the second variant's.
  sub->add_option_function<std::string>(
         "--arch",
         [args](const std::string& v) {
           args->variant().arch = v;
           args->variant().arch_given = true;
         },
         "target architecture: sm_90, sm_90a, ... (default: the GPU's); compute_90: PTX only")
      ->trigger_on_parse()
      ->type_name("ARCH");
  // One value per flag, so `-D N=1 file.cu` does not swallow the file name.
  // (A list, emptied at each use: each -D is handed over alone, to the variant of its place.)
  sub->add_option_function<std::vector<std::string>>(
         "-D",
         [args](const std::vector<std::string>& v) {
           for (const std::string& d : v) args->variant().defines.push_back(d);
         },
         "define a macro: NAME or NAME=VALUE")
      ->trigger_on_parse()
      ->allow_extra_args(false)
      ->type_name("NAME[=VALUE]");
  sub->add_option_function<std::vector<std::string>>(
         "-I",
         [args](const std::vector<std::string>& v) {
           for (const std::string& d : v) args->variant().include_dirs.push_back(d);
         },
         "add a directory for #include \"...\"")
      ->trigger_on_parse()
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
  // A flag with an optional value (--sass, --sass=raw): it never takes the next word.
  auto* sass =
      sub->add_flag("--sass{clean}", args->sass,
                    "print each kernel's SASS on stdout, from cuobjdump or nvdisasm (the table goes to "
                    "stderr): its instructions without encodings, branch targets as labels; "
                    "--sass=raw: the tool's own text")
          ->check(sass_mode())
          ->type_name("[=raw]");
  sass->excludes(ptx);
  sass->excludes(json);
  auto* lines =
      sub->add_flag("--lines", args->lines,
                    "list each kernel's source lines with the instructions each made and their kinds "
                    "(shared/global/local loads and stores, branches, barriers, atomics), compiled with line "
                    "information; with --sass, each line's SASS under it");
  lines->excludes(ptx);
  lines->excludes(json);
  // --diff [FILE]: a file is taken only as its value (the source stays the first word that
  // is not an option's); the options after it are the second variant's.
  auto* diff = sub->add_option_function<std::string>(
                      "--diff",
                      [args](const std::string& v) {
                        args->diff = true;
                        args->diff_file = v;
                      },
                      "compare the SASS (with --ptx the PTX) with a second variant's, kernel by kernel, "
                      "renumbered registers and labels taken for no change: another file, or the same file "
                      "with the -D, -I and --arch that follow --diff (exit 1 when they differ)")
                   ->expected(0, 1)
                   ->trigger_on_parse()
                   ->type_name("FILE.cu");
  diff->excludes(json);
  diff->excludes(lines);
  sub->add_option("--diff-lines", args->diff_lines,
                  "with --diff, show at most N lines of each kernel's diff (0: all)")
      ->check(count_upto(1000000))
      ->capture_default_str()
      ->needs(diff)
      ->type_name("N");
  sub->add_option_function<std::string>(
         "--cubin",
         [args](const std::string& v) {
           args->cubin = v;
           args->cubin_given = true;
         },
         "write the cubin (ELF) to this file, replacing it (never a file the compile read)")
      ->type_name("FILE")
      ->excludes(diff);
  sub->add_flag("--lineinfo", args->lineinfo, "generate line information (-lineinfo)");
  sub->add_flag("--timings", args->timings,
                "say where the time went: includes, cache, NVRTC's phases, ptxas, PCH, the load on a GPU")
      ->excludes(diff);
  sub->add_flag("--pch", args->pch,
                "keep the headers the file opens with warm first (as watch does), then compile with them")
      ->excludes(diff);
  sub->add_option("--max-errors", args->max_errors, "show at most N diagnostics (0: all)")
      ->check(count_upto(1000000))
      ->capture_default_str()
      ->type_name("N");
  set_help(sub,
           {"warplab compile warps/thread_ids.cu --arch sm_90 --sass",
            "warplab compile k.cu --kernel 'reduce<256>' --json",
            "warplab compile k.cu --diff -D PAD   # what -D PAD changes in the SASS (or --diff b.cu)"},
           "Exit status: 0 compiled (with --diff: the same code); 1 --diff found differences, or the "
           "disassembler failed (its reason is said); 2 bad command line; 4 unreadable file or "
           "unsupported architecture; 5 NVRTC rejected the source; 8 --sass or --diff without "
           "nvdisasm (cuobjdump needs it too).\n");
  out.push_back({sub, [args, &g] { return run_compile(*args, g); }});
}

}  // namespace warplab::app
