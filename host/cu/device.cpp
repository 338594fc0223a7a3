// device.cpp: live device snapshots through the driver: every attribute of the table,
// name, memory, UUID and versions; DeviceSnapshot helpers.
#include "cu/device.hpp"

#include <cstdio>
#include <ctime>

#include "cu/attributes.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"

namespace warplab::cu {
namespace {

// The canonical 8-4-4-4-12 form, as nvidia-smi prints it (without its "GPU-" prefix).
std::string uuid_hex(const CUuuid& u) {
  std::string out;
  char buf[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(u.bytes[i]));
    out += buf;
  }
  return out;
}

// The capture time in UTC ("2026-11-21T10:00:00Z"): profiles travel between machines.
std::string utc_now_iso() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The tail of the bad-index sentence: how many devices there are and which indices work.
std::string devices_present(int count) {
  if (count == 0) return "no CUDA device is present";
  if (count == 1) return "1 CUDA device is present (valid: 0)";
  return std::to_string(count) + " CUDA devices are present (valid: 0-" + std::to_string(count - 1) + ")";
}

}  // namespace

std::optional<long long> DeviceSnapshot::attr(const std::string& n) const {
  auto it = attributes.find(n);
  if (it == attributes.end()) return std::nullopt;
  return it->second;
}

bool DeviceSnapshot::is_unknown(const std::string& n) const {
  if (unknown.count(n)) return true;
  if (!architecture) return false;  // a capture lacking an attribute: an older driver
  return n == "total_memory" ? total_memory == 0 : !attributes.count(n);
}

long long DeviceSnapshot::require(const std::string& n) const {
  if (auto v = attr(n)) return *v;
  if (is_unknown(n))
    throw Error("attribute '" + n + "' is unknown for " + source +
                    (architecture ? " (architecture limits, not a captured device)" : ""),
                ErrorKind::not_in_profile);
  throw Error("attribute '" + n + "' is missing from " + source);
}

std::string DeviceSnapshot::summary() const {
  std::string out = name + " (" + arch();
  if (auto sms = attr("multiprocessor_count"))
    out += ", " + std::to_string(*sms) + " SMs";
  else if (is_unknown("multiprocessor_count"))
    out += ", SM count unknown";
  // Whole GiB, rounded down, as the marketing names do not: an "80GB" H100 shows 79 GiB.
  constexpr std::uint64_t kGiB = 1ull << 30;
  if (total_memory >= kGiB)
    out += ", " + std::to_string(total_memory / kGiB) + " GiB";
  else if (total_memory > 0)
    out += ", " + std::to_string(total_memory >> 20) + " MiB";
  return out + (architecture ? "; architecture limits, not a captured device)" : ")");
}

// Throws (exit 3 in main) when there is no driver; 0 devices is a valid answer.
int device_count() {
  int n = 0;
  WL_CU_CHECK(api().cuDeviceGetCount(&n), "");
  return n;
}

DeviceSnapshot snapshot_device(int ordinal) {
  const Api& d = api();
  // Checked here rather than left to cuDeviceGet, whose CUDA_ERROR_INVALID_DEVICE does
  // not say how many devices exist.
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw Error("device " + std::to_string(ordinal) + " does not exist: " + devices_present(count),
                CUDA_ERROR_INVALID_DEVICE);
  const std::string what = "device " + std::to_string(ordinal);
  CUdevice dev = 0;
  WL_CU_CHECK(d.cuDeviceGet(&dev, ordinal), what);

  DeviceSnapshot s;
  s.ordinal = ordinal;
  s.source = what;
  char name[256] = {};
  WL_CU_CHECK(d.cuDeviceGetName(name, sizeof name - 1, dev), what);
  s.name = name;
  size_t bytes = 0;
  WL_CU_CHECK(d.cuDeviceTotalMem(&bytes, dev), what);
  s.total_memory = bytes;
  CUuuid uuid{};
  WL_CU_CHECK(d.cuDeviceGetUuid(&uuid, dev), what);
  s.uuid = uuid_hex(uuid);
  s.driver_version = driver_version();
  s.warplab_version = WARPLAB_VERSION;
  s.captured = utc_now_iso();

  // An attribute this driver or GPU does not know answers CUDA_ERROR_INVALID_VALUE (some
  // platforms say CUDA_ERROR_NOT_SUPPORTED): it is left out of the snapshot (absent, not
  // zero), so a profile never claims a value the hardware did not give. Any other failure
  // is a real error and stops the snapshot.
  for (const AttributeInfo& a : attribute_table()) {
    int v = 0;
    const CUresult rc = d.cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(a.value), dev);
    if (rc == CUDA_ERROR_INVALID_VALUE || rc == CUDA_ERROR_NOT_SUPPORTED) continue;
    if (rc != CUDA_SUCCESS)
      throw Error(rc, "cuDeviceGetAttribute", what + ", attribute " + std::string(a.name));
    s.attributes.emplace(std::string(a.name), v);
  }
  // The compute capability lives among the attributes too; the fields are for convenience.
  s.cc_major = static_cast<int>(s.require("compute_capability_major"));
  s.cc_minor = static_cast<int>(s.require("compute_capability_minor"));
  return s;
}

}  // namespace warplab::cu
