// device.cpp: live device snapshots through the driver; DeviceSnapshot helpers.
#include "cu/device.hpp"

#include "cu/error.hpp"

namespace warplab::cu {

std::optional<long long> DeviceSnapshot::attr(const std::string& n) const {
  auto it = attributes.find(n);
  if (it == attributes.end()) return std::nullopt;
  return it->second;
}

long long DeviceSnapshot::require(const std::string& n) const {
  if (auto v = attr(n)) return *v;
  throw Error("attribute '" + n + "' is missing from " + source);
}

std::string DeviceSnapshot::summary() const { return name; }
int device_count() { throw Error("not implemented"); }
DeviceSnapshot snapshot_device(int) { throw Error("not implemented"); }

}  // namespace warplab::cu
