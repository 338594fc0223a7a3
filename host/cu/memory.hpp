// memory.hpp: device memory (cuMemAlloc), managed memory (cuMemAllocManaged: one address
// for host and device, migrated on demand or by prefetch) and page-locked host memory
// (cuMemHostAlloc), each owned through cu::Handle (move-only, holding its context). Copies
// check their ranges and say which bytes were out of range; running out of memory names the
// request and what was free.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "cu/context.hpp"
#include "cu/handle.hpp"

namespace warplab::cu {

struct DeviceMemoryTraits {
  using Raw = CUdeviceptr;
  static void destroy(CUdeviceptr p) noexcept;  // cuMemFree (device and managed memory)
};
struct PinnedMemoryTraits {
  using Raw = void*;
  static void destroy(void* p) noexcept;  // cuMemFreeHost
};

// Host memory from calloc or aligned_alloc (no driver involved), given back with free().
struct FreeDeleter {
  void operator()(unsigned char* p) const noexcept { std::free(p); }
};
using HostBytes = std::unique_ptr<unsigned char, FreeDeleter>;

class DeviceBuffer {
 public:
  DeviceBuffer() = default;  // empty: owns nothing
  // Allocates `bytes` (> 0) on the context's device. Out of memory throws cu::Error
  // (CUDA_ERROR_OUT_OF_MEMORY): "cuMemAlloc (1.50 GiB requested, 512 MiB free of 80 GiB) failed: ..."
  DeviceBuffer(ContextPtr ctx, std::size_t bytes);
  // Without a GPU: the same buffer, with the same checks, in zeroed host memory; every
  // copy and memset is a memcpy/memset, asynchronous ones included. get() is then a host
  // address, which no kernel can be launched with (launches need a GPU anyway).
  // `managed`: the offline stand-in of a managed buffer (prefetch and advise are checked,
  // then do nothing: host memory is where the data already is).
  static DeviceBuffer host_backed(std::size_t bytes, bool managed = false);
  // Managed memory (cuMemAllocManaged, CU_MEM_ATTACH_GLOBAL): any stream may use it, and
  // the host reads and writes it at host_address(). Throws when the device has no managed
  // memory, or as the constructor does when it runs out.
  static DeviceBuffer managed(ContextPtr ctx, std::size_t bytes);
  bool is_managed() const noexcept { return valid() && managed_; }
  // Where the host may read and write the bytes directly: host-backed and managed buffers
  // (for managed memory only once the device work that touches it is finished); nullptr
  // for plain device memory.
  unsigned char* host_address() const noexcept {
    return host_ ? host_.get() : managed_ ? reinterpret_cast<unsigned char*>(mem_.get()) : nullptr;
  }

  // Releases the memory now; idempotent. Any later use throws "use of a freed device buffer".
  void free() noexcept {
    mem_.release();
    host_.reset();
  }
  bool valid() const noexcept { return mem_.valid() || host_; }
  explicit operator bool() const noexcept { return valid(); }
  CUdeviceptr get() const noexcept { return host_ ? reinterpret_cast<CUdeviceptr>(host_.get()) : mem_.get(); }
  std::size_t size() const noexcept { return valid() ? size_ : 0; }
  // The context of device and managed memory; null for a host-backed buffer.
  const ContextPtr& context() const noexcept { return mem_.context(); }

  // Synchronous copies of `bytes` at byte `offset` of this buffer.
  void copy_from_host(const void* src, std::size_t bytes, std::size_t offset = 0);
  void copy_to_host(void* dst, std::size_t bytes, std::size_t offset = 0) const;
  // Asynchronous on `stream` (nullptr: the legacy default stream). The host memory must
  // stay valid until the stream reaches the copy; pinned memory makes it truly async.
  void copy_from_host_async(const void* src, std::size_t bytes, CUstream stream, std::size_t offset = 0);
  void copy_to_host_async(void* dst, std::size_t bytes, CUstream stream, std::size_t offset = 0) const;
  // Device to device: `bytes` from `src` at `src_offset` to this buffer at `offset`.
  void copy_from(const DeviceBuffer& src, std::size_t bytes, std::size_t offset = 0,
                 std::size_t src_offset = 0);
  void copy_from_async(const DeviceBuffer& src, std::size_t bytes, CUstream stream, std::size_t offset = 0,
                       std::size_t src_offset = 0);
  // Sets `bytes` bytes at `offset` to `value` (all of the buffer by default).
  void memset(std::uint8_t value, std::size_t bytes = SIZE_MAX, std::size_t offset = 0);
  // Managed buffers only (anything else throws): migrate `bytes` at `offset` to `to` in
  // stream order (cuMemPrefetchAsync), or set a policy for them (cuMemAdvise).
  void prefetch(CUmemLocation to, CUstream stream, std::size_t bytes, std::size_t offset = 0) const;
  void advise(CUmem_advise advice, CUmemLocation where, std::size_t bytes, std::size_t offset = 0) const;

 private:
  // Throws when freed, or when [offset, offset + bytes) is not inside the buffer; makes the
  // context current. Returns where the bytes start.
  CUdeviceptr check_range(const char* what, std::size_t bytes, std::size_t offset) const;

  Handle<DeviceMemoryTraits> mem_;  // device or managed memory
  HostBytes host_;                  // host-backed (no GPU)
  std::size_t size_ = 0;
  bool managed_ = false;
};

// Page-locked host memory (the driver DMA-s from it directly): staging copies and pinned
// host arrays. `flags` are cuMemHostAlloc's CU_MEMHOSTALLOC_* (0: plain page-locked).
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(ContextPtr ctx, std::size_t bytes, unsigned flags = 0);

  void free() noexcept { mem_.release(); }  // idempotent
  bool valid() const noexcept { return mem_.valid(); }
  void* data() const noexcept { return mem_.get(); }
  std::size_t size() const noexcept { return valid() ? size_ : 0; }

 private:
  Handle<PinnedMemoryTraits> mem_;
  std::size_t size_ = 0;
};

}  // namespace warplab::cu
