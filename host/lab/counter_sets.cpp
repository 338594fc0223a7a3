// counter_sets.cpp: the named counter sets: what each short name means and which CUPTI
// metrics it is made of. The CUPTI names are Nsight Compute's, so `ncu --metrics` with the
// same name counts the same thing. tests/unit/counters_test.cpp checks every name against
// GH100.
#include <algorithm>

#include "lab/counters.hpp"

namespace warplab::lab {
namespace {

// Shared by two sets: one definition, one column when both are asked for.
constexpr CounterDef kDramPeak{"dram_peak_pct", "%", "DRAM throughput over the launch as a share of its peak",
                               "dram__throughput.avg.pct_of_peak_sustained_elapsed", ""};
constexpr CounterDef kStallBarrier{"stall_barrier", "%",
                                   "active warp cycles spent waiting at a block barrier (__syncthreads)",
                                   "smsp__warp_issue_stalled_barrier_per_warp_active.pct", ""};
constexpr CounterDef kStallMembar{"stall_membar", "%", "active warp cycles spent waiting at a memory fence",
                                  "smsp__warp_issue_stalled_membar_per_warp_active.pct", ""};

// One stall reason: its share of active warp cycles.
constexpr CounterDef stall(std::string_view name, std::string_view meaning, std::string_view raw) {
  return {name, "%", meaning, raw, ""};
}

std::vector<CounterSet> make_sets() {
  return {
      {"shared",
       "shared-memory bank conflicts and wavefronts per request, loads and stores",
       {
           {"shared_ld_requests", "requests", "warp-level shared-memory load instructions executed",
            "smsp__inst_executed_op_shared_ld.sum", ""},
           {"shared_ld_wavefronts", "wavefronts",
            "passes the shared-memory pipeline made to serve those loads",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", ""},
           {"shared_ld_conflicts", "conflicts", "bank conflicts of shared-memory loads",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", ""},
           {"shared_ld_wavefronts_per_request", "wavefronts/request",
            "1 when a warp's load is served at once, n when its lanes' banks split it n ways",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum"},
           {"shared_ld_conflicts_per_request", "conflicts/request",
            "extra passes per load: 0 when no two lanes read different words of one bank",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            "smsp__inst_executed_op_shared_ld.sum"},
           {"shared_st_requests", "requests", "warp-level shared-memory store instructions executed",
            "smsp__inst_executed_op_shared_st.sum", ""},
           {"shared_st_wavefronts", "wavefronts",
            "passes the shared-memory pipeline made to serve those stores",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", ""},
           {"shared_st_conflicts", "conflicts", "bank conflicts of shared-memory stores",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", ""},
           {"shared_st_wavefronts_per_request", "wavefronts/request",
            "1 when a warp's store is served at once, n when its lanes' banks split it n ways",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "smsp__inst_executed_op_shared_st.sum"},
           {"shared_st_conflicts_per_request", "conflicts/request",
            "extra passes per store: 0 when no two lanes write different words of one bank",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
            "smsp__inst_executed_op_shared_st.sum"},
       }},
      {"memory",
       "global-memory sectors per request, L1 and L2 hit rates, DRAM traffic and its share of peak",
       {
           {"global_ld_requests", "requests", "warp-level global-memory load requests",
            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", ""},
           {"global_ld_sectors", "sectors", "32-byte sectors those loads touched",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", ""},
           {"global_ld_sectors_per_request", "sectors/request",
            "4 when a warp loads 128 contiguous bytes; one per lane when each lane hits its own sector",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
           {"global_st_requests", "requests", "warp-level global-memory store requests",
            "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", ""},
           {"global_st_sectors", "sectors", "32-byte sectors those stores touched",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", ""},
           {"global_st_sectors_per_request", "sectors/request",
            "4 when a warp stores 128 contiguous bytes; one per lane when each lane hits its own sector",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
            "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"},
           {"l1_hit_rate", "%", "L1 sector lookups that hit", "l1tex__t_sector_hit_rate.pct", ""},
           {"l2_hit_rate", "%", "L2 sector lookups that hit", "lts__t_sector_hit_rate.pct", ""},
           {"dram_read_bytes", "bytes", "bytes read from DRAM",
            "dram__bytes_read.sum|dram__bytes_op_read.sum", ""},
           {"dram_write_bytes", "bytes", "bytes written to DRAM",
            "dram__bytes_write.sum|dram__bytes_op_write.sum", ""},
           kDramPeak,
       }},
      {"warps",
       "achieved occupancy, threads active per instruction, branch efficiency and divergent branches",
       {
           {"achieved_occupancy", "%", "warps active per SM cycle as a share of the most an SM can hold",
            "sm__warps_active.avg.pct_of_peak_sustained_active", ""},
           {"threads_per_instruction", "threads",
            "threads active per warp instruction executed: the warp size when no lane sits out",
            "smsp__thread_inst_executed.sum", "smsp__inst_executed.sum"},
           // NaN (printed "-") for a kernel that branched nowhere, where CUPTI says 0 %.
           {"branch_efficiency", "%", "branch targets every active thread of the warp went to together",
            "smsp__sass_average_branch_targets_threads_uniform.pct", "", "smsp__sass_branch_targets.sum"},
           {"divergent_branches", "branches", "branch targets the threads of a warp split over",
            "smsp__sass_branch_targets_threads_divergent.sum", ""},
           {"branches", "instructions", "warp-level branch instructions executed",
            "smsp__inst_executed_op_branch.sum", ""},
       }},
      {"stalls",
       "why warps could not issue: each reason as a share of active warp cycles",
       {
           stall("stall_long_scoreboard", "waiting for a global or local memory result",
                 "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct"),
           stall("stall_short_scoreboard", "waiting for a shared-memory or special-function result",
                 "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct"),
           kStallBarrier,
           kStallMembar,
           stall("stall_mio_throttle", "the shared-memory and special-instruction queue was full",
                 "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct"),
           stall("stall_lg_throttle", "the global and local memory instruction queue was full",
                 "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct"),
           stall("stall_math_pipe_throttle", "the math pipe the next instruction needs was busy",
                 "smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct"),
           stall("stall_wait", "waiting out a fixed-latency dependency",
                 "smsp__warp_issue_stalled_wait_per_warp_active.pct"),
           stall("stall_not_selected", "ready, but the scheduler issued another warp",
                 "smsp__warp_issue_stalled_not_selected_per_warp_active.pct"),
           stall("stall_selected", "issuing: the cycle the scheduler picked this warp",
                 "smsp__warp_issue_stalled_selected_per_warp_active.pct"),
           stall("stall_no_instruction", "no instruction fetched yet (instruction cache miss, after a jump)",
                 "smsp__warp_issue_stalled_no_instruction_per_warp_active.pct"),
           stall("stall_branch_resolving", "waiting for a branch target to be computed",
                 "smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct"),
           stall("stall_dispatch_stall", "the dispatcher held the chosen instruction back",
                 "smsp__warp_issue_stalled_dispatch_stall_per_warp_active.pct"),
           stall("stall_drain", "waiting for memory stores to drain after the warp exited",
                 "smsp__warp_issue_stalled_drain_per_warp_active.pct"),
           stall("stall_imc_miss", "waiting for the immediate constant cache",
                 "smsp__warp_issue_stalled_imc_miss_per_warp_active.pct"),
           stall("stall_sleeping", "every thread of the warp asleep or waiting at a warp-level barrier",
                 "smsp__warp_issue_stalled_sleeping_per_warp_active.pct"),
           stall("stall_tex_throttle", "the texture instruction queue was full",
                 "smsp__warp_issue_stalled_tex_throttle_per_warp_active.pct"),
           stall("stall_misc", "any other reason", "smsp__warp_issue_stalled_misc_per_warp_active.pct"),
       }},
      {"sync",
       "barrier and memory-fence stalls, as shares of active warp cycles",
       {kStallBarrier, kStallMembar}},
      {"local",
       "local-memory traffic: register spills and local arrays",
       {
           {"local_ld_requests", "requests", "warp-level local-memory loads (spill reloads, local arrays)",
            "smsp__inst_executed_op_local_ld.sum", ""},
           {"local_st_requests", "requests", "warp-level local-memory stores (spills, local arrays)",
            "smsp__inst_executed_op_local_st.sum", ""},
           {"local_ld_sectors", "sectors", "32-byte sectors local-memory loads touched",
            "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", ""},
           {"local_st_sectors", "sectors", "32-byte sectors local-memory stores touched",
            "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", ""},
       }},
      {"time",
       "duration, and SM and DRAM throughput as shares of their peaks",
       {
           {"duration", "ns", "the launch's time on the GPU", "gpu__time_duration.sum", ""},
           {"sm_peak_pct", "%", "SM throughput: the busiest SM unit's share of its peak",
            "sm__throughput.avg.pct_of_peak_sustained_elapsed", ""},
           kDramPeak,
       }},
  };
}

}  // namespace

const std::vector<CounterSet>& counter_sets() {
  static const std::vector<CounterSet> sets = make_sets();
  return sets;
}

const CounterSet* find_counter_set(std::string_view name) {
  const auto& sets = counter_sets();
  const auto it = std::find_if(sets.begin(), sets.end(), [&](const CounterSet& s) { return s.name == name; });
  return it == sets.end() ? nullptr : &*it;
}

}  // namespace warplab::lab
