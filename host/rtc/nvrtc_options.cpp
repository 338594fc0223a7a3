// nvrtc_options.cpp: see nvrtc_options.hpp. One table of NVRTC's spellings (long, short,
// how the value is written), each accepted or refused with its reason; -Xptxas values
// have their own list; then the whole option list warplab hands NVRTC. NVRTC's own forms were read off
// NVRTC 13.0: an option's value may follow as the next element ("-maxrregcount", "32") for the options marked
// `split`.
#include "rtc/nvrtc_options.hpp"

#include "rtc/compile.hpp"
#include "rtc/toolkit.hpp"
#include "sys/shown.hpp"

#include <cstring>
#include <string_view>

namespace warplab::rtc {
namespace {

enum class Value {
  none,      // a flag: -G
  joined,    // only as --std=c++20
  split,     // --ftz=true or --ftz true
  attached,  // as split, and glued to the short name: -DNAME, -IDIR
};

struct Spec {
  const char* name;    // --long-name
  const char* short_;  // -short, or nullptr
  Value value;
  const char* refused;  // nullptr: accepted; else why not, ending the sentence
};

constexpr const char* kArch =
    "chooses the architecture, which goes in the arch field (cuda.compile{arch = \"sm_90\"}, "
    "warplab compile --arch), where warplab checks it against the device";
constexpr const char* kNoCubin = "gives no cubin warplab can load";
constexpr const char* kLink = "makes relocatable code that needs a link step warplab does not do";
constexpr const char* kPch =
    "uses precompiled header files; warplab resolves includes itself and caches whole compiles";

constexpr Spec kSpecs[] = {
    // Code generation and debugging.
    {"--device-debug", "-G", Value::none, nullptr},
    {"--generate-line-info", "-lineinfo", Value::none, nullptr},
    {"--dopt", "-dopt", Value::split, nullptr},
    {"--maxrregcount", "-maxrregcount", Value::split, nullptr},
    {"--use_fast_math", "-use_fast_math", Value::none, nullptr},
    {"--ftz", "-ftz", Value::split, nullptr},
    {"--prec-div", "-prec-div", Value::split, nullptr},
    {"--prec-sqrt", "-prec-sqrt", Value::split, nullptr},
    {"--fmad", "-fmad", Value::split, nullptr},
    {"--extra-device-vectorization", "-extra-device-vectorization", Value::none, nullptr},
    {"--restrict", "-restrict", Value::none, nullptr},
    {"--jump-table-density", "-jtd", Value::split, nullptr},
    {"--Ofast-compile", "-Ofc", Value::joined, nullptr},
    {"--ptxas-options", "-Xptxas", Value::split, nullptr},  // the value: ptxas_ok
    // Language and preprocessor.
    {"--std", "-std", Value::joined, nullptr},
    {"--define-macro", "-D", Value::attached, nullptr},
    {"--undefine-macro", "-U", Value::attached, nullptr},
    {"--include-path", "-I", Value::attached, nullptr},
    {"--device-as-default-execution-space", "-default-device", Value::none, nullptr},
    {"--device-int128", "-device-int128", Value::none, nullptr},
    // Diagnostics.
    {"--disable-warnings", "-w", Value::none, nullptr},
    {"--display-error-number", "-err-no", Value::none, nullptr},
    {"--no-display-error-number", "-no-err-no", Value::none, nullptr},
    {"--diag-error", "-diag-error", Value::split, nullptr},
    {"--diag-suppress", "-diag-suppress", Value::split, nullptr},
    {"--diag-warn", "-diag-warn", Value::split, nullptr},
    {"--optimization-info", "-opt-info", Value::joined, nullptr},
    // Refused.
    {"--gpu-architecture", "-arch", Value::split, kArch},
    {"--gpu-code", "-code", Value::split, kArch},
    {"--dlink-time-opt", "-dlto", Value::none, kNoCubin},
    {"--gen-opt-lto", "-gen-opt-lto", Value::none, kNoCubin},
    {"--optix-ir", "-optix-ir", Value::none, kNoCubin},
    {"--fdevice-syntax-only", "-fdevice-syntax-only", Value::none, kNoCubin},
    {"--relocatable-device-code", "-rdc", Value::split, kLink},
    {"--extensible-whole-program", "-ewp", Value::none, kLink},
    {"--device-c", "-dc", Value::none, kLink},
    {"--pre-include", "-include", Value::split,
     "makes NVRTC read a file warplab does not track: #include it in the source"},
    {"--time", "-time", Value::split, "writes a file"},
    {"--fdevice-time-trace", "-fdevice-time-trace", Value::split, "writes a file"},
    {"--output-file", "-o", Value::split,
     "names an output file, and NVRTC writes none (warplab compile --cubin FILE does)"},
    {"--pch", "-pch", Value::none, kPch},
    {"--create-pch", "-create-pch", Value::split, kPch},
    {"--use-pch", "-use-pch", Value::split, kPch},
    {"--pch-dir", "-pch-dir", Value::split, kPch},
    {"--instantiate-templates-in-pch", "-instantiate-templates-in-pch", Value::split, kPch},
    {"--no-cache", nullptr, Value::none, "is warplab's to set (it passes it where NVRTC has it)"},
};

// The ptxas options a playground uses: optimisation level, register limit, cache
// defaults, warnings. Not -c (relocatable), -o, --gpu-name or anything that writes files.
constexpr const char* kPtxasFlags[] = {"-v",
                                       "--verbose",
                                       "-O0",
                                       "-O1",
                                       "-O2",
                                       "-O3",
                                       "-warn-spills",
                                       "--warn-on-spills",
                                       "-warn-lmem-usage",
                                       "--warn-on-local-memory-usage",
                                       "-warn-double-usage",
                                       "--warn-on-double-precision-use",
                                       "-disable-optimizer-consts",
                                       "--disable-optimizer-constants",
                                       "-suppress-stack-size-warning",
                                       "--suppress-stack-size-warning",
                                       "-sp-bounds-check",
                                       "--sp-bounds-check",
                                       "-w",
                                       "--disable-warnings",
                                       "-Werror",
                                       "--warning-as-error"};
constexpr const char* kPtxasValued[] = {  // written NAME=VALUE
    "--opt-level",
    "-allow-expensive-optimizations",
    "--allow-expensive-optimizations",
    "-dlcm",
    "--def-load-cache",
    "-dscm",
    "--def-store-cache",
    "-maxrregcount",
    "--maxrregcount",
    "-fmad",
    "--fmad"};

bool ptxas_ok(std::string_view v) {
  const std::size_t eq = v.find('=');
  const std::string_view name = v.substr(0, eq);
  if (eq == std::string_view::npos) {
    for (const char* f : kPtxasFlags)
      if (name == f) return true;
    return false;
  }
  for (const char* f : kPtxasValued)
    if (name == f) return eq + 1 < v.size();
  return false;
}

constexpr const char* kWhere = "docs/compile.md lists the NVRTC options warplab accepts";

struct Parsed {
  std::string written;  // as given, with a split value: "-arch sm_80"
  const Spec* spec = nullptr;
  std::string value;
};

// Walks `options` as NVRTC reads them. Returns nullopt and fills `out`, or the sentence for
// the first option refused.
std::optional<std::string> parse(const std::vector<std::string>& options, std::vector<Parsed>* out) {
  for (std::size_t i = 0; i < options.size(); ++i) {
    const std::string& o = options[i];
    if (o.empty()) return std::string("an empty string is not an option; ") + kWhere;
    if (o[0] != '-') return "'" + sys::shown(o) + "' is not an option (options start with -); " + kWhere;
    if (o.find_first_of("\r\n") != std::string::npos)
      return "an option holds a line break ('" + sys::shown(o.substr(0, o.find_first_of("\r\n"))) +
             "...'); " + kWhere;
    const std::size_t eq = o.find('=');
    const std::string name = o.substr(0, eq);
    Parsed p{o, nullptr, eq == std::string::npos ? std::string() : o.substr(eq + 1)};
    for (const Spec& s : kSpecs)
      if (name == s.name || (s.short_ && name == s.short_)) p.spec = &s;
    if (!p.spec)  // -DNAME=1, -I/dir, -UNAME: the value glued on
      for (const Spec& s : kSpecs)
        if (s.value == Value::attached && std::strncmp(o.c_str(), s.short_, 2) == 0 && o.size() > 2) {
          p.spec = &s;
          p.value = o.substr(2);
        }
    if (!p.spec && name.size() == 3 && name.rfind("-O", 0) == 0 && name[2] >= '0' && name[2] <= '3')
      return "'" + sys::shown(o) + "' is not an NVRTC option; ptxas's is -Xptxas " + name + "; " + kWhere;
    if (!p.spec) return "'" + sys::shown(o) + "' is not among the options warplab passes to NVRTC; " + kWhere;
    // "-arch sm_80": the value is the next element (not for "-arch=sm_80" or "-DNAME").
    const bool takes_next = (p.spec->value == Value::split || p.spec->value == Value::attached) &&
                            (o == p.spec->name || (p.spec->short_ && o == p.spec->short_)) &&
                            i + 1 < options.size();
    if (takes_next) {
      p.value = options[++i];
      p.written += " " + p.value;
    }
    if (p.spec->refused == kArch && !p.value.empty())  // name the architecture they asked for
      return "'" + sys::shown(p.written) +
             "' chooses the architecture, which goes in the arch field (cuda.compile{arch = \"" +
             sys::shown(p.value) + "\"}, warplab compile --arch " + sys::shown(p.value) +
             "), where warplab checks it against the device; " + kWhere;
    if (p.spec->refused) return "'" + sys::shown(p.written) + "' " + p.spec->refused + "; " + kWhere;
    if (std::strcmp(p.spec->name, "--ptxas-options") == 0 && !ptxas_ok(p.value))
      return "'" + sys::shown(p.written) + "': '" + sys::shown(p.value) +
             "' is not among the ptxas options warplab accepts; " + kWhere;
    if (out) out->push_back(std::move(p));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_options(const std::vector<std::string>& options) {
  return parse(options, nullptr);
}

std::vector<std::string> nvrtc_options(const Options& opt) {
  std::vector<std::string> o = {"--gpu-architecture=" + opt.arch};
  if (!is_virtual_arch(opt.arch)) o.push_back("--ptxas-options=-v");  // ptxas runs for sm_XX only
  if (!opt.std.empty()) o.push_back("--std=" + opt.std);
  for (const auto& [name, value] : opt.defines) o.push_back("-D" + name + "=" + value);
  // Both dirs: CUDA 13 keeps <cuda/std/...> (needed by cooperative_groups.h) in cccl/.
  for (const auto& dir : cuda_include_dirs()) o.push_back("-I" + dir.string());
  if (opt.lineinfo) o.push_back("-lineinfo");
  if (opt.max_registers > 0) o.push_back("--maxrregcount=" + std::to_string(opt.max_registers));
  for (const std::string& e : opt.extra) o.push_back(e);
  return o;
}

std::vector<std::string> option_include_dirs(const std::vector<std::string>& options) {
  std::vector<Parsed> parsed;
  std::vector<std::string> dirs;
  if (parse(options, &parsed)) return dirs;
  for (const Parsed& p : parsed)
    if (std::strcmp(p.spec->name, "--include-path") == 0 && !p.value.empty()) dirs.push_back(p.value);
  return dirs;
}

}  // namespace warplab::rtc
