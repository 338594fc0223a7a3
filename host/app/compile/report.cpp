// compile/report.cpp: the summary line, resource table, resource changes, timings and JSON
// of `warplab compile` (report.hpp), and the template kernels a source declares.
#include "app/compile/report.hpp"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <optional>
#include <regex>
#include <sstream>
#include <string_view>

#include "cu/context.hpp"
#include "cu/module.hpp"
#include "lab/module.hpp"
#include "sys/regex_span.hpp"
#include "sys/text.hpp"

namespace warplab::app {
namespace {

// "48 KiB" when exact, else bytes: shared memory sizes read best that way. "?": unknown.
std::string human_bytes(std::optional<long> b) {
  if (!b) return "?";
  if (*b >= 1024 && *b % 1024 == 0) return std::to_string(*b / 1024) + " KiB";
  return std::to_string(*b) + " B";
}

std::string ms(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(v < 10 ? 1 : 0) << v;
  return o.str();
}

template <class T>
std::string num(std::optional<T> v) {
  return v ? std::to_string(*v) : "?";
}

template <class T>
nlohmann::json opt_json(std::optional<T> v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// The largest block kernel k can be launched with on `limits`: its __launch_bounds__ and
// what its registers allow (lab/module.hpp), as k.max_threads says; unknown without the
// limits or the kernel's register count.
std::optional<int> max_threads(const rtc::CompileResult& r, const rtc::KernelResources& k,
                               const cu::DeviceLimits* limits) {
  if (!limits || !k.registers || rtc::is_virtual_arch(r.arch)) return std::nullopt;
  const cu::KernelLimits kl{static_cast<int>(*k.registers), static_cast<int>(k.shared_bytes.value_or(0)), 0,
                            std::max(1, static_cast<int>(k.barriers.value_or(1)))};
  const int cap = lab::compiled_max_threads(r, k.mangled, kl, *limits);
  return cap > 0 ? std::optional<int>(cap) : std::nullopt;
}

// The __launch_bounds__ cap the CUBIN records (.maxntid / .reqntid), null when none.
nlohmann::json declared_max_threads(const std::vector<rtc::ElfKernel>& elf, const std::string& name) {
  const rtc::ElfKernel* k = rtc::find_kernel(elf, name);
  if (!k) return nullptr;
  for (const auto& dims : {k->max_threads, k->reqntid})
    if (dims[0]) return static_cast<long>(dims[0]) * std::max(1u, dims[1]) * std::max(1u, dims[2]);
  return nullptr;
}

}  // namespace

// "k.cu: 1 kernel for sm_90 (NVRTC 13.0, 80 ms)", on `os`.
void print_summary(std::ostream& os, const std::string& file, const rtc::CompileResult& r) {
  std::ostringstream t;
  t << std::fixed << std::setprecision(0) << r.compile_ms;
  os << file << ": " << sys::plural(r.kernels.size(), "kernel") << " for " << r.arch << " (NVRTC "
     << r.nvrtc_version << ", " << t.str() << " ms" << (r.from_cache ? ", from the cache" : "")
     << (rtc::is_virtual_arch(r.arch) ? ", PTX only" : "") << ")\n";
}

// One row per kernel: signature (demangled when C++, read when extern "C"), then its resources
// (rtc/resources.hpp).
void print_table(std::ostream& os, const rtc::CompileResult& r, const cu::DeviceLimits* limits) {
  std::vector<std::string> names;
  std::size_t width = 6;
  for (const rtc::KernelResources& k : r.kernels) {
    const auto sig = r.signature(k.mangled);
    names.push_back(sig ? sig->to_string() : k.mangled);
    width = std::max(width, names.back().size());
  }
  os << std::left << std::setw(static_cast<int>(width)) << "kernel" << std::right << std::setw(6) << "regs"
     << std::setw(10) << "shared" << std::setw(10) << "const" << std::setw(10) << "stack" << std::setw(14)
     << "spill st/ld" << std::setw(10) << "barriers" << std::setw(13) << "max threads"
     << "\n";
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    const rtc::KernelResources& k = r.kernels[i];
    os << std::left << std::setw(static_cast<int>(width)) << names[i] << std::right << std::setw(6)
       << num(k.registers) << std::setw(10) << human_bytes(k.shared_bytes) << std::setw(10)
       << human_bytes(k.const_bytes) << std::setw(10) << human_bytes(k.stack_bytes) << std::setw(14)
       << (num(k.spill_store_bytes) + "/" + num(k.spill_load_bytes)) << std::setw(10) << num(k.barriers)
       << std::setw(13) << num(max_threads(r, k, limits)) << "\n";
  }
  // One line per reason a number above is "?", or where the CUBIN and ptxas disagree.
  for (const std::string& n : r.resource_notes) os << "note: " << n << "\n";
}

// "regs 32→40, shared 1 KiB→2 KiB": what moved, in the table's order; "" when nothing did.
std::string resource_changes(const rtc::KernelResources& a, const rtc::KernelResources& b) {
  std::string out;
  auto add = [&](const char* name, const std::string& x, const std::string& y) {
    if (x != y) out += (out.empty() ? "" : ", ") + std::string(name) + " " + x + "\u2192" + y;
  };
  add("regs", num(a.registers), num(b.registers));
  add("shared", human_bytes(a.shared_bytes), human_bytes(b.shared_bytes));
  add("const", human_bytes(a.const_bytes), human_bytes(b.const_bytes));
  add("stack", human_bytes(a.stack_bytes), human_bytes(b.stack_bytes));
  add("spill st/ld", num(a.spill_store_bytes) + "/" + num(a.spill_load_bytes),
      num(b.spill_store_bytes) + "/" + num(b.spill_load_bytes));
  add("barriers", num(a.barriers), num(b.barriers));
  return out;
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

// The names of `template ... __global__` kernels in the source: what --kernel can
// instantiate when a file holds nothing else.
std::vector<std::string> template_kernels(const std::string& text) {
  // template <...> __global__ [qualifiers] void [__launch_bounds__(...)] NAME(: the
  // parameter list is skipped by hand, to each '>' before a '{' or ';' in turn, and the
  // pattern reads sys::regex_span bytes after it (std::regex recurses per character it
  // consumes: a long parameter list overflowed the stack).
  static const std::regex tail(R"re(\s*__global__\s+(?:[\w:]+(?:\([^)]*\))?\s+)*?void\s+)re"
                               R"re((?:__\w+__\s*(?:\([^)]*\))?\s*)*([A-Za-z_]\w*)\s*\()re");
  std::vector<std::string> out;
  for (std::size_t at = text.find("template"); at != std::string::npos; at = text.find("template", at + 1)) {
    const std::size_t open = text.find_first_not_of(" \t\r\n", at + 8);
    if (open == std::string::npos || text[open] != '<') continue;
    for (std::size_t close = text.find_first_of(">{;", open);
         close != std::string::npos && text[close] == '>'; close = text.find_first_of(">{;", close + 1)) {
      const std::string window = sys::regex_head(std::string_view(text).substr(close + 1));
      std::smatch m;
      if (std::regex_search(window, m, tail, std::regex_constants::match_continuous)) {
        out.push_back(m[1].str());
        at = close + static_cast<std::size_t>(m.length(0));
        break;
      }
    }
  }
  return out;
}

// `compile --json`: one object; unknown numbers are null, never 0 (docs/cli.md).
nlohmann::ordered_json result_json(const std::string& file, const rtc::CompileResult& r,
                                   const cu::DeviceLimits* limits) {
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
    const auto sig = r.signature(k.mangled);
    std::string expression;
    for (const auto& [e, m] : r.lowered)
      if (m == k.mangled) expression = e;
    nlohmann::ordered_json o;
    o["name"] = sig ? sig->name : k.mangled;
    // null: an extern "C" kernel whose parameter types could not be read (rtc/extern_c.hpp).
    o["signature"] = sig ? nlohmann::ordered_json(sig->to_string()) : nlohmann::ordered_json(nullptr);
    o["mangled"] = k.mangled;
    o["expression"] =
        expression.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(expression);
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
    o["max_threads"] = opt_json(max_threads(r, k, limits));
    o["launch_bounds"] = declared_max_threads(elf, k.mangled);
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

}  // namespace warplab::app
