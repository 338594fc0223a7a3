// profile_test.cpp: device profiles without a GPU: JSON round trips, the synthetic
// fixture (tests/data/profiles), every malformed profile in tests/data/profiles/bad with the
// sentence a user sees, lookup by name or path, and DeviceSnapshot::summary.
#include "cu/profile.hpp"
#include "test_paths.hpp"  // WARPLAB_SOURCE_DIR, WARPLAB_CUDA_H

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cu/attributes.hpp"
#include "cu/error.hpp"

namespace {

namespace cu = warplab::cu;
const std::string kRoot = WARPLAB_SOURCE_DIR;
const std::string kFixture = kRoot + "/tests/data/profiles/synthetic_profile.json";

// The message of the cu::Error that `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const cu::Error& e) {
    EXPECT_EQ(e.code(), CUDA_SUCCESS) << "bad input must carry CUDA_SUCCESS: " << e.what();
    EXPECT_EQ(e.kind(), warplab::ErrorKind::bad_input) << e.what();
    return e.what();
  }
  return "";
}

// A snapshot with every table attribute set to a distinct value, plus one unknown name.
cu::DeviceSnapshot made_up() {
  cu::DeviceSnapshot d;
  d.name = "made-up device";
  d.cc_major = 8;
  d.cc_minor = 6;
  d.total_memory = 25769803776ull;
  d.uuid = "01234567-89ab-cdef-0123-456789abcdef";
  d.driver_version = 12040;
  d.warplab_version = "9.9.9";
  d.captured = "2001-02-03T04:05:06Z";
  for (const cu::AttributeInfo& a : cu::attribute_table()) d.attributes[std::string(a.name)] = a.value * 3;
  d.attributes["compute_capability_major"] = 8;
  d.attributes["compute_capability_minor"] = 6;
  d.attributes["warp_size"] = 32;  // range-checked: a power of two
  d.attributes["from_a_newer_cuda"] = -5;
  return d;
}

void expect_same(const cu::DeviceSnapshot& a, const cu::DeviceSnapshot& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.cc_major, b.cc_major);
  EXPECT_EQ(a.cc_minor, b.cc_minor);
  EXPECT_EQ(a.total_memory, b.total_memory);
  EXPECT_EQ(a.uuid, b.uuid);
  EXPECT_EQ(a.driver_version, b.driver_version);
  EXPECT_EQ(a.warplab_version, b.warplab_version);
  EXPECT_EQ(a.captured, b.captured);
  EXPECT_EQ(a.attributes, b.attributes);
}

TEST(Profile, JsonRoundTrip) {
  const cu::DeviceSnapshot d = made_up();
  const nlohmann::json j = cu::to_json(d);
  EXPECT_EQ(j["format"], "warplab-profile");
  EXPECT_EQ(j["format_version"], 1);
  EXPECT_EQ(j["compute_capability"], "8.6");
  const cu::DeviceSnapshot back = cu::from_json(j, "made-up");
  expect_same(d, back);
  EXPECT_EQ(back.source, "profile made-up");
  EXPECT_FALSE(back.live());
  expect_same(d, cu::parse_profile(cu::profile_text(d), "text"));
}

TEST(Profile, TextKeepsTheDocumentedKeyOrder) {
  const std::string t = cu::profile_text(made_up());
  EXPECT_EQ(t.rfind("{\n  \"format\": \"warplab-profile\",\n  \"format_version\": 1,\n  \"name\"", 0), 0u)
      << t;
  EXPECT_LT(t.find("\"captured\""), t.find("\"attributes\""));
  const std::string all = cu::profile_text(std::vector<cu::DeviceSnapshot>{made_up(), made_up()});
  EXPECT_EQ(nlohmann::json::parse(all).size(), 2u);
}

TEST(Profile, SyntheticFixtureLoads) {
  const cu::DeviceSnapshot d = cu::load_profile(kFixture);
  EXPECT_EQ(d.name, "synthetic test device");
  EXPECT_EQ(d.source, "profile " + kFixture);
  EXPECT_EQ(d.arch(), "sm_90");
  EXPECT_EQ(d.attr("future_attribute_from_newer_cuda"), 7) << "unknown names are kept";
  EXPECT_FALSE(d.attr("d3d12_cig_supported")) << "the fixture leaves this one out";
  EXPECT_EQ(d.require("warp_size"), 32);
  EXPECT_NE(error_of([&] {
              d.require("d3d12_cig_supported");
            }).find("attribute 'd3d12_cig_supported' is missing from profile "),
            std::string::npos);
  expect_same(d, cu::parse_profile(cu::profile_text(d), "again"));
}

TEST(Profile, AliasKeysAreStoredUnderTheCurrentName) {
  nlohmann::json j = cu::to_json(made_up());
  j["attributes"].erase("max_shared_memory_per_block");
  j["attributes"]["shared_memory_per_block"] = 1234;
  EXPECT_EQ(cu::from_json(j, "x").attr("max_shared_memory_per_block"), 1234);
}

// Values that used to hang the first kernel lookup (warp_size 0, 2^31 - 1 threads per
// block) or divide by zero are refused when the profile loads, naming the field and range.
TEST(Profile, OutOfRangeValuesAreRefusedWithTheirRange) {
  const std::vector<std::tuple<std::string, long long, std::string>> cases = {
      {"warp_size", 0, "attributes.warp_size = 0 is outside 1..64"},
      {"warp_size", -32, "attributes.warp_size = -32 is outside 1..64"},
      {"warp_size", 48, "attributes.warp_size = 48 is not a power of two"},
      {"max_threads_per_block", 2147483647,
       "attributes.max_threads_per_block = 2147483647 is outside 1..16384"},
      {"multiprocessor_count", 0, "attributes.multiprocessor_count = 0 is outside 1..65536"},
      {"max_registers_per_multiprocessor", -1, "is outside 1..16777216"},
      {"clock_rate", -7, "attributes.clock_rate = -7 is outside -1..9007199254740992"},
  };
  for (const auto& [field, value, want] : cases) {
    nlohmann::json j = cu::to_json(made_up());
    j["attributes"][field] = value;
    const std::string got = error_of([&] { cu::from_json(j, "p.json"); });
    EXPECT_NE(got.find(want), std::string::npos) << field << " = " << value << ": " << got;
    EXPECT_EQ(got.rfind("profile 'p.json': ", 0), 0u) << got;
  }
}

// Each malformed file and the sentence it must produce (after "profile '<path>': ").
const std::map<std::string, std::string> kBad = {
    {"not_json.json", "invalid JSON at line 3, column 11: syntax error while parsing value"},
    {"truncated.json", "invalid JSON at line "},
    {"empty.json", "the file is empty"},
    {"wrong_format.json", "field 'format' must be \"warplab-profile\" (not a warplab profile)"},
    {"missing_name.json", "field 'name' is missing"},
    {"missing_attributes.json", "field 'attributes' is missing"},
    {"future_version.json", "format_version 2 is newer than this warplab reads (1); update warplab"},
    {"attribute_string.json", "field 'attributes.warp_size' must be an integer"},
    {"attribute_float.json", "field 'attributes.clock_rate' must be an integer"},
    {"memory_string.json", "field 'total_memory' must be an integer"},
    {"bad_compute_capability.json", "field 'compute_capability' must look like \"9.0\", not \"sm_90\""},
    {"capability_mismatch.json",
     "field 'compute_capability' is \"8.0\" but attributes.compute_capability_major is 9"},
    {"array.json",
     "holds a JSON array (the output of attrs --json --device all); save one device's profile "
     "per file"},
    {"not_object.json", "must hold a JSON object"},
};

TEST(Profile, MalformedFilesSayWhatAndWhere) {
  const std::string dir = kRoot + "/tests/data/profiles/bad";
  size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    auto it = kBad.find(file);
    ASSERT_NE(it, kBad.end()) << "tests/data/profiles/bad/" << file << " has no expected message here";
    const std::string path = entry.path().string();
    const std::string msg = error_of([&] { cu::load_profile(path); });
    EXPECT_EQ(msg.rfind("profile '" + path + "': " + it->second, 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
    ++seen;
  }
  EXPECT_EQ(seen, kBad.size());
}

TEST(Profile, WrongTypesAndMissingFields) {
  const nlohmann::json good = cu::to_json(made_up());
  for (const char* key :
       {"format", "format_version", "name", "compute_capability", "total_memory", "attributes"}) {
    nlohmann::json j = good;
    j.erase(key);
    EXPECT_EQ(error_of([&] { cu::from_json(j, "p.json"); }),
              std::string("profile 'p.json': field '") + key + "' is missing");
  }
  for (const char* key : {"uuid", "driver_version", "warplab_version", "captured"}) {
    nlohmann::json j = good;
    j.erase(key);
    EXPECT_EQ(error_of([&] { cu::from_json(j, "p.json"); }), "") << key << " is optional";
  }
  nlohmann::json j = good;
  j["name"] = 5;
  EXPECT_EQ(error_of([&] { cu::from_json(j, "p.json"); }), "profile 'p.json': field 'name' must be a string");
  j = good;
  j["attributes"]["warp_size"] = true;
  EXPECT_EQ(error_of([&] { cu::from_json(j, "p.json"); }),
            "profile 'p.json': field 'attributes.warp_size' must be an integer");
  j = good;
  j["driver_version"] = "13.0";
  EXPECT_EQ(error_of([&] { cu::from_json(j, "p.json"); }),
            "profile 'p.json': field 'driver_version' must be an integer");
  j = good;
  j["attributes"] = nlohmann::json::array();
  EXPECT_EQ(error_of([&] { cu::from_json(j, "p.json"); }),
            "profile 'p.json': field 'attributes' must be an object of name: integer");
}

TEST(Profile, FindingProfiles) {
  const std::string shipped =
      cu::embedded_profiles().empty() ? "this build ships no profiles; give" : "shipped profiles are ";
  const std::string unknown = error_of([] { cu::load_profile("no-such-gpu"); });
  EXPECT_EQ(unknown.rfind("unknown profile 'no-such-gpu': " + shipped, 0), 0u) << unknown;
  EXPECT_NE(unknown.find("a path to a .json file"), std::string::npos);
  // A shipped name mistyped by a letter: the nearest one, before the list.
  if (cu::find_embedded_profile("rtx4090")) {
    const std::string near = error_of([] { cu::load_profile("rtx490"); });
    EXPECT_EQ(near.rfind("unknown profile 'rtx490'; did you mean 'rtx4090'? Shipped profiles are ", 0), 0u)
        << near;
    EXPECT_NE(error_of([] { cu::load_profile("A10"); }).find("did you mean 'a100'?"), std::string::npos);
    // As people write a GPU's name: its number alone, spaces, the brand, no underscore.
    const std::pair<std::string, std::string> written[] = {{"4090", "rtx4090"},
                                                           {"RTX 4090", "rtx4090"},
                                                           {"GeForce RTX 5090", "rtx5090"},
                                                           {"sm90", "sm_90"},
                                                           {"SM-120", "sm_120"}};
    for (const auto& w : written)
      EXPECT_NE(error_of([&] { cu::load_profile(w.first); }).find("did you mean '" + w.second + "'?"),
                std::string::npos)
          << w.first;
    // A part of several names suggests none of them.
    EXPECT_EQ(error_of([] { cu::load_profile("100"); }).find("did you mean"), std::string::npos);
  }
  EXPECT_EQ(error_of([] { cu::load_profile("nowhere/x.json"); }), "profile 'nowhere/x.json': no such file");
  const std::string dir = kRoot + "/tests/data/profiles";
  EXPECT_EQ(error_of([&] { cu::load_profile(dir); }),
            "profile '" + dir + "': is a directory, not a .json file");
}

TEST(Profile, DefaultProfileChoice) {
  EXPECT_EQ(cu::pick_default_profile({"a100", "h200", "h100"}), "h100");
  EXPECT_EQ(cu::pick_default_profile({"a100", "H200"}), "H200");
  EXPECT_EQ(cu::pick_default_profile({"a100", "l4"}), "a100");
  EXPECT_EQ(cu::pick_default_profile({}), "");
}

// The profiles shipped in profiles/ must load, by any case; the captured ones (h100,
// h200) hold nearly every attribute (architecture profiles: profile_architecture_test.cpp).
TEST(Profile, EmbeddedProfilesLoad) {
  if (cu::embedded_profiles().empty()) GTEST_SKIP() << "no profiles/*.json in this build";
  for (const cu::EmbeddedProfile& p : cu::embedded_profiles()) {
    std::string upper = p.name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const cu::DeviceSnapshot d = cu::load_profile(upper);
    EXPECT_EQ(d.source, std::string("profile ") + p.name);
    if (d.architecture) continue;
    size_t known = 0;
    for (const auto& [name, value] : d.attributes) known += cu::find_attribute(name) != nullptr;
    EXPECT_GE(known, cu::attribute_table().size() - 5) << p.name << ": a capture lacks attributes";
  }
  EXPECT_FALSE(cu::default_profile_name().empty());
}

TEST(Device, Summary) {
  cu::DeviceSnapshot d;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.total_memory = 150011019264ull;  // 139.7 GiB: whole GiB, rounded down
  d.attributes["multiprocessor_count"] = 132;
  EXPECT_EQ(d.summary(), "NVIDIA H200 (sm_90, 132 SMs, 139 GiB)");
  d.attributes.clear();
  d.total_memory = 512ull << 20;
  EXPECT_EQ(d.summary(), "NVIDIA H200 (sm_90, 512 MiB)");
}

}  // namespace
