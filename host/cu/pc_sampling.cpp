// pc_sampling.cpp: the PC-sampling calls in CUPTI's order: enable, stall reasons, set the
// configuration attributes, start ... stop, get data (into buffers of our own) until no PC
// remains, disable.
#include "cu/pc_sampling.hpp"

#include <cstdlib>
#include <memory>

#include "cu/range_profiler.hpp"
#include "cu/trace.hpp"

namespace warplab::cu {
namespace {

constexpr std::size_t kPcsPerRead = 2048;
// The configured buffer only receives what is left when sampling is disabled (take()
// reads everything before): small.
constexpr std::size_t kConfiguredPcs = 64;

// A CUpti_PCSamplingData with room for `pcs` records of `reasons` stall reasons each.
void make_buffer(CUpti_PCSamplingData& b, std::vector<CUpti_PCSamplingPCData>& pcs,
                 std::vector<CUpti_PCSamplingStallReason>& stalls, std::size_t n, std::size_t reasons) {
  pcs.assign(n, CUpti_PCSamplingPCData{});
  stalls.assign(n * reasons, CUpti_PCSamplingStallReason{});
  for (std::size_t i = 0; i < n; ++i) {
    pcs[i].size = sizeof(CUpti_PCSamplingPCData);
    pcs[i].stallReason = stalls.data() + i * reasons;
  }
  b = CUpti_PCSamplingData{};
  b.size = sizeof(CUpti_PCSamplingData);
  b.collectNumPcs = n;
  b.pPcData = pcs.data();
}

// What a configuration hands CUPTI: the sampling data buffer and the stall-reason list.
// cupti_pcsampling.h has CUPTI copy records into that buffer when sampling is torn down,
// which for a context destroyed by its program happens at the destruction, after
// cuptiPCSamplingDisable returned; so they are kept for the process's life (small:
// kConfiguredPcs records), reachable from here.
PcSampler::Configured& keep_configured() {
  static auto* all = new std::vector<std::unique_ptr<PcSampler::Configured>>;
  all->push_back(std::make_unique<PcSampler::Configured>());
  return *all->back();
}

}  // namespace

PcSampler::PcSampler(ContextPtr ctx, unsigned period_log2)
    : api_(&cupti_lines()), ctx_(std::move(ctx)), config_(&keep_configured()) {
  profiler_initialize();
  if (const auto why = profiler_unsupported(ctx_->ordinal(), CUPTI_PROFILER_PC_SAMPLING))
    throw CuptiError("stall sampling (CUPTI's PC sampling) is not available: " + *why, ErrorKind::profiler);
  CUpti_PCSamplingEnableParams en{};
  en.size = CUpti_PCSamplingEnableParamsSize;
  en.ctx = ctx_->get();
  WL_CUPTI_CALL(*api_, cuptiPCSamplingEnable, en, ctx_->label());
  enabled_ = true;
  try {
    std::size_t n = 0;
    CUpti_PCSamplingGetNumStallReasonsParams np{};
    np.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
    np.ctx = ctx_->get();
    np.numStallReasons = &n;
    WL_CUPTI_CALL(*api_, cuptiPCSamplingGetNumStallReasons, np, ctx_->label());
    std::vector<std::uint32_t>& indexes = config_->indexes;
    indexes.assign(n, 0);
    std::vector<std::unique_ptr<char[]>> names(n);
    std::vector<char*> name_ptrs(n);
    for (std::size_t i = 0; i < n; ++i) {
      names[i] = std::make_unique<char[]>(CUPTI_STALL_REASON_STRING_SIZE);
      name_ptrs[i] = names[i].get();
    }
    CUpti_PCSamplingGetStallReasonsParams sp{};
    sp.size = CUpti_PCSamplingGetStallReasonsParamsSize;
    sp.ctx = ctx_->get();
    sp.numStallReasons = n;
    sp.stallReasonIndex = indexes.data();
    sp.stallReasons = name_ptrs.data();
    WL_CUPTI_CALL(*api_, cuptiPCSamplingGetStallReasons, sp, ctx_->label());
    for (std::size_t i = 0; i < n; ++i) {
      names[i][CUPTI_STALL_REASON_STRING_SIZE - 1] = 0;
      reasons_[indexes[i]] = names[i].get();
    }
    make_buffer(config_->buffer, config_->pcs, config_->stalls, kConfiguredPcs, n);
    std::vector<CUpti_PCSamplingConfigurationInfo> info(7);
    info[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
    info[0].attributeData.stallReasonData.stallReasonCount = n;
    info[0].attributeData.stallReasonData.pStallReasonIndex = indexes.data();
    info[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
    info[1].attributeData.samplingPeriodData.samplingPeriod = period_log2 < 5    ? 5
                                                              : period_log2 > 31 ? 31
                                                                                 : period_log2;
    info[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
    info[2].attributeData.scratchBufferSizeData.scratchBufferSize = 8u << 20;
    info[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE;
    info[3].attributeData.hardwareBufferSizeData.hardwareBufferSize = 256u << 20;
    info[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
    // Kernel-serialized: the mode measured on an H200 for several collections in one process,
    // and the one under which SASS metrics gave their records (line_session.cpp).
    info[4].attributeData.collectionModeData.collectionMode =
        CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
    info[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
    info[5].attributeData.enableStartStopControlData.enableStartStopControl = 1;
    info[6].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
    info[6].attributeData.samplingDataBufferData.samplingDataBuffer = &config_->buffer;
    CUpti_PCSamplingConfigurationInfoParams cp{};
    cp.size = CUpti_PCSamplingConfigurationInfoParamsSize;
    cp.ctx = ctx_->get();
    cp.numAttributes = info.size();
    cp.pPCSamplingConfigurationInfo = info.data();
    WL_CUPTI_CALL(*api_, cuptiPCSamplingSetConfigurationAttribute, cp, ctx_->label());
    trace("per-line counts: PC sampling enabled and configured");
  } catch (...) {
    CUpti_PCSamplingDisableParams d{};
    d.size = CUpti_PCSamplingDisableParamsSize;
    d.ctx = ctx_->get();
    api_->cuptiPCSamplingDisable(&d);
    enabled_ = false;
    throw;
  }
}

PcSampler::~PcSampler() {
  if (!enabled_) return;
  if (started_) {
    CUpti_PCSamplingStopParams s{};
    s.size = CUpti_PCSamplingStopParamsSize;
    s.ctx = ctx_->get();
    api_->cuptiPCSamplingStop(&s);
  }
  CUpti_PCSamplingDisableParams d{};
  d.size = CUpti_PCSamplingDisableParamsSize;
  d.ctx = ctx_->get();
  api_->cuptiPCSamplingDisable(&d);  // nothing to do about a failure here
  trace("per-line counts: PC sampling disabled");
}

void PcSampler::start() {
  CUpti_PCSamplingStartParams p{};
  p.size = CUpti_PCSamplingStartParamsSize;
  p.ctx = ctx_->get();
  WL_CUPTI_CALL(*api_, cuptiPCSamplingStart, p, ctx_->label());
  started_ = true;
}

void PcSampler::stop() {
  CUpti_PCSamplingStopParams p{};
  p.size = CUpti_PCSamplingStopParamsSize;
  p.ctx = ctx_->get();
  started_ = false;
  WL_CUPTI_CALL(*api_, cuptiPCSamplingStop, p, ctx_->label());
}

PcSamples PcSampler::take() {
  PcSamples out;
  CUpti_PCSamplingData buf{};
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<CUpti_PCSamplingStallReason> stalls;
  // A bound on the reads: each returns up to kPcsPerRead PCs and says how many remain.
  for (int round = 0; round < 4096; ++round) {
    make_buffer(buf, pcs, stalls, kPcsPerRead, config_->indexes.size());
    CUpti_PCSamplingGetDataParams p{};
    p.size = CUpti_PCSamplingGetDataParamsSize;
    p.ctx = ctx_->get();
    p.pcSamplingData = &buf;
    WL_CUPTI_CALL(*api_, cuptiPCSamplingGetData, p, ctx_->label());
    out.total += buf.totalSamples;
    out.dropped += buf.droppedSamples;
    out.non_user += buf.nonUsrKernelsTotalSamples;
    for (std::size_t i = 0; i < buf.totalNumPcs && i < pcs.size(); ++i) {
      PcRecord r;
      r.crc = pcs[i].cubinCrc;
      r.pc = pcs[i].pcOffset;
      // The name may be shared with other records and with CUPTI's own: it is left alone.
      if (pcs[i].functionName) r.function = pcs[i].functionName;
      for (std::size_t k = 0; k < pcs[i].stallReasonCount && k < config_->indexes.size(); ++k) {
        const std::uint32_t index = pcs[i].stallReason[k].pcSamplingStallReasonIndex;  // packed: copied out
        const std::uint32_t samples = pcs[i].stallReason[k].samples;
        r.stalls.emplace_back(index, samples);
      }
      out.pcs.push_back(std::move(r));
    }
    if (buf.remainingNumPcs == 0) break;
  }
  return out;
}

}  // namespace warplab::cu
