// profile.cpp: device profiles to and from JSON (nlohmann-json), and finding one by
// embedded name or file path. Every malformed input ends in one cu::Error sentence that
// names the profile and the field; nothing here needs the driver. Depends on
// cu/profile.hpp, cu/attributes.hpp, cu/error.hpp, nlohmann/json.
#include "cu/profile.hpp"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cu/attributes.hpp"
#include "cu/error.hpp"

namespace warplab::cu {
namespace {

// Bump kFormatVersion only for a change old readers would misread; new optional keys
// do not need it (unknown top-level keys are ignored).
constexpr const char* kFormat = "warplab-profile";
constexpr int kFormatVersion = 1;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

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

// ordered_json keeps the documented key order (format first, attributes last), so a
// profile reads top-down and diffs of two captures stay small.
nlohmann::ordered_json ordered(const DeviceSnapshot& d) {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["format_version"] = kFormatVersion;
  j["name"] = d.name;
  j["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  j["total_memory"] = d.total_memory;
  j["uuid"] = d.uuid;
  j["driver_version"] = d.driver_version;
  j["warplab_version"] = d.warplab_version;
  j["captured"] = d.captured;
  j["attributes"] = nlohmann::ordered_json::object();
  for (const auto& [name, value] : d.attributes) j["attributes"][name] = value;  // sorted
  return j;
}

std::string shipped_list() {
  std::string out;
  for (const EmbeddedProfile& p : embedded_profiles()) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

}  // namespace

// H100 first: it is the card most readers have met, and the tour's numbers assume it.
std::string pick_default_profile(const std::vector<std::string>& names) {
  for (const char* want : {"h100", "h200"})
    for (const std::string& n : names)
      if (lower(n) == want) return n;
  return names.empty() ? std::string() : names.front();
}

std::string default_profile_name() {
  std::vector<std::string> names;
  for (const EmbeddedProfile& p : embedded_profiles()) names.emplace_back(p.name);
  return pick_default_profile(names);
}

// Through text, so to_json and profile_text can never disagree about a field.
nlohmann::json to_json(const DeviceSnapshot& d) { return nlohmann::json::parse(ordered(d).dump()); }

std::string profile_text(const DeviceSnapshot& d) { return ordered(d).dump(2) + "\n"; }

std::string profile_text(const std::vector<DeviceSnapshot>& devices) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const DeviceSnapshot& d : devices) all.push_back(ordered(d));
  return all.dump(2) + "\n";
}

DeviceSnapshot from_json(const nlohmann::json& j, const std::string& where) {
  if (j.is_array())
    bad(where,
        "holds a JSON array (the output of attrs --json --device all); save one "
        "device's profile per file");
  if (!j.is_object()) bad(where, "must hold a JSON object");
  // The format and its version first: a different kind of file gets "not a warplab
  // profile" rather than a complaint about its third field.
  const auto& fmt = field(j, "format", where);
  if (!fmt.is_string() || fmt.get<std::string>() != kFormat)
    bad(where, std::string("field 'format' must be \"") + kFormat + "\" (not a warplab profile)");
  const long long version = get_integer(field(j, "format_version", where), "format_version", where);
  if (version > kFormatVersion)
    bad(where, "format_version " + std::to_string(version) + " is newer than this warplab reads (" +
                   std::to_string(kFormatVersion) + "); update warplab");
  if (version != kFormatVersion) bad(where, "field 'format_version' must be 1");

  DeviceSnapshot d;
  d.source = "profile " + where;
  d.name = get_string(j, "name", where);
  if (d.name.empty()) bad(where, "field 'name' must not be empty");
  const std::string cc = get_string(j, "compute_capability", where);
  if (!parse_cc(cc, d.cc_major, d.cc_minor))
    bad(where, "field 'compute_capability' must look like \"9.0\", not \"" + cc + "\"");
  const long long mem = get_integer(field(j, "total_memory", where), "total_memory", where);
  if (mem < 0) bad(where, "field 'total_memory' must not be negative");
  d.total_memory = static_cast<std::uint64_t>(mem);
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

  const auto& attrs = field(j, "attributes", where);
  if (!attrs.is_object()) bad(where, "field 'attributes' must be an object of name: integer");
  for (const auto& [name, value] : attrs.items()) {
    // A deprecated alias (shared_memory_per_block) is stored under its current name.
    const AttributeInfo* info = find_attribute(name);
    const std::string canonical = info ? std::string(info->name) : name;
    const long long v = get_integer(value, "attributes." + name, where);
    if (info) check_range(canonical, v, where);  // one from a newer CUDA: kept as it is
    d.attributes[canonical] = v;
  }
  // The header and the attributes come from the same capture; disagreement means an edit.
  for (auto [key, want] :
       {std::pair{"compute_capability_major", d.cc_major}, std::pair{"compute_capability_minor", d.cc_minor}})
    if (auto v = d.attr(key); v && *v != want)
      bad(where,
          "field 'compute_capability' is \"" + cc + "\" but attributes." + key + " is " + std::to_string(*v));
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

DeviceSnapshot load_profile(const std::string& name_or_path) {
  // Shipped names win over files, so `--profile h100` means the same on every machine
  // even in a directory that happens to hold a file called h100.
  for (const EmbeddedProfile& p : embedded_profiles())
    if (lower(p.name) == lower(name_or_path)) return parse_profile(p.json, p.name);

  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(name_or_path, ec);
  if (!fs::exists(st)) {
    // "x/y.json" was meant as a file; "h110" was probably a mistyped shipped name.
    const bool looks_like_path =
        name_or_path.find('/') != std::string::npos || lower(name_or_path).ends_with(".json");
    if (looks_like_path) bad(name_or_path, "no such file");
    const std::string shipped = shipped_list();
    throw Error("unknown profile '" + name_or_path + "': " +
                (shipped.empty() ? "this build ships no profiles; give"
                                 : "shipped profiles are " + shipped + "; or give") +
                " a path to a .json file");
  }
  if (fs::is_directory(st)) bad(name_or_path, "is a directory, not a .json file");
  if (!fs::is_regular_file(st)) bad(name_or_path, "is not a regular file");
  if (fs::file_size(name_or_path, ec) > (4u << 20))
    bad(name_or_path, "is larger than 4 MiB (a profile is a few KiB)");
  // Read whole, then parse: parse errors then point at lines of the text we hold.
  std::ifstream in(name_or_path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) bad(name_or_path, std::string("cannot read the file (") + std::strerror(errno) + ")");
  return parse_profile(text.str(), name_or_path);
}

}  // namespace warplab::cu
