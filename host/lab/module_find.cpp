// module_find.cpp: see module_find.hpp. Names enter the sentences as C strings (up to a
// NUL), as Lua's error formatting prints them.
#include "lab/module_find.hpp"

#include "rtc/signature.hpp"
#include "sys/shown.hpp"

namespace warplab::lab {
namespace {

std::string cstr(const std::string& s) { return s.c_str(); }

}  // namespace

std::string find_entry(const ModuleObj& m, const std::string& name) {
  const std::string lowered = m.result.lowered_name(name);
  if (!lowered.empty()) return lowered;
  std::vector<std::string> hits;
  std::string matched;  // the candidates' signatures, for the ambiguity message
  for (const auto& e : m.result.entries) {
    if (e == name) return e;
    auto s = m.result.signature(e);
    if (s && s->to_string() == name) return e;
    if (s && (s->name == name || s->base == name)) {
      hits.push_back(e);
      matched += (matched.empty() ? "" : ", ") + s->to_string();
    }
  }
  if (hits.size() == 1) return hits[0];
  std::string list;
  for (const auto& n : kernel_names(m.result)) list += (list.empty() ? "" : ", ") + n;
  if (hits.empty())
    throw Error(ErrorKind::bad_input, "module " + cstr(m.spec.source.name) + " has no kernel '" +
                                          sys::shown(cstr(name)) + "' (kernels: " + cstr(list) + ")");
  throw Error(ErrorKind::bad_input, "'" + cstr(name) + "' is ambiguous in module " +
                                        cstr(m.spec.source.name) + ": " + std::to_string(hits.size()) +
                                        " kernels match: " + cstr(matched) +
                                        " (name one of them, with its signature for overloads)");
}

std::vector<std::string> kernel_names(const rtc::CompileResult& r) {
  std::vector<std::string> out;
  for (const auto& e : r.entries) {
    auto s = rtc::demangle(e);
    out.push_back(s ? s->name : e);
  }
  return out;
}

std::vector<std::string> kernel_bases(const rtc::CompileResult& r) {
  std::vector<std::string> out;
  for (const auto& e : r.entries)
    if (auto s = rtc::demangle(e))
      out.push_back(s->base);
    else if (r.extern_c_params(e))  // an extern "C" kernel: its name
      out.push_back(e);
  return out;
}

}  // namespace warplab::lab
