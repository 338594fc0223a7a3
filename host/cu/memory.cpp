// memory.cpp: DeviceBuffer and PinnedBuffer.
#include "cu/memory.hpp"

#include "cu/attributes.hpp"

#include <cstdlib>
#include <cstring>
#include <utility>

#include "cu/driver.hpp"
#include "cu/error.hpp"

namespace warplab::cu {
namespace {

std::string range_text(std::size_t bytes, std::size_t offset) {
  return std::to_string(bytes) + " bytes at offset " + std::to_string(offset);
}

// Throws for a failed allocation `call` of `bytes`; running out names what was free.
void check_alloc(CUresult rc, const char* call, std::size_t bytes, const ContextPtr& ctx) {
  if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
    std::size_t free_b = 0, total_b = 0;
    api().cuMemGetInfo(&free_b, &total_b);
    throw Error(rc, call,
                format_bytes(bytes) + " requested, " + format_bytes(free_b) + " free of " +
                    format_bytes(total_b) + " on " + ctx->label());
  }
  if (rc != CUDA_SUCCESS) throw Error(rc, call, format_bytes(bytes) + " requested");
}

}  // namespace

void DeviceMemoryTraits::destroy(CUdeviceptr p) noexcept { api().cuMemFree(p); }
void PinnedMemoryTraits::destroy(void* p) noexcept { api().cuMemFreeHost(p); }

DeviceBuffer::DeviceBuffer(ContextPtr ctx, std::size_t bytes) {
  if (bytes == 0) throw Error("a device buffer of 0 bytes cannot be allocated: give a size >= 1");
  ctx->make_current();
  CUdeviceptr p = 0;
  check_alloc(api().cuMemAlloc(&p, bytes), "cuMemAlloc", bytes, ctx);
  mem_ = Handle<DeviceMemoryTraits>(std::move(ctx), p);
  size_ = bytes;
}

DeviceBuffer DeviceBuffer::managed(ContextPtr ctx, std::size_t bytes) {
  if (bytes == 0) throw Error("a managed buffer of 0 bytes cannot be allocated: give a size >= 1");
  ctx->make_current();
  int supported = 0;
  WL_CU_CHECK(api().cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, ctx->device()),
              ctx->label());
  if (!supported)
    throw Error(ctx->label() + " has no managed memory (CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 0)");
  CUdeviceptr p = 0;
  check_alloc(api().cuMemAllocManaged(&p, bytes, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged", bytes, ctx);
  DeviceBuffer b;
  b.mem_ = Handle<DeviceMemoryTraits>(std::move(ctx), p);
  b.size_ = bytes;
  b.managed_ = true;
  return b;
}

DeviceBuffer DeviceBuffer::host_backed(std::size_t bytes, bool managed) {
  if (bytes == 0) throw Error("a device buffer of 0 bytes cannot be allocated: give a size >= 1");
  DeviceBuffer b;
  b.host_.reset(static_cast<unsigned char*>(std::calloc(1, bytes)));
  if (!b.host_)
    throw Error("cannot allocate " + format_bytes(bytes) + " of host memory for an offline array");
  b.size_ = bytes;
  b.managed_ = managed;
  return b;
}

CUdeviceptr DeviceBuffer::check_range(const char* what, std::size_t bytes, std::size_t offset) const {
  if (!valid()) throw Error(std::string("use of a freed device buffer (") + what + ")");
  if (offset > size_ || bytes > size_ - offset)
    throw Error(std::string(what) + " of " + range_text(bytes, offset) + " exceeds the device buffer's " +
                std::to_string(size_) + " bytes");
  if (context()) context()->make_current();
  return get();
}

// cuMemcpyHtoD from pageable memory returns once the data is staged, and cuMemcpyDtoD
// returns at once: the copy finishes later on the legacy stream, which a kernel on a
// non-blocking stream does not wait for. A copy without a stream is finished when it returns.
static void finish_legacy_copy() { WL_CU_CHECK(api().cuStreamSynchronize(CU_STREAM_LEGACY), "copy"); }

void DeviceBuffer::copy_from_host(const void* src, std::size_t bytes, std::size_t offset) {
  const CUdeviceptr at = check_range("copy to device", bytes, offset) + offset;
  if (host_) return (void)(bytes ? std::memcpy(reinterpret_cast<unsigned char*>(at), src, bytes) : nullptr);
  if (bytes) {
    WL_CU_CHECK(api().cuMemcpyHtoD(at, src, bytes), range_text(bytes, offset));
    finish_legacy_copy();
  }
}

void DeviceBuffer::copy_to_host(void* dst, std::size_t bytes, std::size_t offset) const {
  const CUdeviceptr at = check_range("copy to host", bytes, offset) + offset;
  if (host_) return (void)(bytes ? std::memcpy(dst, reinterpret_cast<unsigned char*>(at), bytes) : nullptr);
  if (bytes) WL_CU_CHECK(api().cuMemcpyDtoH(dst, at, bytes), range_text(bytes, offset));
}

void DeviceBuffer::copy_from_host_async(const void* src, std::size_t bytes, CUstream stream,
                                        std::size_t offset) {
  const CUdeviceptr at = check_range("copy to device", bytes, offset) + offset;
  if (host_) return copy_from_host(src, bytes, offset);
  if (bytes) WL_CU_CHECK(api().cuMemcpyHtoDAsync(at, src, bytes, stream), range_text(bytes, offset));
}

void DeviceBuffer::copy_to_host_async(void* dst, std::size_t bytes, CUstream stream,
                                      std::size_t offset) const {
  const CUdeviceptr at = check_range("copy to host", bytes, offset) + offset;
  if (host_) return copy_to_host(dst, bytes, offset);
  if (bytes) WL_CU_CHECK(api().cuMemcpyDtoHAsync(dst, at, bytes, stream), range_text(bytes, offset));
}

void DeviceBuffer::copy_from(const DeviceBuffer& src, std::size_t bytes, std::size_t offset,
                             std::size_t src_offset) {
  const CUdeviceptr from = src.check_range("copy from device buffer", bytes, src_offset) + src_offset;
  const CUdeviceptr at = check_range("copy to device buffer", bytes, offset) + offset;
  if (host_ || src.host_) {  // host-backed: both are (offline there is no other kind)
    if (bytes)
      std::memmove(reinterpret_cast<unsigned char*>(at), reinterpret_cast<const unsigned char*>(from), bytes);
    return;
  }
  if (bytes) {
    WL_CU_CHECK(api().cuMemcpyDtoD(at, from, bytes), range_text(bytes, offset));
    finish_legacy_copy();
  }
}

void DeviceBuffer::copy_from_async(const DeviceBuffer& src, std::size_t bytes, CUstream stream,
                                   std::size_t offset, std::size_t src_offset) {
  const CUdeviceptr from = src.check_range("copy from device buffer", bytes, src_offset) + src_offset;
  if (host_ || src.host_) return copy_from(src, bytes, offset, src_offset);
  const CUdeviceptr at = check_range("copy to device buffer", bytes, offset) + offset;
  if (bytes) WL_CU_CHECK(api().cuMemcpyDtoDAsync(at, from, bytes, stream), range_text(bytes, offset));
}

void DeviceBuffer::memset(std::uint8_t value, std::size_t bytes, std::size_t offset) {
  if (bytes == SIZE_MAX) bytes = offset <= size() ? size() - offset : 0;
  const CUdeviceptr at = check_range("memset", bytes, offset) + offset;
  if (host_) return (void)(bytes ? std::memset(reinterpret_cast<unsigned char*>(at), value, bytes) : nullptr);
  if (bytes) WL_CU_CHECK(api().cuMemsetD8(at, value, bytes), range_text(bytes, offset));
}

void DeviceBuffer::prefetch(CUmemLocation to, CUstream stream, std::size_t bytes, std::size_t offset) const {
  const CUdeviceptr at = check_range("prefetch", bytes, offset) + offset;
  if (!managed_) throw Error("prefetch needs managed memory: this buffer is plain device memory");
  if (!host_ && bytes)
    WL_CU_CHECK(api().cuMemPrefetchAsync(at, bytes, to, 0, stream), range_text(bytes, offset));
}

void DeviceBuffer::advise(CUmem_advise advice, CUmemLocation where, std::size_t bytes,
                          std::size_t offset) const {
  const CUdeviceptr at = check_range("advise", bytes, offset) + offset;
  if (!managed_) throw Error("advise needs managed memory: this buffer is plain device memory");
  if (!host_ && bytes) WL_CU_CHECK(api().cuMemAdvise(at, bytes, advice, where), range_text(bytes, offset));
}

PinnedBuffer::PinnedBuffer(ContextPtr ctx, std::size_t bytes, unsigned flags) {
  if (bytes == 0) throw Error("a pinned buffer of 0 bytes cannot be allocated: give a size >= 1");
  ctx->make_current();
  void* p = nullptr;
  WL_CU_CHECK(api().cuMemHostAlloc(&p, bytes, flags), format_bytes(bytes) + " of pinned host memory");
  mem_ = Handle<PinnedMemoryTraits>(std::move(ctx), p);
  size_ = bytes;
}

}  // namespace warplab::cu
