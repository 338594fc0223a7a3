// compile/code.cpp: the SASS listing and the diff of two variants (code.hpp), from the one
// disassembler runner (rtc/sass.hpp) and the one cleaning and diff (rtc/listing.hpp).
#include "app/compile/code.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "app/compile/report.hpp"
#include "rtc/listing.hpp"
#include "rtc/sass.hpp"
#include "rtc/signature.hpp"
#include "sys/text.hpp"

namespace warplab::app {
namespace {

// A kernel as its author wrote it: "k(const float*, int)"; extern "C": its name.
std::string pretty(const std::string& mangled) {
  const auto s = rtc::demangle(mangled);
  return s ? s->to_string() : mangled;
}

// Each kernel's cleaned SASS, by mangled name. Without a disassembler (exit 8), the
// sentence says what works without one.
std::map<std::string, rtc::SassCode> sass_by_name(const rtc::CompileResult& r, const char* what) {
  std::string dump;
  try {
    dump = rtc::disassemble(r.cubin, what);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::tool) throw;
    throw Error(ErrorKind::tool, std::string(e.what()) + (std::string(what) == "--diff"
                                                              ? "; --diff --ptx compares the PTX without it"
                                                              : "; --ptx prints the PTX without it"));
  }
  std::map<std::string, rtc::SassCode> out;
  for (rtc::SassCode& k : rtc::sass_code(dump)) out[k.mangled] = std::move(k);
  return out;
}

// The kernels of a result in the table's order.
std::vector<std::string> kernel_names(const rtc::CompileResult& r) {
  std::vector<std::string> out;
  for (const rtc::KernelResources& k : r.kernels) out.push_back(k.mangled);
  return out;
}

const rtc::KernelResources* resources(const rtc::CompileResult& r, const std::string& mangled) {
  for (const rtc::KernelResources& k : r.kernels)
    if (k.mangled == mangled) return &k;
  return nullptr;
}

}  // namespace

std::string sass_listing(const rtc::CompileResult& r, const char* what) {
  const std::map<std::string, rtc::SassCode> code = sass_by_name(r, what);
  std::string out;
  for (const std::string& name : kernel_names(r)) {
    out += out.empty() ? "" : "\n";
    const auto k = code.find(name);
    if (k == code.end()) {  // a kernel the disassembler did not print
      out += pretty(name) + ": no SASS in the disassembly\n";
      continue;
    }
    out += pretty(name) + ": " + sys::plural(static_cast<long long>(k->second.insts.size()), "instruction") +
           " for " + r.arch + "\n" + k->second.text();
  }
  return out;
}

bool print_code_diff(std::ostream& out, const CodeSide& a, const CodeSide& b, bool ptx, int max_lines) {
  const char* what = ptx ? "PTX" : "SASS";
  std::map<std::string, rtc::Lines> code_a, code_b;
  std::map<std::string, std::size_t> count_a, count_b;  // SASS instructions
  if (ptx) {
    code_a = rtc::ptx_kernels(a.result->ptx);
    code_b = rtc::ptx_kernels(b.result->ptx);
  } else {
    for (const auto& [name, k] : sass_by_name(*a.result, "--diff"))
      code_a[name] = k.lines(), count_a[name] = k.insts.size();
    for (const auto& [name, k] : sass_by_name(*b.result, "--diff"))
      code_b[name] = k.lines(), count_b[name] = k.insts.size();
  }
  // Pairs by name; one kernel left on each side is the same kernel renamed (scan_v1, scan_v2).
  const std::vector<std::string> names_a = kernel_names(*a.result), names_b = kernel_names(*b.result);
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<std::string> only_a, only_b;
  for (const std::string& n : names_a) {
    if (std::find(names_b.begin(), names_b.end(), n) != names_b.end())
      pairs.emplace_back(n, n);
    else
      only_a.push_back(n);
  }
  for (const std::string& n : names_b)
    if (std::find(names_a.begin(), names_a.end(), n) == names_a.end()) only_b.push_back(n);
  if (only_a.size() == 1 && only_b.size() == 1) {
    pairs.emplace_back(only_a[0], only_b[0]);
    only_a.clear(), only_b.clear();
  }
  out << "--- " << a.label << " (" << a.result->arch << ")\n+++ " << b.label << " (" << b.result->arch
      << ")\n";
  bool differ = !only_a.empty() || !only_b.empty();
  for (const auto& [na, nb] : pairs) {
    const std::string name = na == nb ? pretty(na) : pretty(na) + " \u2192 " + pretty(nb);
    const rtc::Lines& la = code_a[na];
    const rtc::Lines& lb = code_b[nb];
    const rtc::KernelResources* ra = resources(*a.result, na);
    const rtc::KernelResources* rb = resources(*b.result, nb);
    const std::string moved = ra && rb ? resource_changes(*ra, *rb) : "";
    std::string line;
    if (la == lb) {
      line = std::string("the same ") + what;
    } else if (rtc::same_code(la, lb)) {
      line = std::string("the same ") + what + " but for register numbers and labels";
    } else {
      line = std::string(what) + " changed";
      if (!ptx)
        line += ", " + std::to_string(count_a[na]) + "\u2192" + std::to_string(count_b[nb]) + " instructions";
      differ = true;
    }
    out << name << ": " << line << (moved.empty() ? "" : ", " + moved) << "\n";
    differ = differ || !moved.empty();
    if (!rtc::same_code(la, lb))
      out << rtc::line_diff(la, lb, 2, max_lines, "(--diff-lines 0 shows them all)");
  }
  for (const std::string& n : only_a) out << pretty(n) << ": only in " << a.label << "\n";
  for (const std::string& n : only_b) out << pretty(n) << ": only in " << b.label << "\n";
  return differ;
}

}  // namespace warplab::app
