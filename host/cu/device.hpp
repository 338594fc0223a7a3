// device.hpp: what warplab knows about a GPU, from the live driver or from a captured
// profile: name, compute capability, memory, every attribute. Live queries need the
// driver (device.cpp); a snapshot is plain data and works offline.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace warplab::cu {

struct DeviceSnapshot {
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int ordinal = -1;  // device index when live, -1 for a profile
  int cc_major = 0, cc_minor = 0;
  std::uint64_t total_memory = 0;  // bytes
  std::string uuid;
  int driver_version = 0;  // cuDriverGetVersion of the capturing machine
  std::string warplab_version;
  std::string captured;                         // ISO date of capture
  std::string source;                           // "device 0" or "profile h100" / "profile path/to.json"
  std::map<std::string, long long> attributes;  // name (attributes.hpp) -> value
  // An architecture profile (profiles/sm_*.json, or a product built on one) holds NVIDIA's
  // documented limits for a compute capability, not a capture: `reference` says where they
  // come from, and every attribute it does not give is unknown, never 0.
  bool architecture = false;
  std::string reference;
  // Attributes the profile says it does not know (JSON null); "total_memory" for the field.
  std::set<std::string> unknown;

  // The value of a named attribute; nullopt when the source lacks it or does not know it.
  std::optional<long long> attr(const std::string& name) const;
  // True when the profile says it does not know `name` (as opposed to a capture that
  // lacks it): a JSON null, or anything an architecture profile does not give.
  bool is_unknown(const std::string& name) const;
  // Like attr() but throws cu::Error naming the attribute and the source when missing,
  // or saying the value is unknown for an architecture profile (kind not_in_profile).
  long long require(const std::string& name) const;
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
  bool live() const { return ordinal >= 0; }
  // "NVIDIA H200 (sm_90, 132 SMs, 139 GiB)"; an architecture profile says so:
  // "NVIDIA compute capability 8.6 (sm_86, SM count unknown; architecture limits, not a
  // captured device)".
  std::string summary() const;
};

// Number of CUDA devices; throws cu::Error when the driver is unavailable.
int device_count();
// Every attribute of the table read from device `ordinal` (throws on a bad index, with
// the count: "device 3 does not exist: 1 CUDA device is present (valid: 0)").
DeviceSnapshot snapshot_device(int ordinal);

}  // namespace warplab::cu
