// cache_json.cpp: see cache_json.hpp. Field names follow the C++ members.
#include "rtc/cache_json.hpp"

#include <cstdint>
#include <limits>

#include "rtc/compile.hpp"
#include "rtc/error.hpp"

namespace warplab::rtc {
namespace {

// Unknown numbers are null in the file, never 0.
template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
// An integer field, strictly: nlohmann's get<int>() of a float (1e42) casts it, which is
// undefined behaviour past the type's range (a fuzz finding). Anything else throws: the
// caller treats the entry as corrupt.
template <class T>
T get_int(const nlohmann::json& j) {
  if (!j.is_number_integer()) throw Error("cache entry: an integer field holds something else");
  if (j.is_number_unsigned()
          ? j.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<T>::max())
          : j.get<std::int64_t>() < std::numeric_limits<T>::min() ||
                j.get<std::int64_t>() > std::numeric_limits<T>::max())
    throw Error("cache entry: an integer field is out of range");
  return static_cast<T>(j.is_number_unsigned() ? static_cast<std::int64_t>(j.get<std::uint64_t>())
                                               : j.get<std::int64_t>());
}

template <class T>
void get_opt(const nlohmann::json& j, std::optional<T>& v) {
  if (j.is_null())
    v.reset();
  else
    v = get_int<T>(j);
}

}  // namespace

nlohmann::json to_cache_json(const CompileResult& r) {
  nlohmann::json j;
  j["ok"] = r.ok;
  j["log"] = r.log;
  j["ptx"] = r.ptx;
  j["arch"] = r.arch;
  j["nvrtc_version"] = r.nvrtc_version;
  j["entries"] = r.entries;
  j["options"] = r.options;
  j["lowered"] = nlohmann::json::array();
  for (const auto& [e, m] : r.lowered) j["lowered"].push_back({e, m});
  j["extern_c"] = nlohmann::json::array();
  for (const auto& e : r.extern_c)
    j["extern_c"].push_back(
        {{"entry", e.entry}, {"written", e.written}, {"known", e.known}, {"types", e.types}, {"why", e.why}});
  j["kernels"] = nlohmann::json::array();
  for (const auto& k : r.kernels)
    j["kernels"].push_back({{"mangled", k.mangled},
                            {"registers", opt(k.registers)},
                            {"barriers", opt(k.barriers)},
                            {"shared", opt(k.shared_bytes)},
                            {"const", opt(k.const_bytes)},
                            {"stack", opt(k.stack_bytes)},
                            {"spill_store", opt(k.spill_store_bytes)},
                            {"spill_load", opt(k.spill_load_bytes)}});
  j["resource_notes"] = r.resource_notes;
  j["dependencies"] = nlohmann::json::array();
  for (const auto& d : r.dependencies)
    j["dependencies"].push_back({{"path", d.path.string()}, {"display", d.display}, {"hash", d.hash}});
  j["diagnostics"] = nlohmann::json::array();
  for (const auto& d : r.diagnostics)
    j["diagnostics"].push_back({{"file", d.file},
                                {"line", d.line},
                                {"col", d.col},
                                {"severity", static_cast<int>(d.severity)},
                                {"code", d.code},
                                {"message", d.message},
                                {"source_line", d.source_line},
                                {"notes", d.notes}});
  return j;
}

void from_cache_json(const nlohmann::json& j, CompileResult& r) {
  r.ok = j.at("ok").get<bool>();
  r.log = j.at("log").get<std::string>();
  r.ptx = j.at("ptx").get<std::string>();
  r.arch = j.at("arch").get<std::string>();
  r.nvrtc_version = j.at("nvrtc_version").get<std::string>();
  r.entries = j.at("entries").get<std::vector<std::string>>();
  r.options = j.at("options").get<std::vector<std::string>>();
  for (const auto& l : j.at("lowered"))
    r.lowered.emplace_back(l.at(0).get<std::string>(), l.at(1).get<std::string>());
  if (j.contains("extern_c"))
    for (const auto& e : j.at("extern_c"))
      r.extern_c.push_back({e.at("entry").get<std::string>(), e.at("written").get<std::string>(),
                            e.at("known").get<bool>(), e.at("types").get<std::string>(),
                            e.at("why").get<std::string>()});
  for (const auto& k : j.at("kernels")) {
    KernelResources x;
    x.mangled = k.at("mangled").get<std::string>();
    get_opt(k.at("registers"), x.registers);
    get_opt(k.at("barriers"), x.barriers);
    get_opt(k.at("shared"), x.shared_bytes);
    get_opt(k.at("const"), x.const_bytes);
    get_opt(k.at("stack"), x.stack_bytes);
    get_opt(k.at("spill_store"), x.spill_store_bytes);
    get_opt(k.at("spill_load"), x.spill_load_bytes);
    r.kernels.push_back(std::move(x));
  }
  if (j.contains("resource_notes")) r.resource_notes = j.at("resource_notes").get<std::vector<std::string>>();
  for (const auto& d : j.at("dependencies"))
    r.dependencies.push_back({d.at("path").get<std::string>(), d.at("display").get<std::string>(),
                              d.at("hash").get<std::string>()});
  for (const auto& d : j.at("diagnostics")) {
    Diagnostic x;
    x.file = d.at("file").get<std::string>();
    x.line = get_int<int>(d.at("line"));
    x.col = get_int<int>(d.at("col"));
    x.severity = static_cast<Severity>(get_int<int>(d.at("severity")));
    x.code = d.at("code").get<std::string>();
    x.message = d.at("message").get<std::string>();
    x.source_line = d.at("source_line").get<std::string>();
    x.notes = d.at("notes").get<std::vector<std::string>>();
    r.diagnostics.push_back(std::move(x));
  }
}

}  // namespace warplab::rtc
