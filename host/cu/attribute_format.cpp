// attribute_format.cpp: lookups into the attribute table (by name, alias or enum value),
// the group and unit vocabularies, and how a value is shown to a person. Pure data.
#include <cctype>
#include <cstdio>
#include <unordered_map>
#include <utility>

#include "cu/attributes.hpp"
#include "sys/text.hpp"

namespace warplab::cu {
namespace {

// Display order of the groups: what a kernel author asks first comes first.
constexpr std::string_view kGroups[] = {"device", "limits",      "sm",       "shared-memory", "memory",
                                        "clocks", "host-memory", "features", "topology",      "texture"};
constexpr std::string_view kUnits[] = {"threads", "blocks", "registers", "bytes", "kHz",
                                       "bits",    "layers", "elements",  "count", "ratio",
                                       "bool",    "enum",   "bitmask",   "id",    ""};

// Name and alias -> entry, built once (thread-safe static). The Lua binding looks
// attributes up by name on every `dev.attr.x`, so this is a hash, not a scan.
const std::unordered_map<std::string, const AttributeInfo*>& by_name() {
  static const auto m = [] {
    std::unordered_map<std::string, const AttributeInfo*> out;
    for (const AttributeInfo& a : attribute_table()) {
      out.emplace(std::string(a.name), &a);
      for (std::string_view alias : a.aliases) out.emplace(std::string(alias), &a);
    }
    return out;
  }();
  return m;
}

// (value, name) pairs for the enum and bitmask attributes; short lower-case names.
using Names = std::vector<std::pair<long long, std::string_view>>;

// Symbolic values of the enum attributes, from the enums cuda.h names in their comments.
const Names* enum_names(std::string_view attr) {
  static const Names compute_mode = {{0, "default"}, {2, "prohibited"}, {3, "exclusive process"}};
  static const Names numa = {{0, "none"}, {1, "numa node"}};
  static const Names ordering = {{0, "none"}, {100, "owner"}, {200, "all devices"}};
  if (attr == "compute_mode") return &compute_mode;
  if (attr == "numa_config") return &numa;
  if (attr == "gpu_direct_rdma_writes_ordering") return &ordering;
  return nullptr;
}

// Bit names of the bitmask attributes (value = the bit).
const Names* bit_names(std::string_view attr) {
  static const Names flush = {{1, "host"}, {2, "memops"}};
  static const Names handles = {{1, "posix_fd"}, {2, "win32"}, {4, "win32_kmt"}, {8, "fabric"}};
  static const Names decompress = {{1, "deflate"}, {2, "snappy"}, {4, "lz4"}};
  if (attr == "gpu_direct_rdma_flush_writes_options") return &flush;
  if (attr == "mempool_supported_handle_types") return &handles;
  if (attr == "mem_decompress_algorithm_mask") return &decompress;
  return nullptr;
}

std::string printf_string(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string hex(long long v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%x", static_cast<unsigned>(v));
  return buf;
}

// "9 (posix_fd, fabric)": the decimal value, then each set bit by name; bits without a
// name (a newer driver) are shown in hex rather than dropped.
std::string format_bitmask(const Names* bits, long long v) {
  if (v == 0) return "0 (none)";
  std::string names;
  long long rest = v;
  for (const auto& [bit, name] : bits ? *bits : Names{}) {
    if (!(v & bit)) continue;
    names += (names.empty() ? "" : ", ") + std::string(name);
    rest &= ~bit;
  }
  if (rest) names += (names.empty() ? "" : ", ") + hex(rest);
  return std::to_string(v) + " (" + names + ")";
}

}  // namespace

std::span<const std::string_view> attribute_groups() { return kGroups; }
std::span<const std::string_view> attribute_units() { return kUnits; }

const AttributeInfo* find_attribute(std::string_view name) {
  std::string key = sys::lower(name);
  // Accept the enum's own spelling too: CU_DEVICE_ATTRIBUTE_WARP_SIZE.
  constexpr std::string_view prefix = "cu_device_attribute_";
  if (key.starts_with(prefix)) key.erase(0, prefix.size());
  const auto& m = by_name();
  auto it = m.find(key);
  return it == m.end() ? nullptr : it->second;
}

// Binary units (KiB = 1024), as CUDA's limits are powers of two: 49152 is "48 KiB".
std::string format_bytes(unsigned long long bytes) {
  static constexpr const char* kNames[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return sys::plural(static_cast<long long>(bytes), "byte");
  double v = static_cast<double>(bytes);
  int i = -1;
  unsigned long long unit = 1;
  while (i < 3 && bytes >= unit * 1024) {
    unit *= 1024;
    ++i;
  }
  v /= static_cast<double>(unit);
  // Exact multiples print as integers ("48 KiB"), the rest with one decimal ("79.2 GiB").
  if (bytes % unit == 0) return std::to_string(bytes / unit) + " " + kNames[i];
  std::string text = printf_string("%.1f", v);
  // 2147483647 is not "2.0 GiB" (that reads as exact) but "~2 GiB".
  if (text.ends_with(".0")) return "~" + text.substr(0, text.size() - 2) + " " + kNames[i];
  return text + " " + kNames[i];
}

std::string format_value(const AttributeInfo& info, long long v) {
  const std::string n = std::to_string(v);
  const std::string_view u = info.unit;
  if (u == "bytes")
    return v >= 1024 ? n + " (" + format_bytes(static_cast<unsigned long long>(v)) + ")"
                     : format_bytes(static_cast<unsigned long long>(v < 0 ? 0 : v));
  // Clocks: GHz to three significant digits ("1.98 GHz"), MHz below 1 GHz.
  if (u == "kHz") {
    if (v >= 1000000) return n + " kHz (" + printf_string("%.3g", v / 1e6) + " GHz)";
    if (v >= 1000) return n + " kHz (" + printf_string("%.4g", v / 1e3) + " MHz)";
    return n + " kHz";
  }
  // Booleans that are not 0/1 would be a driver surprise: show the number, not "yes".
  if (u == "bool") return v == 0 ? "no" : v == 1 ? "yes" : n;
  if (u == "enum") {
    if (const Names* names = enum_names(info.name))
      for (const auto& [value, name] : *names)
        if (value == v) return n + " (" + std::string(name) + ")";
    return n;
  }
  if (u == "bitmask") return format_bitmask(bit_names(info.name), v);
  // The combined PCI IDs read naturally only in hex: 0x233010de is NVIDIA's device 0x2330.
  if (info.name == "gpu_pci_device_id" || info.name == "gpu_pci_subsystem_id") return n + " (" + hex(v) + ")";
  if (u.empty() || u == "count" || u == "ratio" || u == "id") return n;
  return n + " " + std::string(u);
}

}  // namespace warplab::cu
