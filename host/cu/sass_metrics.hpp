// sass_metrics.hpp: CUPTI's SASS metrics on one context: exact counts per SASS instruction
// (warp and thread instructions, shared wavefronts, global sectors, ...), by patching each
// kernel at its first launch while enabled. RAII over enable/disable; the metric
// configuration is set once per process and device and kept (see below).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cu/context.hpp"
#include "cu/cupti_lines.hpp"

namespace warplab::cu {

// The counts of one SASS instruction, summed over the launches since the last flush.
struct SassRecord {
  std::uint32_t crc = 0;              // the low 32 bits of cubin_crc() of the CUBIN it belongs to
  std::string function;               // the symbol (mangled)
  std::uint32_t pc = 0;               // byte offset in the function's code
  std::vector<std::uint64_t> values;  // parallel to SassMetrics::metrics()
};

class SassMetrics {
 public:
  // Configures `metrics` for the context's device (once per process: CUPTI 13.0 refuses a
  // second cuptiSassMetricsSetConfig after cuptiSassMetricsUnsetConfig with
  // CUPTI_ERROR_OUT_OF_MEMORY, so the first configuration stays until the context is
  // released; a later session must ask for the same list), then cuptiSassMetricsEnable
  // with lazy patching. Throws CuptiError: a name the chip lacks, a device CUPTI does not
  // support, another tool attached, a device whose configuration is spent or abandoned.
  SassMetrics(ContextPtr ctx, const std::string& chip, const std::vector<std::string>& metrics);
  ~SassMetrics();  // cuptiSassMetricsDisable; never throws
  SassMetrics(const SassMetrics&) = delete;
  SassMetrics& operator=(const SassMetrics&) = delete;

  const std::vector<std::string>& metrics() const noexcept { return metrics_; }
  // The records collected since enable or the last flush (cuptiSassMetricsGetDataProperties,
  // cuptiSassMetricsFlushData). Call after the launches finished.
  std::vector<SassRecord> flush();
  // Leaves CUPTI enabled and makes no further call on this device, ever (a context that
  // faulted): a later session there is refused.
  void abandon() noexcept;

 private:
  const CuptiLinesApi* api_;
  ContextPtr ctx_;
  std::vector<std::string> metrics_;
  std::vector<std::uint64_t> ids_;
  bool enabled_ = false;
};

}  // namespace warplab::cu
