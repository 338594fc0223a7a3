// counters_test.cpp: hardware counter names checked offline with the toolkit's CUPTI host
// library (no GPU): every metric of every named set exists for GH100 (the chip of the
// H100 and H200), short names are unique, "did you mean" for misspelled sets and raw
// names, the replay passes per set are CUPTI's, a chip that lacks a metric, the chip of a
// profile, the CUPTI error sentences, and the sentence when CUPTI cannot be loaded.
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "cu/cupti.hpp"
#include "cu/metric_host.hpp"
#include "cu/profile.hpp"
#include "lab/counters.hpp"
#include "lab_test_util.hpp"
#include "rtc_test_util.hpp"

namespace cu = warplab::cu;
namespace lab = warplab::lab;
using warplab::test::error_of;

namespace {

// Sets an environment variable for one scope, restoring the old value after.
class EnvVar {
 public:
  EnvVar(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~EnvVar() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The sentence of the cu::Error f throws ("" when none).
template <class F>
std::string cu_error_of(F&& f) {
  try {
    f();
  } catch (const cu::Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(what, part)                                                             \
  do {                                                                                     \
    const std::string wl_what_ = (what);                                                   \
    EXPECT_NE(wl_what_.find(part), std::string::npos) << wl_what_ << " lacks: " << (part); \
  } while (0)

// A sanitizer build (.ci/run's Clang build with AddressSanitizer) cannot load CUPTI's
// libnvperf_host.so: libcupti opens it with RTLD_DEEPBIND, which the sanitizer runtime
// refuses by ending the process. The tests that evaluate metrics skip there; the GCC build
// of step 1 runs them.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif
#define SKIP_IF_SANITIZED() \
  if (kSanitized) GTEST_SKIP() << "CUPTI cannot load under AddressSanitizer (RTLD_DEEPBIND)"

bool snake_case(std::string_view s) {
  if (s.empty() || !std::islower(static_cast<unsigned char>(s.front()))) return false;
  for (char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
          c == '_'))
      return false;
  return true;
}

}  // namespace

TEST(Counters, SetsAreTheDocumentedOnesInOrder) {
  std::vector<std::string> names;
  for (const auto& s : lab::counter_sets()) {
    names.emplace_back(s.name);
    EXPECT_FALSE(s.meaning.empty()) << s.name;
    EXPECT_FALSE(s.metrics.empty()) << s.name;
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"shared", "memory", "warps", "stalls", "sync", "local", "time"}));
  EXPECT_EQ(lab::find_counter_set("warps")->name, "warps");
  EXPECT_EQ(lab::find_counter_set("warp"), nullptr);
}

TEST(Counters, ShortNamesAreUniqueUnlessTheDefinitionIsOne) {
  std::map<std::string_view, const lab::CounterDef*> seen;
  for (const auto& s : lab::counter_sets())
    for (const auto& m : s.metrics) {
      EXPECT_TRUE(snake_case(m.name)) << m.name;
      EXPECT_FALSE(m.unit.empty()) << m.name;
      EXPECT_FALSE(m.meaning.empty()) << m.name;
      EXPECT_EQ(lab::find_counter_set(m.name), nullptr) << m.name << " is also a set's name";
      const auto [it, fresh] = seen.emplace(m.name, &m);
      if (fresh) continue;
      EXPECT_EQ(it->second->raw, m.raw) << m.name << " has two definitions";
      EXPECT_EQ(it->second->per, m.per) << m.name << " has two definitions";
      EXPECT_EQ(it->second->of, m.of) << m.name << " has two definitions";
      EXPECT_EQ(it->second->unit, m.unit) << m.name << " has two definitions";
    }
}

// The claim the named sets rest on: each CUPTI name is one the GH100 has, with its rollup.
TEST(Counters, EveryMetricOfEverySetExistsForGH100) {
  SKIP_IF_SANITIZED();
  const cu::MetricHost host("GH100");
  for (const auto& s : lab::counter_sets()) {
    for (const auto& m : s.metrics)
      for (std::string_view part : {m.raw, m.per, m.of}) {
        if (part.empty()) continue;
        // The first alternative is the GH100's name (later ones are for other chips).
        const std::string first(part.substr(0, part.find('|')));
        EXPECT_TRUE(host.properties(first).has_value()) << s.name << "." << m.name << ": " << first;
        EXPECT_NE(first.find('.'), std::string::npos) << first << " needs a rollup";
      }
    const lab::CounterSelection sel = lab::select_counters({std::string(s.name)}, "GH100");
    EXPECT_TRUE(sel.unavailable.empty()) << s.name;
    EXPECT_EQ(sel.counters.size(), s.metrics.size()) << s.name;
    for (const auto& c : sel.counters) EXPECT_EQ(c.set, s.name);
  }
}

// Passes per set are what cuptiProfilerHostGetNumOfPasses says for the metrics collected.
TEST(Counters, PassesPerSetAreCuptis) {
  SKIP_IF_SANITIZED();
  std::map<std::string, std::size_t> passes;
  for (const auto& s : lab::counter_sets()) {
    const lab::CounterSelection sel = lab::select_counters({std::string(s.name)}, "GH100");
    cu::MetricHost fresh("GH100");
    std::vector<std::uint8_t> image = fresh.config_image(sel.collect);
    EXPECT_FALSE(image.empty()) << s.name;
    EXPECT_EQ(sel.passes, cu::MetricHost::passes(image)) << s.name;
    EXPECT_GE(sel.passes, 1u) << s.name;
    EXPECT_LE(sel.passes, 16u) << s.name;
    passes[std::string(s.name)] = sel.passes;
  }
  // Counts of one unit fit one pass: shared memory, the two sync stalls, local memory.
  EXPECT_EQ(passes["shared"], 1u);
  EXPECT_EQ(passes["sync"], 1u);
  EXPECT_EQ(passes["local"], 1u);
  const lab::CounterSelection both = lab::select_counters({"shared", "stalls"}, "GH100");
  EXPECT_GE(both.passes, passes["stalls"]);
}

TEST(Counters, WordsMixSetsShortNamesAndRawNamesEachOnce) {
  SKIP_IF_SANITIZED();
  const auto sel = lab::select_counters({"sync", "stalls", "shared_st_conflicts_per_request",
                                         "gpu__time_duration.sum", "gpu__time_duration.sum"},
                                        "GH100");
  ASSERT_GE(sel.counters.size(), 4u);
  EXPECT_EQ(sel.counters[0].name, "stall_barrier");  // from sync, not repeated by stalls
  EXPECT_EQ(sel.counters[1].name, "stall_membar");
  std::set<std::string> names;
  for (const auto& c : sel.counters) EXPECT_TRUE(names.insert(c.name).second) << c.name << " twice";
  const auto& raw = sel.counters.back();
  EXPECT_EQ(raw.name, "gpu__time_duration.sum");
  EXPECT_EQ(raw.set, "");
  EXPECT_EQ(raw.unit, "nanosecond");  // CUPTI's own dimension and description
  EXPECT_FALSE(raw.meaning.empty());
  const auto& ratio = sel.counters[sel.counters.size() - 2];
  EXPECT_EQ(ratio.name, "shared_st_conflicts_per_request");
  EXPECT_EQ(ratio.unit, "conflicts/request");
  EXPECT_EQ(ratio.raw, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
  EXPECT_EQ(ratio.per, "smsp__inst_executed_op_shared_st.sum");
  std::set<std::string> collect(sel.collect.begin(), sel.collect.end());
  EXPECT_EQ(collect.size(), sel.collect.size()) << "a metric collected twice";
  EXPECT_TRUE(collect.count(ratio.per));
}

// branch_efficiency is CUPTI's percentage with the count it is a share of collected beside
// it, so that a kernel that branched nowhere is no value rather than 0 %.
TEST(Counters, BranchEfficiencyCollectsWhatItIsAShareOf) {
  SKIP_IF_SANITIZED();
  const auto sel = lab::select_counters({"branch_efficiency"}, "GH100");
  ASSERT_EQ(sel.counters.size(), 1u);
  EXPECT_EQ(sel.counters[0].raw, "smsp__sass_average_branch_targets_threads_uniform.pct");
  EXPECT_EQ(sel.counters[0].of, "smsp__sass_branch_targets.sum");
  EXPECT_EQ(sel.collect, (std::vector<std::string>{"smsp__sass_average_branch_targets_threads_uniform.pct",
                                                   "smsp__sass_branch_targets.sum"}));
}

// A word that is no set, short name or CUPTI name is said from warplab's own tables, before
// CUPTI loads: with no CUPTI at all it is still "did you mean", not "no CUPTI library".
TEST(Counters, AMisspellingIsSaidWithoutCupti) {
  const EnvVar none("WARPLAB_CUPTI_DIR", "/nonexistent/warplab-no-cupti");
  const std::string e = error_of([] { lab::select_counters({"shared", "bank_conflicts"}, "GH100"); });
  EXPECT_HAS(e,
             "unknown counter set or metric 'bank_conflicts': did you mean 'shared_ld_conflicts' or "
             "'shared_st_conflicts' (set shared)?");
  EXPECT_HAS(e, "warplab counters bank_conflicts lists the 4 metrics that match)");
  EXPECT_HAS(
      error_of([] { lab::resolve_counters({"list"}, "GH100"); }),
      "unknown counter set or metric 'list' (sets: shared, memory, warps, stalls, sync, local, time; or a "
      "CUPTI metric name; warplab counters lists them all)");
}

TEST(Counters, DidYouMean) {
  SKIP_IF_SANITIZED();
  EXPECT_HAS(error_of([] { lab::select_counters({"sahred"}, "GH100"); }),
             "unknown counter set or metric 'sahred': did you mean 'shared'?");
  EXPECT_HAS(error_of([] { lab::select_counters({"stall_barier"}, "GH100"); }),
             "did you mean 'stall_barrier'");
  const std::string nothing = error_of([] { lab::select_counters({"xyzzy"}, "GH100"); });
  EXPECT_HAS(
      nothing,
      "unknown counter set or metric 'xyzzy' (sets: shared, memory, warps, stalls, sync, local, time;");
  // A raw name with a wrong rollup, and one with a wrong base.
  EXPECT_HAS(
      error_of([] {
        lab::select_counters({"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sun"}, "GH100");
      }),
      "chip GH100 has no counter metric 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sun': did you "
      "mean 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum'");
  EXPECT_HAS(error_of([] {
               lab::select_counters({"l1tex__data_bank_conflict_pipe_lsu_mem_shared_op_st.sum"}, "GH100");
             }),
             "did you mean 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum'");
  // CUPTI knows a bare base name but cannot collect it.
  EXPECT_HAS(
      error_of([] { lab::select_counters({"dram__bytes"}, "GH100"); }),
      "counter metric 'dram__bytes' needs a rollup such as .sum or .avg: did you mean 'dram__bytes.sum'");
  EXPECT_HAS(error_of([] { lab::select_counters({}, "GH100"); }), "no counters asked for");
}

// CUPTI appends its list of base names to the host object on every call; the catalog of a
// chip lives as long as the process (a REPL, watch's standby), so "did you mean" once grew
// with every lookup: 374 characters, then 2,777 after 10 calls, 40,157 after 150.
TEST(Counters, DidYouMeanIsTheSameOnThe200thLookup) {
  SKIP_IF_SANITIZED();
  const cu::MetricHost host("GH100");
  const std::size_t counters = host.base_metrics(cu::MetricType::counter).size();
  EXPECT_GT(counters, 1000u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(host.base_metrics(cu::MetricType::counter).size(), counters);
  const std::set<std::string> once(host.base_metrics(cu::MetricType::counter).begin(),
                                   host.base_metrics(cu::MetricType::counter).end());
  EXPECT_EQ(once.size(), counters) << "a base name listed twice";

  auto ask = [] {
    return error_of(
        [] { lab::select_counters({"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.pct"}, "GH100"); });
  };
  auto timed = [&](int n) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) ask();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  const std::string first = ask();
  EXPECT_HAS(first, "did you mean 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.");
  EXPECT_LT(first.size(), 500u) << first;
  const double ten = timed(10);
  timed(180);
  const double last_ten = timed(10);
  EXPECT_EQ(ask(), first);
  EXPECT_LT(last_ten, 3 * ten + 0.05) << "10 lookups took " << ten << " s, then " << last_ten << " s";
  // An unknown base: at most three guesses, the same each time.
  const std::string base = error_of([] { lab::select_counters({"dram__bytez_read.sum"}, "GH100"); });
  EXPECT_HAS(base, "did you mean 'dram__bytes_read.sum'");
  EXPECT_EQ(error_of([] { lab::select_counters({"dram__bytez_read.sum"}, "GH100"); }), base);
}

// The memory this process holds, in kB (VmRSS).
long resident_kb() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

// CUPTI keeps ~60 bytes on every metric-properties call that finds a name: a REPL that
// resolves "shared" (14 lookups) again and again grew by ~0.9 kB a call. Each answer is
// kept, so the 20,000 lookups below (1.2 MB once) hold nothing more than the first.
TEST(Counters, LookupsKeepNoMemoryPerCall) {
  SKIP_IF_SANITIZED();
  const cu::MetricHost host("GH100");
  const std::string name = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
  const auto first = host.properties(name);
  ASSERT_TRUE(first);
  for (int i = 0; i < 2000; ++i) (void)host.properties(name);  // the allocator's own warm-up
  const long before = resident_kb();
  for (int i = 0; i < 20000; ++i) {
    const auto p = host.properties(name);
    ASSERT_TRUE(p);
    ASSERT_EQ(p->description, first->description);
  }
  EXPECT_LT(resident_kb() - before, 400) << "kB held by 20,000 lookups of one name";
  EXPECT_FALSE(host.properties("l1tex__no_such_metric.sum"));
}

// A misspelling is said before CUPTI starts on a device (a profiler that then fails to start
// would have hidden it behind its own exit 6): checked against the chip of the device's
// compute capability, with the host library only.
TEST(Counters, NamesAreCheckedForALiveDeviceBeforeCuptiStarts) {
  SKIP_IF_SANITIZED();
  cu::DeviceSnapshot h100 = cu::load_profile("h100");
  h100.ordinal = 0;  // as a live device
  EXPECT_HAS(error_of([&] {
               lab::check_counter_words({"shared", "sahred"}, h100);
             }),
             "unknown counter set or metric 'sahred': did you mean 'shared'?");
  EXPECT_EQ(error_of([&] { lab::check_counter_words({"shared", "dram__bytes_read.sum"}, h100); }), "");
  cu::DeviceSnapshot unknown = h100;
  unknown.cc_major = 5;  // no chip known for it: left to the session, once CUPTI names the chip
  EXPECT_EQ(error_of([&] { lab::check_counter_words({"sahred"}, unknown); }), "");
  const lab::CounterSelection sel = lab::resolve_counters({"shared"}, "GH100");
  EXPECT_EQ(sel.passes, 0u);  // names only: no configuration made
  EXPECT_EQ(sel.collect, lab::select_counters({"shared"}, "GH100").collect);
}

TEST(Counters, AChipThatLacksAMetric) {
  SKIP_IF_SANITIZED();
  // Jetson Thor's GB10B has no DRAM counters: the sets leave them out and say so; asked for
  // by name they are an error.
  const auto sel = lab::select_counters({"memory", "time"}, "GB10B");
  EXPECT_NE(std::find(sel.unavailable.begin(), sel.unavailable.end(), "dram_peak_pct"),
            sel.unavailable.end());
  for (const auto& c : sel.counters) EXPECT_NE(c.name, "dram_peak_pct");
  EXPECT_HAS(error_of([] { lab::select_counters({"dram_peak_pct"}, "GB10B"); }),
             "chip GB10B has no counter for 'dram_peak_pct' (CUPTI metric dram__throughput");
  // GB202 names DRAM reads differently: the set's alternative is taken.
  const auto gb202 = lab::select_counters({"dram_read_bytes"}, "GB202");
  EXPECT_EQ(gb202.counters.at(0).raw, "dram__bytes_op_read.sum");
  EXPECT_EQ(lab::select_counters({"dram_read_bytes"}, "GH100").counters.at(0).raw, "dram__bytes_read.sum");
}

TEST(Counters, ChipsOfComputeCapabilities) {
  SKIP_IF_SANITIZED();
  EXPECT_EQ(lab::chip_for_compute_capability(9, 0), "GH100");
  EXPECT_EQ(lab::chip_for_compute_capability(5, 2), "");
  const auto chips = cu::supported_chips();
  for (int cc : {70, 72, 75, 80, 86, 87, 89, 90, 100, 120}) {
    const std::string chip = lab::chip_for_compute_capability(cc / 10, cc % 10);
    EXPECT_NE(std::find(chips.begin(), chips.end(), chip), chips.end()) << cc << " -> " << chip;
  }
  EXPECT_EQ(lab::counter_chip(cu::load_profile("h100")), "GH100");
  EXPECT_EQ(lab::counter_chip(cu::load_profile("h200")), "GH100");
  cu::DeviceSnapshot old = cu::load_profile("h100");
  old.cc_major = 5;
  old.cc_minor = 0;
  EXPECT_HAS(error_of([&] { lab::counter_chip(old); }),
             "warplab knows no CUPTI chip for sm_50 (profile h100)");
  EXPECT_HAS(cu_error_of([] { cu::MetricHost("XY999"); }),
             "cuptiProfilerHostInitialize (chip XY999; CUPTI knows ");
  EXPECT_HAS(cu_error_of([] { cu::MetricHost("XY999"); }), "GH100");
}

TEST(Counters, CuptiErrorsAreSentencesWithTheirRemedy) {
  const cu::CuptiError denied(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiRangeProfilerEnable", "device 0");
  EXPECT_HAS(denied.what(),
             "cuptiRangeProfilerEnable (device 0) failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_HAS(denied.what(), "NVreg_RestrictProfilingToAdminUsers=0");
  EXPECT_EQ(denied.kind(), warplab::ErrorKind::profiler);
  EXPECT_EQ(denied.result(), CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
  const cu::CuptiError name(CUPTI_ERROR_INVALID_METRIC_NAME, "cuptiProfilerHostConfigAddMetrics",
                            "chip GH100");
  EXPECT_EQ(std::string(name.what()),
            "cuptiProfilerHostConfigAddMetrics (chip GH100) failed: CUPTI_ERROR_INVALID_METRIC_NAME");
  EXPECT_EQ(name.kind(), warplab::ErrorKind::bad_input);
}

TEST(Counters, OfflineSessionIsOneSentence) {
  EXPECT_EQ(error_of([] { lab::CounterSession(nullptr, {"shared"}); }), lab::counters_need_gpu());
  EXPECT_HAS(lab::counters_need_gpu(), "hardware counters need a GPU");
  EXPECT_EQ(lab::CounterSession::active(), nullptr);
}

// WARPLAB_CUPTI_DIR names the only folder searched: an empty one means no CUPTI.
TEST(Counters, NoCuptiLibraryIsOneSentence) {
  warplab::test::ScratchDir empty;
  {
    EnvVar dir("WARPLAB_CUPTI_DIR", empty.path().string());
    const std::string want =
        "no CUPTI library: WARPLAB_CUPTI_DIR is '" + empty.path().string() + "' and holds no libcupti.so.13";
    EXPECT_EQ(cu::cupti_unavailable(), want);
    try {
      lab::select_counters({"shared"}, "GH100");
      ADD_FAILURE() << "expected cu::CuptiError";
    } catch (const cu::CuptiError& e) {
      EXPECT_EQ(std::string(e.what()), want);
      EXPECT_EQ(e.kind(), warplab::ErrorKind::no_gpu);
    }
  }
  // Unset again, the toolkit's CUPTI is found as before.
  const auto why = cu::cupti_unavailable();
  EXPECT_FALSE(why) << *why;
  EXPECT_NE(cu::cupti().library.find("libcupti.so"), std::string::npos) << cu::cupti().library;
}

TEST(Counters, SearchDirsHonorCudaHome) {
  warplab::test::ScratchDir home;
  home.write("lib64/placeholder", "");
  home.write("extras/CUPTI/lib64/placeholder", "");
  EnvVar cuda_home("CUDA_HOME", home.path().string());
  const auto dirs = cu::cupti_search_dirs();
  const auto canon = std::filesystem::canonical(home.path());
  EXPECT_NE(std::find(dirs.begin(), dirs.end(), canon / "lib64"), dirs.end());
  EXPECT_NE(std::find(dirs.begin(), dirs.end(), canon / "extras/CUPTI/lib64"), dirs.end());
  for (const auto& d : dirs) EXPECT_TRUE(std::filesystem::is_directory(d)) << d;
}
