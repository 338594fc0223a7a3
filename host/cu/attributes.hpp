// attributes.hpp: the table of every CU_DEVICE_ATTRIBUTE_* in the cuda.h we build with:
// lower-case name without the prefix, enum value, group, unit and one line of meaning,
// plus how to show a value to a person ("49152 (48 KiB)"). Pure data; needs no driver.
#pragma once
#include <cuda.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warplab::cu {

struct AttributeInfo {
  std::string_view name;                  // "max_threads_per_block"
  int value;                              // the enum value, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
  std::string_view group;                 // one of attribute_groups(): "limits", "memory", "sm", ...
  std::string_view unit;                  // one of attribute_units(): "threads", "bytes", "kHz", "bool", ...
  std::string_view meaning;               // one line
  std::vector<std::string_view> aliases;  // deprecated enum names with the same value
  bool deprecated = false;                // cuda.h marks the attribute itself deprecated
};

// One entry per distinct enum value, in enum order.
std::span<const AttributeInfo> attribute_table();
// By name (lower case, no prefix; aliases accepted, case-insensitive); nullptr when unknown.
const AttributeInfo* find_attribute(std::string_view name);
// The attribute name closest to a misspelled one (edit distance, at most a third of its
// length, at least 2), or "" when none is close: "did you mean 'warp_size'?".
std::string suggest_attribute(std::string_view name);
// The group names in display order.
std::span<const std::string_view> attribute_groups();
// Every unit the table uses ("" for plain numbers such as a compute capability).
std::span<const std::string_view> attribute_units();

// A value as a person reads it: bytes "49152 (48 KiB)", kHz "1980000 kHz (1.98 GHz)",
// bool "yes"/"no", enums and bit masks with their names, counts of things with their unit.
std::string format_value(const AttributeInfo& info, long long value);
// Byte counts the way warplab prints them: "48 KiB", "1.5 MiB", "139 GiB", "512 bytes".
std::string format_bytes(unsigned long long bytes);

}  // namespace warplab::cu
