// memory.hpp: device memory (cuMemAlloc), managed memory (cuMemAllocManaged: one address
// for host and device, migrated on demand or by prefetch) and page-locked host memory
// (cuMemHostAlloc), move-only, each holding its context. Copies check their ranges and say
// which bytes were out of range; running out of memory names the request and what was free.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <cstdint>

#include "cu/context.hpp"

namespace warplab::cu {

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
  bool is_host_backed() const noexcept { return ptr_ != 0 && !ctx_; }
  bool is_managed() const noexcept { return managed_; }
  // Where the host may read and write the bytes directly: host-backed and managed buffers
  // (for managed memory only once the device work that touches it is finished); nullptr
  // for plain device memory.
  unsigned char* host_address() const noexcept {
    return (!ctx_ || managed_) ? reinterpret_cast<unsigned char*>(ptr_) : nullptr;
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { free(); }

  // Releases the memory now; idempotent. Any later use throws "use of a freed device buffer".
  void free() noexcept;
  bool valid() const noexcept { return ptr_ != 0; }
  explicit operator bool() const noexcept { return valid(); }
  CUdeviceptr get() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return size_; }
  const ContextPtr& context() const noexcept { return ctx_; }

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
  void memset_async(std::uint8_t value, CUstream stream, std::size_t bytes = SIZE_MAX,
                    std::size_t offset = 0);
  // Managed buffers only (anything else throws): migrate `bytes` at `offset` to `to` in
  // stream order (cuMemPrefetchAsync), or set a policy for them (cuMemAdvise).
  void prefetch(CUmemLocation to, CUstream stream, std::size_t bytes, std::size_t offset = 0) const;
  void advise(CUmem_advise advice, CUmemLocation where, std::size_t bytes, std::size_t offset = 0) const;

 private:
  // Throws when freed, or when [offset, offset + bytes) is not inside the buffer.
  void check_range(const char* what, std::size_t bytes, std::size_t offset) const;

  ContextPtr ctx_;
  CUdeviceptr ptr_ = 0;
  std::size_t size_ = 0;
  bool managed_ = false;
};

// Page-locked host memory (the driver DMA-s from it directly): staging copies and pinned
// host arrays. `flags` are cuMemHostAlloc's CU_MEMHOSTALLOC_* (0: plain page-locked).
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(ContextPtr ctx, std::size_t bytes, unsigned flags = 0);
  PinnedBuffer(PinnedBuffer&& o) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { free(); }

  void free() noexcept;
  bool valid() const noexcept { return ptr_ != nullptr; }
  void* data() noexcept { return ptr_; }
  const void* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return size_; }

 private:
  ContextPtr ctx_;
  void* ptr_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace warplab::cu
