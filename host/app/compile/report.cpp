// compile/report.cpp: the resource table and the JSON of `warplab compile` (report.hpp),
// and the template kernels a source declares.
#include "app/compile/report.hpp"

#include <algorithm>
#include <iomanip>
#include <optional>
#include <regex>
#include <string_view>

#include "lab/module.hpp"
#include "sys/regex_span.hpp"

namespace warplab::app {
namespace {

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

// One row per kernel: signature (demangled when C++), then its resources (rtc/resources.hpp).
void print_table(std::ostream& os, const rtc::CompileResult& r, const cu::DeviceLimits* limits) {
  std::vector<std::string> names;
  std::size_t width = 6;
  for (const rtc::KernelResources& k : r.kernels) {
    const auto sig = rtc::demangle(k.mangled);
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
    const auto sig = rtc::demangle(k.mangled);
    std::string expression;
    for (const auto& [e, m] : r.lowered)
      if (m == k.mangled) expression = e;
    nlohmann::ordered_json o;
    o["name"] = sig ? sig->name : k.mangled;
    // extern "C" names carry no parameter types: the signature is unknown.
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
