// pc_sampling.hpp: CUPTI's PC sampling on one context: each SM samples its warps' program
// counters every 2^period cycles with the reason a warp was not issuing (short scoreboard,
// mio throttle, barrier, ...). RAII over enable/disable; start()/stop() bound what is
// sampled; take() reads the samples per SASS instruction. Statistical, and the kernel runs
// unpatched.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cu/context.hpp"
#include "cu/cupti_lines.hpp"

namespace warplab::cu {

// The samples of one SASS instruction.
struct PcRecord {
  std::uint64_t crc = 0;                                        // cubin_crc() of its CUBIN
  std::string function;                                         // the symbol (mangled)
  std::uint64_t pc = 0;                                         // byte offset in the function's code
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stalls;  // {reason index, samples}
};

struct PcSamples {
  std::vector<PcRecord> pcs;
  std::uint64_t total = 0;     // every sample taken, also those of other kernels and dropped ones
  std::uint64_t dropped = 0;   // dropped by the hardware (buffer full)
  std::uint64_t non_user = 0;  // in kernels that are not the user's (CUPTI's, the driver's)
};

class PcSampler {
 public:
  // cuptiPCSamplingEnable on the context, its stall reasons read, and the configuration:
  // every stall reason, a period of 2^period_log2 cycles (5..31), kernel-serialized collection,
  // start/stop control. Throws CuptiError (another tool attached; a device that cannot).
  PcSampler(ContextPtr ctx, unsigned period_log2);
  ~PcSampler();  // stops if started, then cuptiPCSamplingDisable; never throws
  PcSampler(const PcSampler&) = delete;
  PcSampler& operator=(const PcSampler&) = delete;

  void start();  // cuptiPCSamplingStart
  void stop();   // cuptiPCSamplingStop
  // Every sample since the last take(), read with cuptiPCSamplingGetData until none
  // remain. Call after stop().
  PcSamples take();
  // CUPTI's name of a reason index: "smsp__pcsamp_warps_issue_stalled_short_scoreboard".
  const std::map<std::uint32_t, std::string>& reasons() const noexcept { return reasons_; }
  void abandon() noexcept { enabled_ = false; }

  // What the configuration hands CUPTI, kept for the process's life (pc_sampling.cpp).
  struct Configured {
    std::vector<std::uint32_t> indexes;  // the stall reasons sampled
    // The buffer set as the sampling data buffer. cuptiPCSamplingGetData must be given a
    // different one: into this one it reports totalSamples 0 and no error.
    CUpti_PCSamplingData buffer{};
    std::vector<CUpti_PCSamplingPCData> pcs;
    std::vector<CUpti_PCSamplingStallReason> stalls;
  };

 private:
  const CuptiLinesApi* api_;
  ContextPtr ctx_;
  std::map<std::uint32_t, std::string> reasons_;
  Configured* config_;  // kept after this sampler (pc_sampling.cpp)
  bool enabled_ = false, started_ = false;
};

}  // namespace warplab::cu
