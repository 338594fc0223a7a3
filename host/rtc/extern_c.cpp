// extern_c.cpp: see extern_c.hpp. The source's plain words first (free); NVRTC once for the
// kernels they leave open (one front-end pass over the same source and headers, on a cache
// miss only: the answer is cached with the compile); then the PTX's count and sizes.
#include "rtc/extern_c.hpp"

#include <map>
#include <optional>

#include "rtc/compile.hpp"
#include "rtc/program.hpp"
#include "rtc/source_params.hpp"

namespace warplab::rtc {
namespace {

// The template whose instantiations NVRTC names: appended after the source, so no line of
// the user's moves, and compiled front end only (nothing of it reaches any code).
constexpr const char* kProbe = "\n\ntemplate <class warplab_fn_> __global__ void __warplab_params_of() {}\n";
std::string probe_expression(const std::string& name) {
  return "__warplab_params_of<decltype(&" + name + ")>";
}

// The parameter list inside the demangled "void __warplab_params_of<void (*)(float*, int)>()":
// "float*, int"; nullopt when the text has another shape.
std::optional<std::string> probe_params(const std::string& demangled) {
  const std::size_t fn = demangled.find("(*)(");
  if (fn == std::string::npos) return std::nullopt;
  const std::size_t open = fn + 3;
  int depth = 0;
  for (std::size_t i = open; i < demangled.size(); ++i) {
    if (demangled[i] == '(')
      ++depth;
    else if (demangled[i] == ')' && --depth == 0)
      return demangled.substr(open + 1, i - open - 1);
  }
  return std::nullopt;
}

// NVRTC's answer for each of `names` (the demangled parameter list), asked in one program;
// none when the program did not compile (a kernel declared inside a namespace is not found
// by its bare name, and one such name fails them all).
std::map<std::string, std::string> ask_nvrtc(const std::vector<std::string>& names,
                                             const ResolvedIncludes& inc, const std::string& main_name,
                                             const std::vector<std::string>& options) {
  const std::string text = inc.main_text + kProbe;
  std::vector<const char*> texts, headers;
  for (std::size_t i = 0; i < inc.header_names.size(); ++i) {
    texts.push_back(inc.header_texts[i].c_str());
    headers.push_back(inc.header_names[i].c_str());
  }
  std::map<std::string, std::string> out;
  for (const bool syntax_only : {true, false}) {
    Program p;
    if (create_program(p, text.c_str(), main_name.c_str(), static_cast<int>(texts.size()), texts.data(),
                       headers.data()) != NVRTC_SUCCESS)
      return out;
    for (const std::string& n : names)
      if (nvrtcAddNameExpression(p.get(), probe_expression(n).c_str()) != NVRTC_SUCCESS) return out;
    std::vector<const char*> argv;
    for (const std::string& o : options) argv.push_back(o.c_str());
    if (syntax_only) argv.push_back("-fdevice-syntax-only");  // the front end alone: no code made
    const nvrtcResult rc = compile_program(p.get(), static_cast<int>(argv.size()), argv.data());
    if (rc == NVRTC_ERROR_INVALID_OPTION && syntax_only) continue;  // an NVRTC without the option
    if (rc != NVRTC_SUCCESS) return out;
    for (const std::string& n : names) {
      const char* lowered = nullptr;  // owned by the program: read before it goes
      if (nvrtcGetLoweredName(p.get(), probe_expression(n).c_str(), &lowered) != NVRTC_SUCCESS || !lowered)
        continue;
      if (const auto sig = demangle(lowered))
        if (auto params = probe_params(sig->demangled)) out[n] = std::move(*params);
    }
    return out;
  }
  return out;
}

// Why `types` cannot be the parameters of PTX entry `e`, or nullopt: another count, or a
// known size that differs from the PTX's.
std::optional<std::string> disagreement(const std::vector<ParamType>& types, const PtxEntry& e) {
  if (types.size() != e.params.size())
    return "the compiler gives " + std::to_string(types.size()) + " parameters and the PTX " +
           std::to_string(e.params.size());
  for (std::size_t i = 0; i < types.size(); ++i)
    if (types[i].size > 0 && static_cast<std::size_t>(types[i].size) != e.params[i].bytes)
      return "parameter " + std::to_string(i + 1) + " ('" + types[i].spelling + "') is " +
             std::to_string(types[i].size) + " bytes and the PTX's " + std::to_string(e.params[i].bytes);
  return std::nullopt;
}

std::string joined(const std::vector<ParamType>& types) {
  std::string out;
  for (const ParamType& t : types) out += (out.empty() ? "" : ", ") + t.spelling;
  return out;
}

// NVRTC's demangled list read as parameter types: why not, or nullopt with `out` filled.
std::optional<std::string> read_answer(const std::string& list, std::vector<ParamType>& out) {
  if (list.find_first_not_of(' ') == std::string::npos || list == "void") return std::nullopt;
  const std::vector<std::string> parts = detail::split_top(list);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    ParamType t;
    if (detail::parse_type(parts[i], false, t)) {
      const std::size_t b = parts[i].find_first_not_of(' ');
      return "parameter " + std::to_string(i + 1) + "'s type, '" +
             (b == std::string::npos ? std::string() : parts[i].substr(b)) + "', is not one warplab can pass";
    }
    out.push_back(std::move(t));
  }
  return std::nullopt;
}

bool defines_macros(const std::vector<std::string>& extra) {
  for (const std::string& o : extra)
    for (const char* p : {"-D", "-U", "--define-macro", "--undefine-macro"})
      if (o.rfind(p, 0) == 0) return true;
  return false;
}

}  // namespace

void read_extern_c(const ResolvedIncludes& inc, const std::string& main_name, const Options& opt,
                   CompileResult& r) {
  std::vector<std::string> names;
  for (const std::string& e : r.entries)
    if (e.rfind("_Z", 0) != 0) names.push_back(e);
  if (names.empty()) return;
  std::vector<std::string> codes{code_only(inc.main_text)};
  for (const std::string& h : inc.header_texts) codes.push_back(code_only(h));
  // Macros given among the extra options are not read here: with any, NVRTC tells.
  const bool plain_ok = !defines_macros(opt.extra);
  const PlainWords words(codes, opt.defines);
  const std::vector<PtxEntry> ptx = ptx_entry_list(r.ptx);
  auto entry_of = [&](const std::string& name) -> const PtxEntry* {
    for (const PtxEntry& e : ptx)
      if (e.name == name) return &e;
    return nullptr;
  };
  std::vector<std::string> ask;
  for (const std::string& name : names) {
    ExternCParams e;
    e.entry = name;
    e.written = written_params(codes, name).value_or("");
    const PtxEntry* pe = entry_of(name);
    if (!pe) {
      e.why = "the PTX has no entry of that name";
    } else if (const auto t = plain_ok && !e.written.empty() ? words.types(e.written) : std::nullopt;
               t && !disagreement(*t, *pe)) {
      e.known = true;
      e.types = joined(*t);
    } else {
      ask.push_back(name);
    }
    r.extern_c.push_back(std::move(e));
  }
  if (ask.empty()) return;
  std::map<std::string, std::string> answers = ask_nvrtc(ask, inc, main_name, r.options);
  // One kernel NVRTC cannot name fails the whole program: then each is asked alone (a few).
  if (answers.empty() && ask.size() > 1)
    for (std::size_t i = 0; i < ask.size() && i < 8; ++i)
      for (auto& [n, list] : ask_nvrtc({ask[i]}, inc, main_name, r.options)) answers[n] = std::move(list);
  for (ExternCParams& e : r.extern_c) {
    if (e.known || !e.why.empty()) continue;
    const auto a = answers.find(e.entry);
    if (a == answers.end()) {
      e.why = "NVRTC could not tell them";
      continue;
    }
    std::vector<ParamType> types;
    if (auto why = read_answer(a->second, types)) {
      e.why = *why;
    } else if (auto differ = disagreement(types, *entry_of(e.entry))) {
      e.why = *differ;
    } else {
      e.known = true;
      e.types = joined(types);
    }
  }
}

}  // namespace warplab::rtc
