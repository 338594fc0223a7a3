// compile.cpp: the NVRTC program's life: includes resolved by warplab and handed over as
// named headers, the options checked and built (rtc/nvrtc_options.hpp), the log turned
// into diagnostics and resources, then PTX, cubin, entries and lowered names.
#include "rtc/compile.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>

#include "rtc/cache.hpp"
#include "rtc/nvrtc_options.hpp"
#include "rtc/outputs.hpp"
#include "rtc/pch.hpp"
#include "rtc/program.hpp"
#include "rtc/refused_text.hpp"
#include "rtc/times.hpp"
#include "rtc/toolkit.hpp"
#include "sys/shown.hpp"
#include "sys/text.hpp"

namespace warplab::rtc {
namespace {

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// NVRTC's architecture numbers: 75, 80, ..., 90, 100, ...
std::vector<int> nvrtc_arch_numbers() {
  int n = 0;
  WL_RTC_CHECK(nvrtcGetNumSupportedArchs(&n));
  std::vector<int> archs(static_cast<std::size_t>(n));
  WL_RTC_CHECK(nvrtcGetSupportedArchs(archs.data()));
  return archs;
}

// Whether NVRTC takes --gpu-architecture=`arch` (sm_90a, sm_100f): an empty program
// compiled once per process and arch (~15 ms when accepted, at once when not).
bool nvrtc_accepts(const std::string& arch) {
  static std::mutex m;
  static std::map<std::string, bool> known;
  const std::lock_guard<std::mutex> lock(m);
  if (auto it = known.find(arch); it != known.end()) return it->second;
  Program p;
  bool ok = false;
  if (create_program(p, "", "probe.cu") == NVRTC_SUCCESS) {
    const std::string opt = "--gpu-architecture=" + arch;
    const char* opts[] = {opt.c_str()};
    ok = compile_program(p.get(), 1, opts) == NVRTC_SUCCESS;
  }
  return known[arch] = ok;
}

// sm_XX or compute_XX with an optional a/f suffix, no leading zero (NVRTC refuses sm_090);
// `virtual_ok` admits compute_XX: PTX, no cubin, no resources (Options::allow_virtual).
void check_arch(const std::string& arch, bool virtual_ok) {
  static const std::regex shape(R"re(^(sm|compute)_([1-9]\d{1,2})([af]?)$)re");
  std::smatch m;
  bool ok = std::regex_match(arch, m, shape) && (virtual_ok || m[1] == "sm");
  if (ok) {
    const std::vector<int> numbers = nvrtc_arch_numbers();
    ok = std::find(numbers.begin(), numbers.end(), std::stoi(m[2].str())) != numbers.end() &&
         (m[3].length() == 0 || nvrtc_accepts(arch));
  }
  if (ok) return;
  throw Error("unsupported architecture '" + sys::shown(arch) + "': NVRTC " + nvrtc_version() +
              " compiles for " + sys::join(supported_archs(), ", ") +
              (virtual_ok ? " (or compute_XX for PTX only)" : " (a real sm_XX is needed for the cubin)"));
}

// NVRTC 12.9 and later answer repeated compiles from their own cache, and then their log
// has no ptxas report. warplab has its own cache, so it turns NVRTC's off where the option
// exists (asked once per process: an unknown option is NVRTC_ERROR_INVALID_OPTION).
bool nvrtc_has_no_cache() {
  static const bool has = [] {
    Program p;
    if (create_program(p, "", "probe.cu") != NVRTC_SUCCESS) return false;
    const char* opt[] = {"--no-cache", "--gpu-architecture=compute_75"};
    return compile_program(p.get(), 2, opt) != NVRTC_ERROR_INVALID_OPTION;
  }();
  return has;
}

std::string get_log(nvrtcProgram p) {
  std::size_t n = 0;
  WL_RTC_CHECK(nvrtcGetProgramLogSize(p, &n));
  std::string log(n, '\0');
  WL_RTC_CHECK(nvrtcGetProgramLog(p, log.data()));
  while (!log.empty() && log.back() == '\0') log.pop_back();
  // NVRTC 13 separates the ptxas part of the log with a NUL byte: keep what follows it.
  for (char& c : log)
    if (c == '\0') c = '\n';
  return log;
}

// "cannot open source file" gains where warplab looked.
// A standard header (<cassert>, <vector>) gains what to use instead (includes.hpp).
void explain_missing(std::vector<Diagnostic>& diags, const ResolvedIncludes& inc,
                     const std::map<std::string, LogFile>& files,
                     const std::vector<std::filesystem::path>& cuda_dirs) {
  const bool have_cuda_dirs = !cuda_dirs.empty();
  for (Diagnostic& d : diags) {
    if (d.message.rfind("cannot open source file", 0) != 0) continue;
    for (const MissingInclude& m : inc.missing) {
      const auto f = files.find(m.file);
      const std::string shown = f == files.end() ? m.file : f->second.display;
      if (shown != d.file || d.message.find('"' + m.spelled + '"') == std::string::npos) continue;
      // NVRTC then tried its own -I dirs, which are CUDA's, when there are any.
      std::vector<std::string> where = m.searched;
      where.push_back(have_cuda_dirs ? "the CUDA include dirs"
                                     : "no CUDA include dir: none found, set CUDA_HOME");
      d.message += " (searched " + sys::join(where, ", ") + ")";
      if (std::string note = m.angle ? standard_header_note(m.spelled, cuda_dirs) : ""; !note.empty())
        d.notes.push_back(std::move(note));
      break;
    }
  }
}

// A header found but refused (over 64 MiB, unreadable, nested too deep): reported at its
// #include line. Handing NVRTC its path instead would let NVRTC open the file itself.
bool unreadable_headers(const ResolvedIncludes& inc, const std::string& main_name, int main_offset,
                        std::vector<Diagnostic>& out) {
  bool any = false;
  for (const MissingInclude& m : inc.missing) {
    if (m.refused.empty()) continue;
    Diagnostic d;
    d.file = m.file == main_name ? main_name : display_path(m.file);
    d.line = m.line + (m.file == main_name ? main_offset : 0);
    d.col = 1;
    d.message = m.refused;
    out.push_back(std::move(d));
    any = true;
  }
  return any;
}

// Should NVRTC ever fail with nothing in its log, the user still gets a sentence.
Diagnostic silent_failure(nvrtcResult rc) {
  Diagnostic d;
  d.message = std::string("NVRTC failed (") + nvrtcGetErrorString(rc) +
              ") without an error message; its log is empty of errors";
  return d;
}

// The cache key: every byte NVRTC will see and everything that shapes its output.
std::string cache_key(const Source& named, const Options& opt, const CompileResult& r,
                      const ResolvedIncludes& inc) {
  KeyBuilder k;
  k.add("warplab-cache-v5").add(r.nvrtc_version).add(r.arch);
  for (const std::string& o : r.options) k.add(o);
  k.add("names");
  for (const std::string& e : opt.name_expressions) k.add(e);
  k.add(named.name).add(std::to_string(named.line_offset)).add(inc.main_text);
  for (std::size_t i = 0; i < inc.header_names.size(); ++i)
    k.add(inc.header_names[i]).add(inc.header_texts[i]);
  return k.hex();
}

}  // namespace

void check_define_name(const std::string& name) {
  // NAME or NAME(a, b, ...): read without std::regex, whose matcher recurses once per
  // character (a 30000-character name overflowed the stack).
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::size_t end = 0;
  while (end < name.size() && word(name[end])) ++end;
  bool ok = end > 0 && !std::isdigit(static_cast<unsigned char>(name[0]));
  if (ok && end < name.size())  // a parameter list: letters, digits, _, ',', ' ', '.' in ( )
    ok = name[end] == '(' && name.back() == ')' && name.size() >= end + 2 &&
         name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_, .",
                                end + 1) == name.size() - 1;
  if (name.empty()) throw Error("a macro definition needs a name: -D NAME or -D NAME=VALUE");
  if (!ok)
    throw Error("'" + name + "' is not a macro name: letters, digits and _, not starting with a digit");
}

std::pair<std::string, std::string> parse_define(const std::string& spec) {
  const std::size_t eq = spec.find('=');
  std::pair<std::string, std::string> d{spec.substr(0, eq),
                                        eq == std::string::npos ? "1" : spec.substr(eq + 1)};
  check_define_name(d.first);
  return d;
}

std::vector<std::string> compile_options(const Options& opt) {
  std::vector<std::string> o = nvrtc_options(opt);
  if (nvrtc_has_no_cache()) o.insert(o.begin() + 1, "--no-cache");  // as compile() does on a miss
  return o;
}

std::vector<std::filesystem::path> include_search_dirs(const Options& opt) {
  // The user's dirs first, so a project can shadow a warplab header on purpose.
  std::vector<std::filesystem::path> dirs;
  // -I among the extra options too: what NVRTC would find there, warplab finds and tracks.
  std::vector<std::string> wanted = opt.include_dirs;
  for (const std::string& d : option_include_dirs(opt.extra)) wanted.push_back(d);
  for (const std::string& d : wanted) {
    std::error_code ec;  // "" and a relative folder when the current one is gone
    dirs.push_back(std::filesystem::absolute(d, ec));
    if (ec || d.empty())
      throw Error("cannot use the include folder '" + d +
                  "': " + (d.empty() ? "it is an empty string" : ec.message()));
  }
  if (auto w = warplab_include_dir(); !w.empty()) dirs.push_back(w);
  return dirs;
}

CompileResult compile(const Source& src, const Options& opt, Cache* cache) {
  const auto t0 = std::chrono::steady_clock::now();
  if (opt.arch.empty()) throw Error("no target architecture given (e.g. sm_90)");
  for (const auto& d : opt.defines) {
    check_define_name(d.first);
    // NVRTC would refuse it with a remark only, and fail "without an error message".
    if (d.second.find_first_of("\r\n") != std::string::npos)
      throw Error("the value of the macro " + d.first + " holds a line break; a macro's value is one line");
  }
  check_arch(opt.arch, opt.allow_virtual);
  if (auto bad = check_options(opt.extra)) throw Error(*bad);
  CompileResult r;
  r.arch = opt.arch;
  r.nvrtc_version = nvrtc_version();

  Source named = src;
  if (named.name.empty()) named.name = "source.cu";  // NVRTC needs some name for the log
  const std::string& name = named.name;
  const ResolvedIncludes inc = resolve_includes(named, include_search_dirs(opt));
  r.dependencies = inc.deps;
  const auto t_includes = Clock::now();
  r.times.includes = ms_between(t0, t_includes);

  std::vector<const char*> hdr_texts, hdr_names;
  for (std::size_t i = 0; i < inc.header_names.size(); ++i) {
    hdr_texts.push_back(inc.header_texts[i].c_str());
    hdr_names.push_back(inc.header_names[i].c_str());
  }
  r.options = nvrtc_options(opt);
  bool cut = unreadable_headers(inc, name, named.line_offset, r.diagnostics);
  cut = refused_text(inc.main_text, name, named.line_offset, r.diagnostics) || cut;
  for (std::size_t i = 0; i < inc.header_names.size(); ++i)
    cut = refused_text(inc.header_texts[i], inc.deps[i].display, 0, r.diagnostics) || cut;
  if (cut) {
    r.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;  // ok = false: compiled nothing, said where
  }
  if (cache) {
    r.cache_key = cache_key(named, opt, r, inc);
    if (std::optional<CompileResult> hit = cache->load(r.cache_key)) {
      hit->from_cache = true;
      hit->cache_key = r.cache_key;
      hit->times = {};
      hit->times.includes = r.times.includes;
      hit->times.cache = ms_between(t_includes, Clock::now());
      hit->compile_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      return std::move(*hit);
    }
  }
  const auto t_cache = Clock::now();
  r.times.cache = ms_between(t_includes, t_cache);

  // --no-cache is asked for only here, on a miss: it does not change the output, so the
  // cache key leaves it out, and a cache hit never pays for the probe (about 25 ms).
  if (nvrtc_has_no_cache()) r.options.insert(r.options.begin() + 1, "--no-cache");
  // Headers kept warm (pch.hpp) and NVRTC's phase times change nothing NVRTC makes, so
  // they are added here, outside r.options and the cache key.
  std::vector<std::string> extra = pch_options(inc, r.options, r.pch_note);
  r.pch = !extra.empty();
  if (phase_times()) extra.push_back("--time=-");
  Program prog;
  nvrtcResult rc = NVRTC_SUCCESS;
  // One NVRTC program with `more` options: its result code and log in rc and r.log.
  auto run_nvrtc = [&](const std::vector<std::string>& more) {
    WL_RTC_CHECK(create_program(prog, inc.main_text.c_str(), name.c_str(), static_cast<int>(hdr_texts.size()),
                                hdr_texts.data(), hdr_names.data()));
    const nvrtcProgram raw = prog.get();
    for (const std::string& e : opt.name_expressions) WL_RTC_CHECK(nvrtcAddNameExpression(raw, e.c_str()));
    std::vector<const char*> argv;
    for (const std::string& o : r.options) argv.push_back(o.c_str());
    for (const std::string& o : more) argv.push_back(o.c_str());
    const auto t = Clock::now();
    rc = compile_program(raw, static_cast<int>(argv.size()), argv.data());
    r.times.nvrtc = ms_between(t, Clock::now());
    // A bad user option (-std=c++99, a stray extra) is the source's problem, like a syntax
    // error: a value the watcher can show. Anything else is NVRTC itself failing.
    if (rc != NVRTC_SUCCESS && rc != NVRTC_ERROR_COMPILATION && rc != NVRTC_ERROR_INVALID_OPTION)
      throw Error("NVRTC failed while compiling " + name + ": " + nvrtcGetErrorString(rc), rc);
    r.log = get_log(raw);
    if (phase_times()) take_phase_times(r.log, r.times);
  };
  run_nvrtc(extra);
  if (phase_times() && rc == NVRTC_ERROR_INVALID_OPTION) {  // an NVRTC without --time
    extra.pop_back();
    run_nvrtc(extra);
  }
  // Should NVRTC refuse the PCH after all, its warning must not reach the user: the
  // compile runs again without it, and gives what it always gives.
  if (r.pch && pch_refused(r.log)) {
    r.pch = false;
    r.pch_note = "NVRTC refused the kept headers";
    extra.erase(extra.begin(), extra.begin() + 3);
    run_nvrtc(extra);
  }
  const nvrtcProgram raw = prog.get();
  r.ok = rc == NVRTC_SUCCESS;

  // NVRTC names the main file as we called it and headers by their include names.
  std::map<std::string, LogFile> files;
  files[name] = {name, src.text, src.line_offset};
  for (std::size_t i = 0; i < inc.header_names.size(); ++i)
    files[inc.header_names[i]] = {inc.deps[i].display, inc.header_texts[i], 0};
  r.diagnostics = parse_log(r.log, files, opt.name_expressions);
  explain_missing(r.diagnostics, inc, files, cuda_include_dirs());
  r.kernels = parse_ptxas_report(r.log);
  if (!r.ok && r.errors() == 0) r.diagnostics.push_back(silent_failure(rc));
  const auto t_outputs = Clock::now();
  if (r.ok) {
    collect_outputs(raw, opt, r);
    read_extern_c(inc, name, opt, r);  // extern "C" kernels' parameter types (extern_c.hpp)
  }
  const auto t1 = std::chrono::steady_clock::now();
  r.times.outputs = ms_between(t_outputs, t1);
  // An entry with an unknown number would outlive the reason it is unknown: not stored.
  const bool complete =
      std::all_of(r.kernels.begin(), r.kernels.end(), [](const KernelResources& k) { return k.complete(); });
  if (cache && r.ok && complete) cache->store(r.cache_key, r);
  r.times.cache += ms_between(t1, Clock::now());
  r.compile_ms = ms_between(t0, Clock::now());
  return r;
}

const KernelResources* CompileResult::resources(const std::string& mangled) const {
  for (const KernelResources& k : kernels)
    if (k.mangled == mangled) return &k;
  return nullptr;
}

std::optional<Signature> CompileResult::signature(const std::string& entry) const {
  if (auto s = demangle(entry)) return s;
  const ExternCParams* e = extern_c_params(entry);
  if (!e || !e->known) return std::nullopt;
  try {
    return parse_signature(entry, e->types);
  } catch (const Error&) {  // a cache entry written by hand: types unknown, as before
    return std::nullopt;
  }
}

const ExternCParams* CompileResult::extern_c_params(const std::string& entry) const {
  for (const ExternCParams& e : extern_c)
    if (e.entry == entry) return &e;
  return nullptr;
}

std::string CompileResult::lowered_name(const std::string& expression) const {
  for (const auto& [e, m] : lowered)
    if (e == expression) return m;
  return {};
}

std::string format_diagnostics(const CompileResult& r, std::size_t max_shown, bool color) {
  return format_diagnostics(r.diagnostics, max_shown, color);
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  WL_RTC_CHECK(nvrtcVersion(&major, &minor));
  return std::to_string(major) + "." + std::to_string(minor);
}

bool is_virtual_arch(const std::string& arch) { return arch.rfind("compute_", 0) == 0; }

// The variants by NVIDIA's rule ("a" from sm_90, "f" from sm_100 with NVRTC 12.9+), not
// by 24 compiles (0.3 s and more for every listing); a named variant is still asked of
// NVRTC (check_arch); the unit test SupportedArchsAreWhatNvrtcAccepts holds the rule.
std::vector<std::string> supported_archs() {
  static const std::vector<std::string> all = [] {
    int major = 0, minor = 0;
    WL_RTC_CHECK(nvrtcVersion(&major, &minor));
    const bool family = major * 10 + minor >= 129;
    std::vector<std::string> out;
    for (int a : nvrtc_arch_numbers()) {
      const std::string base = "sm_" + std::to_string(a);
      out.push_back(base);
      if (a >= 90) out.push_back(base + "a");
      if (a >= 100 && family) out.push_back(base + "f");
    }
    return out;
  }();
  return all;
}

}  // namespace warplab::rtc
