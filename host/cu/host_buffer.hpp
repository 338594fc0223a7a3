// host_buffer.hpp: host memory that device buffers copy to and from, either page-locked
// (cuMemHostAlloc: the DMA engine reads and writes it directly) or pageable (aligned_alloc:
// the driver bounces it through its own page-locked staging). Both start zeroed, so every
// page is resident before a copy is timed. Move-only; the pinned kind holds its context.
#pragma once
#include <cstddef>

#include "cu/context.hpp"
#include "cu/memory.hpp"

namespace warplab::cu {

class HostBuffer {
 public:
  HostBuffer() = default;  // empty: owns nothing
  // Page-locked `bytes` (> 0) for the context's device; throws cu::Error when the driver
  // refuses (it names the size).
  static HostBuffer pinned(ContextPtr ctx, std::size_t bytes);
  // Pageable `bytes` (> 0), page-aligned; needs no driver. Throws cu::Error when the size
  // exceeds this machine's physical memory or the allocation fails.
  static HostBuffer pageable(std::size_t bytes);

  // Releases the memory now; idempotent.
  void free() noexcept {
    pinned_.free();
    plain_.reset();
  }
  bool valid() const noexcept { return pinned_.valid() || plain_; }
  bool is_pinned() const noexcept { return pinned_.valid(); }
  unsigned char* data() const noexcept {
    return pinned_.valid() ? static_cast<unsigned char*>(pinned_.data()) : plain_.get();
  }
  std::size_t size() const noexcept { return valid() ? size_ : 0; }

 private:
  PinnedBuffer pinned_;  // the pinned kind
  HostBytes plain_;      // the pageable kind
  std::size_t size_ = 0;
};

// This machine's physical memory in bytes (0 when it cannot be read).
std::size_t physical_memory();

}  // namespace warplab::cu
