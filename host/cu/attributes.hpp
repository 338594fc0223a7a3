// attributes.hpp: the table of every CU_DEVICE_ATTRIBUTE_* in the cuda.h we build with:
// lower-case name without the prefix, enum value, group, unit and one line of meaning.
// Pure data; needs no driver.
#pragma once
#include <cuda.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warplab::cu {

struct AttributeInfo {
  std::string_view name;     // "max_threads_per_block"
  int value;                 // the enum value, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
  std::string_view group;    // "limits", "memory", "sm", "features", ...
  std::string_view unit;     // "threads", "bytes", "kHz", "bool", "" ...
  std::string_view meaning;  // one line
  std::vector<std::string_view> aliases;  // deprecated enum names with the same value
};

// One entry per distinct enum value, in enum order.
std::span<const AttributeInfo> attribute_table();
// By name (lower case, no prefix; aliases accepted); nullptr when unknown.
const AttributeInfo* find_attribute(std::string_view name);
const AttributeInfo* find_attribute_by_value(int value);
// The group names in display order.
std::span<const std::string_view> attribute_groups();

}  // namespace warplab::cu
