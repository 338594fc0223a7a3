// profile_architecture_test.cpp: the shipped architecture profiles (profiles/sm_*.json,
// NVIDIA's documented limits) and products (profiles/a100.json ...: an architecture plus a
// name and an SM count), what "unknown" means to queries and to the calculator, and the
// whole-profile check at load (a partial `attrs NAME --json` listing is refused). The
// calculator's answers for sm_90 equal those for the captured h100 over a sweep. No GPU.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cu/error.hpp"
#include "cu/launch.hpp"
#include "cu/occupancy.hpp"
#include "cu/profile.hpp"

namespace {

namespace cu = warplab::cu;

const std::vector<std::string> kArchitectures = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"};
struct Product {
  std::string name, base, full_name;
  long long sms;
};
const std::vector<Product> kProducts = {{"a100", "sm_80", "NVIDIA A100", 108},
                                        {"l4", "sm_89", "NVIDIA L4", 58},
                                        {"rtx4090", "sm_89", "NVIDIA GeForce RTX 4090", 128},
                                        {"b200", "sm_100", "NVIDIA B200", 148},
                                        {"rtx5090", "sm_120", "NVIDIA GeForce RTX 5090", 170}};

// The sentence of the cu::Error f throws, of kind `want` ("" when it throws none).
std::string error_of(const std::function<void()>& f,
                     warplab::ErrorKind want = warplab::ErrorKind::bad_input) {
  try {
    f();
  } catch (const cu::Error& e) {
    EXPECT_EQ(e.kind(), want) << e.what();
    return e.what();
  }
  return "";
}

TEST(ArchitectureProfile, EachLoadsMarkedAndCited) {
  for (const std::string& name : kArchitectures) {
    SCOPED_TRACE(name);
    const cu::DeviceSnapshot d = cu::load_profile(name);
    EXPECT_TRUE(d.architecture);
    EXPECT_EQ(d.arch(), name) << "the file name is the compute capability";
    EXPECT_EQ(
        d.reference.rfind("Architecture limits, not a captured device: NVIDIA CUDA C++ Programming Guide", 0),
        0u)
        << d.reference;
    EXPECT_NE(d.reference.find("'Technical Specifications per Compute Capability'"), std::string::npos);
    EXPECT_NE(d.summary().find("SM count unknown; architecture limits, not a captured device)"),
              std::string::npos)
        << d.summary();
    // What the guide does not give is unknown, never 0: the SM count, the memory, clocks.
    for (const char* n : {"multiprocessor_count", "l2_cache_size", "clock_rate", "cooperative_launch"}) {
      EXPECT_TRUE(d.is_unknown(n)) << n;
      EXPECT_FALSE(d.attr(n)) << n;
    }
    EXPECT_TRUE(d.is_unknown("total_memory"));
    EXPECT_EQ(d.total_memory, 0u);
    // A value the profile does not know: not_in_profile (exit 3, as a GPU-only call).
    EXPECT_EQ(error_of([&] { d.require("multiprocessor_count"); }, warplab::ErrorKind::not_in_profile),
              "attribute 'multiprocessor_count' is unknown for profile " + name +
                  " (architecture limits, not a captured device)");
    // What it does give, and the guide's relations between the values.
    EXPECT_FALSE(d.is_unknown("warp_size"));
    EXPECT_EQ(d.require("warp_size"), 32);
    EXPECT_EQ(d.require("max_shared_memory_per_block_optin") + d.require("reserved_shared_memory_per_block"),
              d.require("max_shared_memory_per_multiprocessor"))
        << "1 KB of the SM's shared memory is reserved per block";
    EXPECT_EQ(d.require("max_shared_memory_per_block"), 48 * 1024) << "above 48 KB needs the opt-in";
    EXPECT_EQ(d.require("cluster_launch"), d.cc_major >= 9 ? 1 : 0);
  }
}

// A shipped architecture profile is exactly what `attrs --profile sm_86 --json` writes:
// the loader keeps every value, every null, the kind and the reference.
TEST(ArchitectureProfile, WrittenBackUnchanged) {
  for (const std::string& name : kArchitectures) {
    const cu::EmbeddedProfile* p = cu::find_embedded_profile(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(cu::profile_text(cu::load_profile(name)), p->json) << name;
  }
}

TEST(ArchitectureProfile, ProductIsItsArchitectureWithNameAndSmCount) {
  for (const Product& pr : kProducts) {
    SCOPED_TRACE(pr.name);
    const cu::DeviceSnapshot d = cu::load_profile(pr.name);
    const cu::DeviceSnapshot base = cu::load_profile(pr.base);
    EXPECT_EQ(d.name, pr.full_name);
    EXPECT_EQ(d.source, "profile " + pr.name);
    EXPECT_EQ(d.arch(), pr.base);
    EXPECT_TRUE(d.architecture);
    EXPECT_EQ(d.require("multiprocessor_count"), pr.sms);
    EXPECT_FALSE(d.is_unknown("multiprocessor_count"));
    EXPECT_TRUE(d.is_unknown("total_memory"));
    EXPECT_EQ(d.reference.rfind(base.reference, 0), 0u) << "the guide first, then the SM count's source";
    EXPECT_NE(d.reference.find(std::to_string(pr.sms) + " SMs: "), std::string::npos) << d.reference;
    EXPECT_EQ(d.summary(), pr.full_name + " (" + pr.base + ", " + std::to_string(pr.sms) +
                               " SMs; architecture limits, not a captured device)");
    cu::DeviceSnapshot without = d;
    without.attributes.erase("multiprocessor_count");
    cu::DeviceSnapshot base_without = base;
    base_without.attributes.erase("multiprocessor_count");
    EXPECT_EQ(without.attributes, base_without.attributes) << "a product changes only the SM count";
    // Written out, a product is a whole profile (no "base") that loads to the same thing.
    const std::string text = cu::profile_text(d);
    EXPECT_EQ(text.find("\"base\""), std::string::npos);
    const cu::DeviceSnapshot back = cu::parse_profile(text, "back.json");
    EXPECT_EQ(back.attributes, d.attributes);
    EXPECT_EQ(back.unknown, d.unknown);
    EXPECT_EQ(back.reference, d.reference);
    EXPECT_TRUE(back.architecture);
  }
}

TEST(ArchitectureProfile, UnknownShippedNameListsEveryKind) {
  const std::string msg = error_of([] { cu::load_profile("h110"); });
  EXPECT_NE(
      msg.find("h100, h200 (captured); a100, b200, l4, rtx4090, rtx5090 (products); sm_80, sm_86, sm_89, "
               "sm_90, sm_100, sm_120 (architectures); or give a path to a .json file"),
      std::string::npos)
      << msg;
}

// A user's own product: a shipped architecture with a name and an SM count.
TEST(ArchitectureProfile, UserProductFiles) {
  nlohmann::json j = {{"format", "warplab-profile"},
                      {"format_version", 1},
                      {"name", "my RTX 3060"},
                      {"base", "SM_86"},
                      {"attributes", {{"multiprocessor_count", 28}}}};
  const cu::DeviceSnapshot d = cu::from_json(j, "3060.json");
  EXPECT_EQ(d.summary(), "my RTX 3060 (sm_86, 28 SMs; architecture limits, not a captured device)");
  EXPECT_EQ(d.require("max_threads_per_multiprocessor"), 1536);

  auto fails = [&](nlohmann::json p, const std::string& want) {
    const std::string got = error_of([&] { cu::from_json(p, "p.json"); });
    EXPECT_EQ(got.rfind("profile 'p.json': " + want, 0), 0u) << got;
  };
  nlohmann::json p = j;
  p["base"] = "h100";
  fails(
      p,
      "field 'base' must name a shipped architecture profile, not \"h100\" (shipped: h100, h200 (captured)");
  p["base"] = "a100";
  fails(p, "field 'base' must name a shipped architecture profile, not \"a100\"");
  p["base"] = "sm_99";
  fails(p, "field 'base' must name a shipped architecture profile, not \"sm_99\"");
  p = j;
  p["compute_capability"] = "8.0";
  fails(p, "field 'compute_capability' is \"8.0\" but its base SM_86 is \"8.6\"");
  p = j;
  p["kind"] = "device";
  fails(p, "field 'kind' must be \"architecture\" in a profile with a 'base'");
  p = j;
  p["attributes"]["warp_size"] = nullptr;
  fails(p, "attributes.warp_size is null (unknown), but launch checks and occupancy need its value");
  p = j;
  p["attributes"]["multiprocessor_count"] = 0;
  fails(p, "attributes.multiprocessor_count = 0 is outside 1..65536");
  p = j;
  p["name"] = "";
  fails(p, "field 'name' must not be empty");
  p = j;
  p.erase("name");
  fails(p, "field 'name' is missing");
}

// The whole-profile check: what `attrs warp --json > p.json` writes is refused when it
// loads, naming what is missing, instead of failing later in a script.
TEST(ArchitectureProfile, PartialListingIsNotAProfile) {
  nlohmann::json whole = cu::to_json(cu::load_profile("h100"));
  nlohmann::json partial = whole;
  partial["attributes"] = {{"warp_size", 32}};
  EXPECT_EQ(
      error_of([&] { cu::from_json(partial, "p.json"); }),
      "profile 'p.json': attributes 'multiprocessor_count', 'max_threads_per_block', "
      "'max_threads_per_multiprocessor' and 10 more are missing, which launch checks and occupancy need: a "
      "partial listing (attrs NAME --json) is not a profile; attrs --json with no names writes a whole one");
  nlohmann::json one = whole;
  one["attributes"].erase("multiprocessor_count");
  EXPECT_EQ(
      error_of([&] { cu::from_json(one, "p.json"); }),
      "profile 'p.json': attribute 'multiprocessor_count' is missing, which launch checks and occupancy "
      "need: a partial listing (attrs NAME --json) is not a profile; attrs --json with no names writes a "
      "whole one");
  nlohmann::json two = whole;
  two["attributes"].erase("max_grid_dim_y");
  two["attributes"].erase("warp_size");
  EXPECT_NE(error_of([&] {
              cu::from_json(two, "p.json");
            }).find("attributes 'warp_size' and 'max_grid_dim_y' are missing"),
            std::string::npos);
  // A capture may say it does not know its SM count (null), never its warp size.
  nlohmann::json sms = whole;
  sms["attributes"]["multiprocessor_count"] = nullptr;
  const cu::DeviceSnapshot d = cu::from_json(sms, "p.json");
  EXPECT_TRUE(d.is_unknown("multiprocessor_count"));
  EXPECT_FALSE(d.is_unknown("l2_cache_size")) << "a capture is not an architecture profile";
  EXPECT_EQ(cu::device_limits(d).multiprocessor_count, 0);
  nlohmann::json kind = whole;
  kind["kind"] = "gpu";
  EXPECT_EQ(
      error_of([&] { cu::from_json(kind, "p.json"); }),
      "profile 'p.json': field 'kind' must be \"device\" (a captured GPU) or \"architecture\", not \"gpu\"");
}

// The calculator works from what the profile gives: for sm_90 that is everything the
// captured H100 gives it, so every answer over the sweep is the same.
TEST(ArchitectureProfile, Sm90OccupancyEqualsTheCapturedH100) {
  const cu::DeviceLimits arch = cu::device_limits(cu::load_profile("sm_90"));
  const cu::DeviceLimits h100 = cu::device_limits(cu::load_profile("h100"));
  EXPECT_EQ(arch.multiprocessor_count, 0) << "unknown for the architecture";
  EXPECT_EQ(h100.multiprocessor_count, 132);
  int cases = 0, nonzero = 0;
  for (int block : {1, 32, 33, 64, 96, 100, 128, 192, 256, 384, 512, 640, 768, 1000, 1024, 1025})
    for (int regs : {0, 16, 24, 32, 40, 48, 64, 72, 96, 128, 168, 200, 255, 256})
      for (int stat : {0, 1024, 20000, 48 * 1024})
        for (long long dyn :
             {0LL, 1LL, 4096LL, 48 * 1024LL, 100 * 1024LL, 200 * 1024LL, 227 * 1024LL, 228 * 1024LL})
          for (int carveout : {-1, 0, 25, 50, 100})
            for (int barriers : {0, 1, 4}) {
              const cu::KernelLimits k{regs, stat, 0, barriers};
              const cu::OccupancyResult a = cu::occupancy(k, block, dyn, arch, carveout);
              const cu::OccupancyResult b = cu::occupancy(k, block, dyn, h100, carveout);
              const std::string at = "block " + std::to_string(block) + ", " + std::to_string(regs) +
                                     " regs, " + std::to_string(stat) + "+" + std::to_string(dyn) +
                                     " shared, carveout " + std::to_string(carveout);
              ASSERT_EQ(a.blocks_per_sm, b.blocks_per_sm) << at;
              ASSERT_EQ(a.limiter, b.limiter) << at;
              ASSERT_EQ(a.limiting_mask, b.limiting_mask) << at;
              ASSERT_EQ(a.occupancy, b.occupancy) << at;
              ASSERT_EQ(a.shared_per_sm, b.shared_per_sm) << at;
              ASSERT_EQ(a.regs_per_block, b.regs_per_block) << at;
              ASSERT_EQ(a.reason, b.reason) << at;
              ++cases;
              nonzero += a.blocks_per_sm > 0;
            }
  EXPECT_GT(nonzero, cases / 4) << "the sweep must reach launchable configurations";
  EXPECT_GT(cases - nonzero, 0) << "and ones that cannot launch";
}

// Launch checks work from what is known: per-block limits are the same as on the H100;
// a cooperative grid needs the SM count, so the architecture cannot refuse one as too large.
TEST(ArchitectureProfile, LaunchChecksUseWhatIsKnown) {
  const cu::DeviceLimits arch = cu::device_limits(cu::load_profile("sm_90"));
  const cu::DeviceLimits h100 = cu::device_limits(cu::load_profile("h100"));
  const cu::KernelLimits k{32, 0, 0, 1};
  cu::LaunchConfig c;
  c.grid = {100000, 1, 1};
  for (unsigned block : {1u, 1024u, 1025u}) {
    c.block = {block, 1, 1};
    const auto a = cu::check(c, k, arch), b = cu::check(c, k, h100);
    ASSERT_EQ(bool(a), bool(b)) << block;
    if (a) {
      EXPECT_EQ(a->sentence, b->sentence);
    }
  }
  c.block = {256, 1, 1};
  c.shared_bytes = 300 * 1024;
  ASSERT_TRUE(cu::check(c, k, arch));
  EXPECT_EQ(cu::check(c, k, arch)->sentence, cu::check(c, k, h100)->sentence);
  c.shared_bytes = 0;
  c.cooperative = true;
  ASSERT_TRUE(cu::check(c, k, h100)) << "100000 blocks are more than 132 SMs hold";
  EXPECT_FALSE(cu::check(c, k, arch)) << "unknown SM count: not refused offline";
  // A kernel of which no block fits on an SM (more named barriers than the SM has) is
  // refused whatever the SM count.
  const cu::KernelLimits barriers{32, 0, 0, 65};
  ASSERT_TRUE(cu::check(c, barriers, arch));
  EXPECT_EQ(cu::check(c, barriers, arch)->sentence,
            "cooperative grid of 100000 blocks: no block fits on an SM (limited by barriers)");
}

}  // namespace
