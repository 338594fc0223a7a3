// compile/args.cpp: the compile command line's refusals and each variant's NVRTC options
// (args.hpp).
#include "app/compile/args.hpp"

#include <filesystem>

#include "lab/module_spec.hpp"
#include "rtc/error.hpp"
#include "sys/error.hpp"

namespace warplab::app {
namespace {

// A variant's options before the compile: an empty --arch, or one with no SASS where SASS or
// a cubin is asked for.
void check_variant(const Variant& v, const CompileArgs& a) {
  if (v.arch_given && v.arch.empty())
    throw Error(ErrorKind::bad_input,
                "--arch needs an architecture, e.g. sm_90 (valid: " + join_archs() + ")");
  if (!a.cubin.empty() && rtc::is_virtual_arch(v.arch))
    throw Error(ErrorKind::bad_input,
                "--cubin needs a real architecture (sm_XX): " + v.arch + " gives PTX only");
  if (a.wants_sass() && rtc::is_virtual_arch(v.arch))
    throw Error(ErrorKind::bad_input, std::string(a.diff ? "--diff of the SASS" : "--sass") +
                                          " needs a real architecture (sm_XX): " + v.arch +
                                          " gives PTX only" +
                                          (a.diff ? " (--diff --ptx compares the PTX)" : ""));
}

// --diff's refusals: no second variant, or the same one twice.
void check_diff(const CompileArgs& a) {
  if (!a.diff) return;
  if (a.diff_file.empty() && a.second.empty())
    throw Error(ErrorKind::usage,
                "--diff needs a second variant: a file (--diff b.cu) or options after it for the same file "
                "(--diff -D PAD, --diff --arch sm_80)");
  std::error_code ec;
  if (a.second.empty() && (a.diff_file == a.file || std::filesystem::equivalent(a.diff_file, a.file, ec)))
    throw Error(ErrorKind::usage,
                "--diff " + a.diff_file + ": the same file with the same options as " + a.file +
                    ": nothing to compare (add -D, -I or --arch after --diff, or name another "
                    "file)");
  if (a.sass == "raw")
    throw Error(ErrorKind::usage, "--diff compares the clean listings: --sass=raw cannot be diffed");
}

}  // namespace

CompileArgs with_shipped_files(CompileArgs a) {
  for (std::string* file : {&a.file, &a.diff_file}) {
    std::error_code ec;
    if (file->empty()) continue;
    // (only a file found replaces the name: anything else is said by the reader, as given)
    if (const auto p = lab::locate_kernel_file(*file, ""); p && std::filesystem::is_regular_file(*p, ec))
      *file = p->string();
  }
  return a;
}

std::string join_archs() {
  std::string out;
  for (const std::string& a : rtc::supported_archs()) out += (out.empty() ? "" : ", ") + a;
  return out + " (or compute_XX for PTX only)";
}

void check_args(const CompileArgs& a) {
  check_variant(a.both, a);
  check_variant(a.second, a);
  if (a.cubin_given && a.cubin.empty())
    throw Error(ErrorKind::usage, "--cubin needs a file name: --cubin FILE");
  if (a.lines && a.sass == "raw")
    throw Error(ErrorKind::usage,
                "--lines shows the clean instructions under each line: --sass=raw cannot go with it");
  check_diff(a);
}

rtc::Options options_of(const CompileArgs& a, const Variant* second, const std::string& arch) {
  rtc::Options opt;
  opt.arch = arch;
  try {
    for (const std::string& d : a.both.defines) opt.defines.push_back(rtc::parse_define(d));
    if (second)
      for (const std::string& d : second->defines) {
        auto def = rtc::parse_define(d);
        std::erase_if(opt.defines, [&](const auto& o) { return o.first == def.first; });
        opt.defines.push_back(std::move(def));
      }
  } catch (const rtc::Error& e) {
    throw Error(ErrorKind::usage, std::string("-D: ") + e.what());
  }
  opt.include_dirs = a.both.include_dirs;
  if (second)
    opt.include_dirs.insert(opt.include_dirs.end(), second->include_dirs.begin(), second->include_dirs.end());
  opt.lineinfo = a.lineinfo || a.lines;  // --lines needs the line table
  opt.allow_virtual = true;              // compute_XX: PTX only
  opt.name_expressions = a.kernels;
  return opt;
}

std::string variant_label(const std::string& file, const Variant* second) {
  std::string out = file;
  if (!second) return out;
  for (const std::string& d : second->defines) out += " -D " + d;
  for (const std::string& i : second->include_dirs) out += " -I " + i;
  if (second->arch_given) out += " --arch " + second->arch;
  return out;
}

}  // namespace warplab::app
