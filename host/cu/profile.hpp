// profile.hpp: device profiles: JSON captures of a real GPU's attributes (warplab attrs
// --json), architecture profiles (NVIDIA's documented limits of a compute capability,
// "kind": "architecture", unknown values null) and products (an architecture profile with
// a name and an SM count, "base": "sm_80"), shipped in profiles/ and embedded in the binary
// so `--profile h100` works on any machine. Needs no driver. Format (docs/attrs.md):
// {"format": "warplab-profile", "format_version": 1, "name", "kind", "reference",
// "compute_capability": "9.0", "total_memory", "uuid", "driver_version",
// "warplab_version", "captured", "attributes": {name: integer or null}}.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cu/device.hpp"

namespace warplab::cu {

// Bump the version only for a change old readers would misread; new optional keys do not
// need it (unknown top-level keys are ignored).
inline constexpr const char* kProfileFormat = "warplab-profile";
inline constexpr int kProfileFormatVersion = 1;
inline constexpr const char* kProfileArchitecture = "architecture";  // "kind" of one

struct EmbeddedProfile {
  const char* name;  // file stem: "h100"
  std::string json;  // the file's text
};
// Generated at build time from profiles/*.json (cmake/embed_profiles.cmake).
const std::vector<EmbeddedProfile>& embedded_profiles();
// The shipped profile called `name` (case-insensitive), or nullptr.
const EmbeddedProfile* find_embedded_profile(const std::string& name);
// The shipped names by kind: "h100, h200 (captured); a100, ... (products); sm_80, ...
// (architectures)"; "" when none is shipped.
std::string shipped_profiles();

// The name of the profile `run`/`repl` fall back to offline: "h100" when shipped, else
// "h200", else the first shipped one, else "" (none shipped).
std::string default_profile_name();
// The same choice over any list of names (case-insensitive; returns the name as given).
std::string pick_default_profile(const std::vector<std::string>& names);

nlohmann::json to_json(const DeviceSnapshot& d);
// Pretty JSON text in the documented key order, ending in a newline: one profile, or an
// array of them (`attrs --json --device all`). What `--profile FILE` reads back.
std::string profile_text(const DeviceSnapshot& d);
std::string profile_text(const std::vector<DeviceSnapshot>& devices);

// Throws cu::Error (code CUDA_SUCCESS: bad input) with one sentence naming `where` and the
// offending field: "profile 'x.json': field 'attributes.warp_size' must be an integer".
// Attribute names this warplab does not know (a newer cuda.h) are kept. A profile lacking
// an attribute launch checks or occupancy need is refused ("a partial listing (attrs NAME
// --json) is not a profile"); only multiprocessor_count may be null (unknown).
DeviceSnapshot from_json(const nlohmann::json& j, const std::string& where);
// Parses JSON text first; syntax errors name the line and column.
DeviceSnapshot parse_profile(const std::string& text, const std::string& where);
// `name_or_path`: an embedded profile's name (case-insensitive), else a path to a JSON
// file. Throws cu::Error: "unknown profile 'x': shipped profiles are h100, h200 (captured);
// ...; or give a path to a .json file", "profile 'x.json': no such file", or a parse error
// as above.
DeviceSnapshot load_profile(const std::string& name_or_path);

}  // namespace warplab::cu
