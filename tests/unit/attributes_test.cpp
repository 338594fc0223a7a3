// attributes_test.cpp: the attribute table against the cuda.h we build with (parsed
// here, path in WARPLAB_CUDA_H): every enum value present, every name and alias right,
// deprecations marked; lookups; every entry described; values formatted for people.
#include "cu/attributes.hpp"
#include "test_paths.hpp"  // WARPLAB_SOURCE_DIR, WARPLAB_CUDA_H

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace {

using warplab::cu::attribute_table;
using warplab::cu::AttributeInfo;
using warplab::cu::find_attribute;

// The table's entry for an enum value (a scan: only the tests look values up).
const AttributeInfo* find_attribute_by_value(int value) {
  for (const AttributeInfo& a : attribute_table())
    if (a.value == value) return &a;
  return nullptr;
}

struct HeaderName {
  std::string name;  // lower case, prefix removed
  bool deprecated;   // its doc comment says so
};

// value -> the names cuda.h gives it, from the body of `typedef enum CUdevice_attribute_enum`.
std::map<int, std::vector<HeaderName>> parse_cuda_h() {
  std::ifstream in(WARPLAB_CUDA_H);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const auto begin = text.find("typedef enum CUdevice_attribute_enum");
  const auto end = text.find("} CUdevice_attribute;", begin);
  EXPECT_NE(begin, std::string::npos) << "enum not found in " << WARPLAB_CUDA_H;
  EXPECT_NE(end, std::string::npos);
  std::map<int, std::vector<HeaderName>> out;
  if (begin == std::string::npos || end == std::string::npos) return out;
  const std::string body = text.substr(begin, end - begin);
  const std::regex line(R"(CU_DEVICE_ATTRIBUTE_(\w+)\s*=\s*(\d+)\s*,?[ \t]*(/\*\*<([^\n]*))?)");
  for (std::sregex_iterator it(body.begin(), body.end(), line), e; it != e; ++it) {
    std::string name = (*it)[1];
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string comment = (*it)[4];
    const bool dep =
        comment.find("Deprecated") != std::string::npos || comment.find("deprecated") != std::string::npos;
    out[std::stoi((*it)[2])].push_back({name, dep});
  }
  return out;
}

const std::map<int, std::vector<HeaderName>>& header() {
  static const auto h = parse_cuda_h();
  return h;
}

TEST(AttributeTable, HeaderParsed) {
  // A parser that finds nothing would make every test below pass vacuously.
  EXPECT_GE(header().size(), 140u);
  EXPECT_EQ(header().count(0), 0u);
  EXPECT_TRUE(header().count(CU_DEVICE_ATTRIBUTE_MAX - 1));
}

TEST(AttributeTable, EveryEnumValueIsInTheTable) {
  std::string missing;
  for (const auto& [value, names] : header())
    if (!find_attribute_by_value(value)) {
      std::string upper = names.front().name;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      missing += " CU_DEVICE_ATTRIBUTE_" + upper;
    }
  EXPECT_EQ(missing, "") << "add these to host/cu/attributes.cpp";
  EXPECT_EQ(attribute_table().size(), header().size());
}

TEST(AttributeTable, NamesAndAliasesAgreeWithTheHeader) {
  for (const AttributeInfo& a : attribute_table()) {
    auto it = header().find(a.value);
    ASSERT_NE(it, header().end()) << a.name << " = " << a.value << " is not in cuda.h";
    const auto& names = it->second;
    // With several names for one value, the entry is the one not marked deprecated and
    // the others are its aliases; with one name, the entry is that name.
    std::set<std::string> want_aliases;
    std::string want_name = names.front().name;
    if (names.size() > 1)
      for (const HeaderName& n : names) {
        if (n.deprecated)
          want_aliases.insert(n.name);
        else
          want_name = n.name;
      }
    EXPECT_EQ(a.name, want_name) << "value " << a.value;
    std::set<std::string> got(a.aliases.begin(), a.aliases.end());
    EXPECT_EQ(got, want_aliases) << a.name;
  }
}

TEST(AttributeTable, DeprecationsMatchTheHeader) {
  for (const AttributeInfo& a : attribute_table()) {
    const auto& names = header().at(a.value);
    bool dep = false;
    for (const HeaderName& n : names)
      if (n.name == a.name) dep = n.deprecated;
    EXPECT_EQ(a.deprecated, dep) << a.name;
  }
  EXPECT_TRUE(find_attribute("gpu_overlap")->deprecated);
  EXPECT_FALSE(find_attribute("warp_size")->deprecated);
}

TEST(AttributeTable, EveryEntryIsDescribed) {
  const auto groups = warplab::cu::attribute_groups();
  const auto units = warplab::cu::attribute_units();
  std::set<std::string_view> names, used_groups;
  int last = 0;
  for (const AttributeInfo& a : attribute_table()) {
    EXPECT_TRUE(names.insert(a.name).second) << "duplicate " << a.name;
    EXPECT_GT(a.value, last) << a.name << ": table not in enum order";
    last = a.value;
    EXPECT_NE(std::find(groups.begin(), groups.end(), a.group), groups.end()) << a.name;
    EXPECT_NE(std::find(units.begin(), units.end(), a.unit), units.end()) << a.name;
    EXPECT_GE(a.meaning.size(), 10u) << a.name;
    EXPECT_LE(a.meaning.size(), 100u) << a.name << ": one short line";
    EXPECT_EQ(a.meaning.find('\n'), std::string_view::npos) << a.name;
    used_groups.insert(a.group);
  }
  EXPECT_EQ(used_groups.size(), groups.size()) << "a group with no attribute";
}

TEST(AttributeTable, Lookups) {
  const AttributeInfo* w = find_attribute("warp_size");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->value, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  EXPECT_EQ(find_attribute("WARP_SIZE"), w);
  EXPECT_EQ(find_attribute("CU_DEVICE_ATTRIBUTE_WARP_SIZE"), w);
  EXPECT_EQ(find_attribute_by_value(CU_DEVICE_ATTRIBUTE_WARP_SIZE), w);
  const AttributeInfo* smem = find_attribute("shared_memory_per_block");  // an alias
  ASSERT_NE(smem, nullptr);
  EXPECT_EQ(smem->name, "max_shared_memory_per_block");
  EXPECT_EQ(find_attribute("virtual_address_management_supported")->value,
            CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED);
  EXPECT_EQ(find_attribute("warp"), nullptr);
  EXPECT_EQ(find_attribute(""), nullptr);
  EXPECT_EQ(find_attribute_by_value(0), nullptr);
  EXPECT_EQ(find_attribute_by_value(CU_DEVICE_ATTRIBUTE_MAX), nullptr);
}

std::string fmt(const char* name, long long v) { return warplab::cu::format_value(*find_attribute(name), v); }

TEST(AttributeFormat, ValuesWithUnits) {
  EXPECT_EQ(fmt("max_shared_memory_per_block", 49152), "49152 (48 KiB)");
  EXPECT_EQ(fmt("l2_cache_size", 52428800), "52428800 (50 MiB)");
  EXPECT_EQ(fmt("texture_pitch_alignment", 32), "32 bytes");
  EXPECT_EQ(fmt("clock_rate", 1980000), "1980000 kHz (1.98 GHz)");
  EXPECT_EQ(fmt("clock_rate", 877000), "877000 kHz (877 MHz)");
  EXPECT_EQ(fmt("cooperative_launch", 1), "yes");
  EXPECT_EQ(fmt("cooperative_launch", 0), "no");
  EXPECT_EQ(fmt("max_threads_per_block", 1024), "1024 threads");
  EXPECT_EQ(fmt("multiprocessor_count", 132), "132");
  EXPECT_EQ(fmt("compute_mode", 0), "0 (default)");
  EXPECT_EQ(fmt("compute_mode", 7), "7");
  EXPECT_EQ(fmt("mempool_supported_handle_types", 9), "9 (posix_fd, fabric)");
  EXPECT_EQ(fmt("mempool_supported_handle_types", 0), "0 (none)");
  EXPECT_EQ(fmt("mem_decompress_algorithm_mask", 8 | 1), "9 (deflate, 0x8)");
  EXPECT_EQ(fmt("gpu_pci_device_id", 0x233010de), "590352606 (0x233010de)");
}

TEST(AttributeFormat, Bytes) {
  using warplab::cu::format_bytes;
  EXPECT_EQ(format_bytes(0), "0 bytes");
  EXPECT_EQ(format_bytes(1), "1 byte");
  EXPECT_EQ(format_bytes(1023), "1023 bytes");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(232448), "227 KiB");
  EXPECT_EQ(format_bytes(2147483647), "~2 GiB");
  EXPECT_EQ(format_bytes(85029158912ull), "79.2 GiB");
}

}  // namespace
