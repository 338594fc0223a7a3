// profile_read.cpp: a device profile read from JSON (nlohmann-json) and checked whole:
// the header, every field's type, the attributes launch checks and occupancy compute from
// (present, and within their ranges), unknown values (JSON null), and products laid over
// their shipped architecture profile (profile.cpp finds it). Every malformed input ends in
// one cu::Error sentence naming the profile and the field; nothing here needs the driver.
#include <cctype>
#include <climits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cu/attributes.hpp"
#include "cu/error.hpp"
#include "cu/profile.hpp"

namespace warplab::cu {
namespace {

// Every complaint has one shape: "profile 'WHERE': WHAT" (exit code 4 in main).
[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw Error("profile '" + where + "': " + what);
}

// Field readers: each names the field in its complaint, so a user can fix the file.
const nlohmann::json& field(const nlohmann::json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) bad(where, std::string("field '") + key + "' is missing");
  return *it;
}

std::string get_string(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto& v = field(j, key, where);
  if (!v.is_string()) bad(where, std::string("field '") + key + "' must be a string");
  return v.get<std::string>();
}

// Integers only: JSON floats and booleans are rejected, not truncated or converted.
long long get_integer(const nlohmann::json& v, const std::string& name, const std::string& where) {
  if (v.is_number_unsigned()) {
    if (v.get<unsigned long long>() > static_cast<unsigned long long>(LLONG_MAX))
      bad(where, "field '" + name + "' is out of range");
    return static_cast<long long>(v.get<unsigned long long>());
  }
  if (!v.is_number_integer()) bad(where, "field '" + name + "' must be an integer");
  return v.get<long long>();
}

// The ranges a value may take, for the attributes limits and occupancy are computed from:
// outside them a loop or a division would misbehave (warp_size 0, 2^31 threads per block).
// Every other attribute this build knows: -1 (numa_id's "none") to 2^53.
struct Range {
  const char* name;
  long long lo, hi;
};
constexpr Range kRanges[] = {
    {"warp_size", 1, 64},
    {"max_threads_per_block", 1, 16384},
    {"max_threads_per_multiprocessor", 1, 65536},
    {"max_blocks_per_multiprocessor", 1, 1024},
    {"multiprocessor_count", 1, 65536},
    {"max_block_dim_x", 1, 16384},
    {"max_block_dim_y", 1, 16384},
    {"max_block_dim_z", 1, 16384},
    {"max_grid_dim_x", 1, 2147483647},
    {"max_grid_dim_y", 1, 2147483647},
    {"max_grid_dim_z", 1, 2147483647},
    {"max_registers_per_block", 1, 1 << 24},
    {"max_registers_per_multiprocessor", 1, 1 << 24},
    {"max_shared_memory_per_block", 0, 1 << 30},
    {"max_shared_memory_per_block_optin", 0, 1 << 30},
    {"max_shared_memory_per_multiprocessor", 0, 1 << 30},
    {"reserved_shared_memory_per_block", 0, 1 << 20},
    {"compute_capability_major", 1, 100},
    {"compute_capability_minor", 0, 99},
};

void check_range(const std::string& name, long long v, const std::string& where) {
  long long lo = -1, hi = 1ll << 53;
  for (const Range& r : kRanges)
    if (name == r.name) lo = r.lo, hi = r.hi;
  if (v < lo || v > hi)
    bad(where, "attributes." + name + " = " + std::to_string(v) + " is outside " + std::to_string(lo) + ".." +
                   std::to_string(hi));
  if (name == "warp_size" && (v & (v - 1)) != 0)
    bad(where, "attributes.warp_size = " + std::to_string(v) + " is not a power of two");
}

// "9.0" -> 9, 0. Strict: digits, one dot, digits; "sm_90" or "9" are not accepted, so a
// hand-edited file cannot silently become compute capability 0.0.
bool parse_cc(const std::string& s, int& major, int& minor) {
  const auto dot = s.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == s.size() || s.size() > 7) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (i != dot && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  major = std::stoi(s.substr(0, dot));
  minor = std::stoi(s.substr(dot + 1));
  return true;
}

// What launch checks and occupancy read (occupancy.cpp device_limits): a profile lacking
// one is refused when it loads, not when a script first needs it. Only the SM count may be
// unknown (JSON null): an architecture does not fix it, and only grid-wide answers need it.
constexpr const char* kNeeded[] = {
    "multiprocessor_count",
    "warp_size",
    "max_threads_per_block",
    "max_threads_per_multiprocessor",
    "max_registers_per_block",
    "max_registers_per_multiprocessor",
    "max_shared_memory_per_block",
    "max_shared_memory_per_multiprocessor",
    "max_block_dim_x",
    "max_block_dim_y",
    "max_block_dim_z",
    "max_grid_dim_x",
    "max_grid_dim_y",
    "max_grid_dim_z",
};
constexpr const char* kMayBeUnknown = "multiprocessor_count";

// `attrs warp --json` writes a listing of one attribute with the profile's header: it
// parses, so it is refused here, saying what is missing and how to write a whole profile.
void check_complete(const DeviceSnapshot& d, const std::string& where) {
  std::vector<std::string> missing;
  for (const char* n : kNeeded) {
    const bool absent_is_unknown = d.architecture && std::string_view(n) == kMayBeUnknown;
    if (!d.attributes.count(n) && !d.unknown.count(n) && !absent_is_unknown) missing.emplace_back(n);
  }
  if (!missing.empty()) {
    std::string names;
    const size_t shown = missing.size() > 4 ? 3 : missing.size();
    for (size_t i = 0; i < shown; ++i)
      names += (i == 0 ? "" : i + 1 == missing.size() ? " and " : ", ") + ("'" + missing[i] + "'");
    if (shown < missing.size()) names += " and " + std::to_string(missing.size() - shown) + " more";
    bad(where, (missing.size() == 1 ? "attribute " + names + " is missing"
                                    : "attributes " + names + " are missing") +
                   ", which launch checks and occupancy need: a partial listing (attrs NAME --json) is not a "
                   "profile; attrs --json with no names writes a whole one");
  }
  for (const char* n : kNeeded)
    if (std::string_view(n) != kMayBeUnknown && d.unknown.count(n))
      bad(where, std::string("attributes.") + n +
                     " is null (unknown), but launch checks and occupancy need its value");
}

// The header every profile opens with: the format and its version first, so a different
// kind of file gets "not a warplab profile" rather than a complaint about its third field.
void check_format(const nlohmann::json& j, const std::string& where) {
  if (j.is_array())
    bad(where,
        "holds a JSON array (the output of attrs --json --device all); save one "
        "device's profile per file");
  if (!j.is_object()) bad(where, "must hold a JSON object");
  const auto& fmt = field(j, "format", where);
  if (!fmt.is_string() || fmt.get<std::string>() != kProfileFormat)
    bad(where, std::string("field 'format' must be \"") + kProfileFormat + "\" (not a warplab profile)");
  const long long version = get_integer(field(j, "format_version", where), "format_version", where);
  if (version > kProfileFormatVersion)
    bad(where, "format_version " + std::to_string(version) + " is newer than this warplab reads (" +
                   std::to_string(kProfileFormatVersion) + "); update warplab");
  if (version != kProfileFormatVersion) bad(where, "field 'format_version' must be 1");
}

// "total_memory": bytes, or null where the profile does not know it (an architecture).
void read_total_memory(const nlohmann::json& v, DeviceSnapshot& d, const std::string& where) {
  if (v.is_null()) {
    d.total_memory = 0;
    d.unknown.insert("total_memory");
    return;
  }
  const long long mem = get_integer(v, "total_memory", where);
  if (mem < 0) bad(where, "field 'total_memory' must not be negative");
  d.total_memory = static_cast<std::uint64_t>(mem);
  d.unknown.erase("total_memory");
}

// "kind": absent or "device" for a capture, "architecture" for documented limits.
void read_kind(const nlohmann::json& j, DeviceSnapshot& d, const std::string& where) {
  if (!j.contains("kind")) return;
  const std::string kind = get_string(j, "kind", where);
  if (kind != "device" && kind != kProfileArchitecture)
    bad(where, "field 'kind' must be \"device\" (a captured GPU) or \"architecture\", not \"" + kind + "\"");
  d.architecture = kind == kProfileArchitecture;
}

// "attributes": name -> integer, or null for a value the profile does not know. A
// deprecated alias (shared_memory_per_block) is stored under its current name; names this
// warplab does not know (a newer cuda.h) are kept unchecked.
void read_attributes(const nlohmann::json& attrs, DeviceSnapshot& d, const std::string& where) {
  if (!attrs.is_object()) bad(where, "field 'attributes' must be an object of name: integer");
  for (const auto& [name, value] : attrs.items()) {
    const AttributeInfo* info = find_attribute(name);
    const std::string canonical = info ? std::string(info->name) : name;
    if (value.is_null()) {
      d.attributes.erase(canonical);
      d.unknown.insert(canonical);
      continue;
    }
    const long long v = get_integer(value, "attributes." + name, where);
    if (info) check_range(canonical, v, where);
    d.attributes[canonical] = v;
    d.unknown.erase(canonical);
  }
}

// The header and the attributes come from the same capture; disagreement means an edit.
void check_capability(const DeviceSnapshot& d, const std::string& cc, const std::string& where) {
  for (auto [key, want] :
       {std::pair{"compute_capability_major", d.cc_major}, std::pair{"compute_capability_minor", d.cc_minor}})
    if (auto v = d.attr(key); v && *v != want)
      bad(where,
          "field 'compute_capability' is \"" + cc + "\" but attributes." + key + " is " + std::to_string(*v));
}

// A product: {"format", "format_version", "name", "base": "sm_80", "reference",
// "attributes": {"multiprocessor_count": 108}}: the shipped architecture profile `base`
// with the product's name, reference and attributes laid over it.
DeviceSnapshot from_product(const nlohmann::json& j, const std::string& where) {
  const std::string base = get_string(j, "base", where);
  const EmbeddedProfile* p = find_embedded_profile(base);
  const nlohmann::json bj = p ? nlohmann::json::parse(p->json, nullptr, false) : nlohmann::json();
  if (!p || !bj.is_object() || bj.contains("base") || bj.value("kind", "") != kProfileArchitecture)
    bad(where, "field 'base' must name a shipped architecture profile, not \"" + base +
                   "\" (shipped: " + shipped_profiles() + ")");
  DeviceSnapshot d = from_json(bj, p->name);
  d.name = get_string(j, "name", where);
  if (d.name.empty()) bad(where, "field 'name' must not be empty");
  read_kind(j, d, where);
  if (!d.architecture) bad(where, "field 'kind' must be \"architecture\" in a profile with a 'base'");
  if (j.contains("reference")) d.reference += " " + get_string(j, "reference", where);
  const std::string cc = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  if (j.contains("compute_capability") && get_string(j, "compute_capability", where) != cc)
    bad(where, "field 'compute_capability' is \"" + get_string(j, "compute_capability", where) +
                   "\" but its base " + base + " is \"" + cc + "\"");
  if (j.contains("total_memory")) read_total_memory(j["total_memory"], d, where);
  if (j.contains("attributes")) read_attributes(j["attributes"], d, where);
  d.source = "profile " + where;
  check_capability(d, cc, where);
  check_complete(d, where);
  return d;
}

}  // namespace

DeviceSnapshot from_json(const nlohmann::json& j, const std::string& where) {
  check_format(j, where);
  if (j.contains("base")) return from_product(j, where);

  DeviceSnapshot d;
  d.source = "profile " + where;
  d.name = get_string(j, "name", where);
  if (d.name.empty()) bad(where, "field 'name' must not be empty");
  read_kind(j, d, where);
  if (j.contains("reference")) d.reference = get_string(j, "reference", where);
  const std::string cc = get_string(j, "compute_capability", where);
  if (!parse_cc(cc, d.cc_major, d.cc_minor))
    bad(where, "field 'compute_capability' must look like \"9.0\", not \"" + cc + "\"");
  read_total_memory(field(j, "total_memory", where), d, where);
  // Descriptive fields are optional, but must have the right type when present.
  if (j.contains("uuid")) d.uuid = get_string(j, "uuid", where);
  if (j.contains("warplab_version")) d.warplab_version = get_string(j, "warplab_version", where);
  if (j.contains("captured")) d.captured = get_string(j, "captured", where);
  if (j.contains("driver_version")) {
    const long long v = get_integer(j["driver_version"], "driver_version", where);
    if (v < 0 || v > INT_MAX)
      bad(where, "field 'driver_version' = " + std::to_string(v) + " is outside 0..2147483647");
    d.driver_version = static_cast<int>(v);
  }
  read_attributes(field(j, "attributes", where), d, where);
  check_capability(d, cc, where);
  check_complete(d, where);
  return d;
}

DeviceSnapshot parse_profile(const std::string& text, const std::string& where) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) bad(where, "the file is empty");
  // The JSON reader takes a NUL byte for the end of the text: what follows would be ignored.
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    bad(where, "a NUL byte at byte offset " + std::to_string(nul) + ": a profile is JSON text");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number too large for a double ("1e999") fails while parsing, with its own type.
    std::string msg = e.what();
    const auto at = msg.find("] ");
    bad(where, "invalid JSON: " + (at == std::string::npos ? msg : msg.substr(at + 2)));
  } catch (const nlohmann::json::parse_error& e) {
    // e.what(): "[json.exception.parse_error.101] parse error at line 3, column 5: syntax
    // error while parsing ..." -> keep from "line" on.
    std::string msg = e.what();
    const auto at = msg.find("at line ");
    msg = at == std::string::npos ? msg : msg.substr(at + 3);
    bad(where, "invalid JSON at " + msg);
  }
  return from_json(j, where);
}

}  // namespace warplab::cu
