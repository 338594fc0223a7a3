// counters_search_test.cpp: finding counters by a word in warplab's own tables (no CUPTI, no
// GPU): what `warplab counters WORD` lists (a word in a set's name, a short name, a CUPTI
// name or a meaning, any case, '_' for a space), and the guesses "did you mean" offers for
// a word that names nothing: by spelling, then by what the tables say, at most three.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lab/counters.hpp"

namespace lab = warplab::lab;

namespace {

// "set: metric metric ..." for each match, as a line each.
std::string found(std::string_view word) {
  std::string out;
  for (const lab::CounterMatch& m : lab::search_counters(word)) {
    out += std::string(m.set->name) + (m.whole ? " (whole):" : ":");
    for (const lab::CounterDef* d : m.metrics) out += " " + std::string(d->name);
    out += "\n";
  }
  return out;
}

}  // namespace

TEST(CountersSearch, AWordInMeaningsAndCuptiNames) {
  // "bank conflicts" is in the meanings (and CUPTI names) of the conflict counts and
  // their ratios; "bank" in those of the wavefronts per request too.
  EXPECT_EQ(found("bank conflicts"),
            "shared: shared_ld_conflicts shared_ld_conflicts_per_request shared_st_conflicts "
            "shared_st_conflicts_per_request\n");
  EXPECT_EQ(found("bank_conflicts"), found("bank conflicts"));  // '_' reads as a space
  EXPECT_EQ(found("BANK Conflicts"), found("bank conflicts"));  // any case
  EXPECT_EQ(found("bank"),
            "shared: shared_ld_conflicts shared_ld_wavefronts_per_request shared_ld_conflicts_per_request "
            "shared_st_conflicts shared_st_wavefronts_per_request shared_st_conflicts_per_request\n");
  // A CUPTI name, whole or in part.
  EXPECT_EQ(found("lts__t_sector_hit_rate"), "memory: l2_hit_rate\n");
  EXPECT_EQ(found("smsp__sass_branch_targets"), "warps: branch_efficiency divergent_branches\n");
  EXPECT_EQ(found("L2"), "memory: l2_hit_rate\n");
}

TEST(CountersSearch, ASetsNameGivesTheWholeSet) {
  // "sync": the set whole, and stall_barrier of stalls (its meaning has __syncthreads).
  EXPECT_EQ(found("sync"), "stalls: stall_barrier\nsync (whole): stall_barrier stall_membar\n");
  // "shared" is the set, whole, and a word of two stall reasons' meanings.
  EXPECT_EQ(found("shared").substr(0, 15), "shared (whole):");
  EXPECT_NE(found("shared").find("stalls: stall_short_scoreboard stall_mio_throttle\n"), std::string::npos)
      << found("shared");
  // Every set, whole, for no word.
  EXPECT_EQ(lab::search_counters("").size(), lab::counter_sets().size());
  for (const lab::CounterMatch& m : lab::search_counters("  ")) EXPECT_TRUE(m.whole) << m.set->name;
  EXPECT_EQ(found("xyzzy"), "");
}

TEST(CountersSearch, DidYouMeanPartOfANameThenBySpelling) {
  // Part of a set's name: the set.
  EXPECT_EQ(lab::counter_guesses("stall"), "the set 'stalls'");
  EXPECT_EQ(lab::counter_guesses("mem"), "the set 'memory'");
  // Part of short names: those, before a name one letter away ('local').
  EXPECT_EQ(lab::counter_guesses("global"), "the set 'memory'");  // four names: their set
  EXPECT_EQ(lab::counter_guesses("shared_ld_conflict"), "'shared_ld_conflicts' (set shared)");
  // Then spelling.
  EXPECT_EQ(lab::counter_guesses("sahred"), "'shared'");
  EXPECT_EQ(lab::counter_guesses("stall_barier").rfind("'stall_barrier'", 0), 0u);  // closest first
}

TEST(CountersSearch, DidYouMeanByWhatTheTablesSay) {
  // The counts, not their _per_request ratios (which only extend their names), and their set.
  EXPECT_EQ(lab::counter_guesses("bank_conflicts"),
            "'shared_ld_conflicts' or 'shared_st_conflicts' (set shared)");
  EXPECT_EQ(lab::counter_guesses("bank"), "'shared_ld_conflicts' or 'shared_st_conflicts' (set shared)");
  // Names beat CUPTI names and meanings: "dram" names three metrics (dram_peak_pct is in
  // memory and time: said once).
  EXPECT_EQ(lab::counter_guesses("dram"),
            "'dram_read_bytes', 'dram_write_bytes' or 'dram_peak_pct' (set memory)");
  EXPECT_EQ(lab::counter_guesses("scoreboard"),
            "'stall_long_scoreboard' or 'stall_short_scoreboard' (set stalls)");
  // A CUPTI name of a set's metric: the metric.
  EXPECT_EQ(lab::counter_guesses("sector_hit_rate"), "'l1_hit_rate' or 'l2_hit_rate' (set memory)");
  // More than three metrics: the set they are in.
  EXPECT_EQ(lab::counter_guesses("requests"), "the sets 'shared', 'memory' or 'local'");
  EXPECT_EQ(lab::counter_guesses("s"), "the sets 'shared', 'warps' or 'stalls'");  // three at most
  EXPECT_EQ(lab::counter_guesses("xyzzy"), "");
  EXPECT_EQ(lab::counter_guesses(""), "");
}
