// profile.hpp: device profiles, JSON captures of a real GPU's attributes (warplab attrs
// --json), shipped in profiles/ and embedded in the binary so `--profile h100` works on
// any machine. Needs no driver.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cu/device.hpp"

namespace warplab::cu {

struct EmbeddedProfile {
  const char* name;  // file stem: "h100"
  std::string json;  // the file's text
};
// Generated at build time from profiles/*.json (cmake/embed_profiles.cmake).
const std::vector<EmbeddedProfile>& embedded_profiles();

// The name of the profile `run`/`repl` fall back to offline ("h100" when shipped).
std::string default_profile_name();

nlohmann::json to_json(const DeviceSnapshot& d);
// Throws cu::Error with one sentence naming `where` and the offending field.
DeviceSnapshot from_json(const nlohmann::json& j, const std::string& where);
// `name_or_path`: an embedded profile's name, or a path to a JSON file. Throws cu::Error:
// "unknown profile 'x': shipped profiles are h100, h200; or give a path to a .json file".
DeviceSnapshot load_profile(const std::string& name_or_path);

}  // namespace warplab::cu
