// profile.cpp: device profiles written as JSON (nlohmann-json), and found by shipped name
// (captures, products, architectures) or file path; profile_read.cpp reads and checks
// them. Nothing here needs the driver.
#include "cu/profile.hpp"

#include <cctype>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "cu/error.hpp"
#include "sys/output.hpp"
#include "sys/read.hpp"
#include "sys/shown.hpp"
#include "sys/text.hpp"

namespace warplab::cu {
namespace {

// Every complaint has one shape: "profile 'WHERE': WHAT" (exit code 4 in main).
[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw Error("profile '" + where + "': " + what);
}

// ordered_json keeps the documented key order (format first, attributes last), so a
// profile reads top-down and diffs of two captures stay small.
nlohmann::ordered_json ordered(const DeviceSnapshot& d) {
  nlohmann::ordered_json j;
  j["format"] = kProfileFormat;
  j["format_version"] = kProfileFormatVersion;
  j["name"] = d.name;
  if (d.architecture) j["kind"] = kProfileArchitecture;
  if (!d.reference.empty()) j["reference"] = d.reference;
  j["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  if (d.unknown.count("total_memory") || (d.architecture && d.total_memory == 0))
    j["total_memory"] = nullptr;
  else
    j["total_memory"] = d.total_memory;
  // A capture always says who made it; an architecture profile has no capture to describe.
  if (!d.architecture || !d.uuid.empty()) j["uuid"] = d.uuid;
  if (!d.architecture || d.driver_version) j["driver_version"] = d.driver_version;
  if (!d.architecture || !d.warplab_version.empty()) j["warplab_version"] = d.warplab_version;
  if (!d.architecture || !d.captured.empty()) j["captured"] = d.captured;
  // Values and unknowns (null) in one sorted list.
  std::map<std::string, nlohmann::ordered_json> attrs;
  for (const auto& [name, value] : d.attributes) attrs[name] = value;
  for (const std::string& name : d.unknown)
    if (name != "total_memory") attrs[name] = nullptr;
  j["attributes"] = nlohmann::ordered_json::object();
  for (const auto& [name, value] : attrs) j["attributes"][name] = value;
  return j;
}

}  // namespace

const EmbeddedProfile* find_embedded_profile(const std::string& name) {
  for (const EmbeddedProfile& p : embedded_profiles())
    if (sys::lower(p.name) == sys::lower(name)) return &p;
  return nullptr;
}

// Made once: every --profile help line asks for it while the command line is built, and
// the embedded profiles never change.
std::string shipped_profiles() {
  static const std::string text = [] {
    std::vector<std::string> groups[3];
    for (const EmbeddedProfile& p : embedded_profiles()) {
      const auto j = nlohmann::json::parse(p.json, nullptr, false);
      const bool product = j.is_object() && j.contains("base");
      const bool arch = j.is_object() && j.value("kind", "") == kProfileArchitecture;
      groups[product ? 1 : arch ? 2 : 0].emplace_back(p.name);
    }
    // sm_80 before sm_100: by the number, not the text.
    std::sort(groups[2].begin(), groups[2].end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    const char* what[3] = {"captured", "products", "architectures"};
    std::string out;
    for (int g = 0; g < 3; ++g) {
      if (groups[g].empty()) continue;
      out += out.empty() ? "" : "; ";
      for (size_t i = 0; i < groups[g].size(); ++i) out += (i ? ", " : "") + groups[g][i];
      out += std::string(" (") + what[g] + ")";
    }
    return out;
  }();
  return text;
}

// H100 first: it is the card most readers have met, and the tour's numbers assume it.
std::string pick_default_profile(const std::vector<std::string>& names) {
  for (const char* want : {"h100", "h200"})
    for (const std::string& n : names)
      if (sys::lower(n) == want) return n;
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

namespace {

// A name as people write it, letters and digits only, lower case: "RTX 4090" -> "rtx4090".
std::string squeezed(std::string_view s) {
  std::string out;
  for (const char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The shipped profile a mistyped name most likely meant, or "": the same letters and digits
// ("sm90", "RTX-4090"); else the one shipped name that holds it or that it holds ("4090",
// "geforce rtx 4090"; none when several do: "100"); else the nearest, when a letter or two
// (a third of the word) away ("rtx490").
std::string nearest_profile(std::string_view given) {
  const std::string key = squeezed(given);
  std::vector<std::string> holds;
  for (const EmbeddedProfile& p : embedded_profiles()) {
    const std::string name = squeezed(p.name);
    if (name == key) return p.name;
    if (key.size() >= 3 && (name.find(key) != std::string::npos || key.find(name) != std::string::npos))
      holds.emplace_back(p.name);
  }
  if (!holds.empty()) return holds.size() == 1 ? holds.front() : "";  // "100": which one?
  std::string nearest;
  std::size_t best = std::max<std::size_t>(1, given.size() / 3) + 1;
  for (const EmbeddedProfile& p : embedded_profiles())
    if (const std::size_t d = sys::edit_distance(sys::lower(given), p.name); d < best)
      nearest = p.name, best = d;
  return nearest;
}

}  // namespace

DeviceSnapshot load_profile(const std::string& name_or_path) {
  // Shipped names win over files, so `--profile h100` means the same on every machine
  // even in a directory that happens to hold a file called h100.
  if (const EmbeddedProfile* p = find_embedded_profile(name_or_path)) return parse_profile(p->json, p->name);

  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(name_or_path, ec);
  if (!fs::exists(st)) {
    // "x/y.json" was meant as a file; "h110" was probably a mistyped shipped name.
    const bool looks_like_path =
        name_or_path.find('/') != std::string::npos || sys::lower(name_or_path).ends_with(".json");
    if (looks_like_path) bad(name_or_path, "no such file");
    const std::string shipped = shipped_profiles();
    const std::string nearest = nearest_profile(name_or_path);
    throw Error("unknown profile '" + sys::shown(name_or_path) + "'" +
                (nearest.empty() ? ": " : "; did you mean '" + nearest + "'? ") +
                (shipped.empty() ? "this build ships no profiles; give"
                                 : (nearest.empty() ? "shipped" : "Shipped") + std::string(" profiles are ") +
                                       shipped + "; or give") +
                " a path to a .json file");
  }
  if (fs::is_directory(st)) bad(name_or_path, "is a directory, not a .json file");
  if (!fs::is_regular_file(st)) bad(name_or_path, "is not a regular file");
  if (fs::file_size(name_or_path, ec) > (4u << 20))
    bad(name_or_path, "is larger than 4 MiB (a profile is a few KiB)");
  // Read whole, then parse: parse errors then point at lines of the text we hold.
  std::string text;
  if (const auto e = sys::read_whole(name_or_path, text, 4u << 20))
    bad(name_or_path, "cannot read the file (" + *e + ")");
  sys::note_input(name_or_path, "the profile");  // no output of this run replaces it (sys/output.hpp)
  return parse_profile(text, name_or_path);
}

}  // namespace warplab::cu
