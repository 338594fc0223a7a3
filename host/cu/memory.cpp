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

// Frees ignore errors: destructors must not throw, and after a sticky fault (illegal
// address) every call fails while the memory goes with the context anyway.
void set_current_quietly(const ContextPtr& ctx) {
  if (ctx && driver_available()) api().cuCtxSetCurrent(ctx->get());
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

DeviceBuffer::DeviceBuffer(ContextPtr ctx, std::size_t bytes) : ctx_(std::move(ctx)) {
  if (bytes == 0) throw Error("a device buffer of 0 bytes cannot be allocated: give a size >= 1");
  ctx_->make_current();
  check_alloc(api().cuMemAlloc(&ptr_, bytes), "cuMemAlloc", bytes, ctx_);
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
  DeviceBuffer b;
  check_alloc(api().cuMemAllocManaged(&b.ptr_, bytes, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged", bytes, ctx);
  b.ctx_ = std::move(ctx);
  b.size_ = bytes;
  b.managed_ = true;
  return b;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : ctx_(std::move(o.ctx_)),
      ptr_(std::exchange(o.ptr_, 0)),
      size_(std::exchange(o.size_, 0)),
      managed_(std::exchange(o.managed_, false)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    free();
    ctx_ = std::move(o.ctx_);
    ptr_ = std::exchange(o.ptr_, 0);
    size_ = std::exchange(o.size_, 0);
    managed_ = std::exchange(o.managed_, false);
  }
  return *this;
}

DeviceBuffer DeviceBuffer::host_backed(std::size_t bytes, bool managed) {
  if (bytes == 0) throw Error("a device buffer of 0 bytes cannot be allocated: give a size >= 1");
  void* p = std::calloc(1, bytes);
  if (!p) throw Error("cannot allocate " + format_bytes(bytes) + " of host memory for an offline array");
  DeviceBuffer b;
  b.ptr_ = reinterpret_cast<CUdeviceptr>(p);
  b.size_ = bytes;
  b.managed_ = managed;
  return b;
}

void DeviceBuffer::free() noexcept {
  if (ptr_ && !ctx_) {
    std::free(reinterpret_cast<void*>(ptr_));  // host-backed
  } else if (ptr_) {
    set_current_quietly(ctx_);
    if (driver_available()) api().cuMemFree(ptr_);
  }
  ptr_ = 0;
  size_ = 0;
  managed_ = false;
  ctx_.reset();  // the context may go now
}

void DeviceBuffer::check_range(const char* what, std::size_t bytes, std::size_t offset) const {
  if (!ptr_) throw Error(std::string("use of a freed device buffer (") + what + ")");
  if (offset > size_ || bytes > size_ - offset)
    throw Error(std::string(what) + " of " + range_text(bytes, offset) + " exceeds the device buffer's " +
                std::to_string(size_) + " bytes");
  if (ctx_) ctx_->make_current();
}

// cuMemcpyHtoD from pageable memory returns once the data is staged, and cuMemcpyDtoD
// returns at once: the copy finishes later on the legacy stream, which a kernel on a
// non-blocking stream does not wait for. A copy without a stream is finished when it returns.
static void finish_legacy_copy() { WL_CU_CHECK(api().cuStreamSynchronize(CU_STREAM_LEGACY), "copy"); }

void DeviceBuffer::copy_from_host(const void* src, std::size_t bytes, std::size_t offset) {
  check_range("copy to device", bytes, offset);
  if (!ctx_)
    return (void)(bytes ? std::memcpy(reinterpret_cast<unsigned char*>(ptr_ + offset), src, bytes) : nullptr);
  if (bytes) {
    WL_CU_CHECK(api().cuMemcpyHtoD(ptr_ + offset, src, bytes), range_text(bytes, offset));
    finish_legacy_copy();
  }
}

void DeviceBuffer::copy_to_host(void* dst, std::size_t bytes, std::size_t offset) const {
  check_range("copy to host", bytes, offset);
  if (!ctx_)
    return (void)(bytes ? std::memcpy(dst, reinterpret_cast<unsigned char*>(ptr_ + offset), bytes) : nullptr);
  if (bytes) WL_CU_CHECK(api().cuMemcpyDtoH(dst, ptr_ + offset, bytes), range_text(bytes, offset));
}

void DeviceBuffer::copy_from_host_async(const void* src, std::size_t bytes, CUstream stream,
                                        std::size_t offset) {
  check_range("copy to device", bytes, offset);
  if (!ctx_) return copy_from_host(src, bytes, offset);
  if (bytes)
    WL_CU_CHECK(api().cuMemcpyHtoDAsync(ptr_ + offset, src, bytes, stream), range_text(bytes, offset));
}

void DeviceBuffer::copy_to_host_async(void* dst, std::size_t bytes, CUstream stream,
                                      std::size_t offset) const {
  check_range("copy to host", bytes, offset);
  if (!ctx_) return copy_to_host(dst, bytes, offset);
  if (bytes)
    WL_CU_CHECK(api().cuMemcpyDtoHAsync(dst, ptr_ + offset, bytes, stream), range_text(bytes, offset));
}

void DeviceBuffer::copy_from(const DeviceBuffer& src, std::size_t bytes, std::size_t offset,
                             std::size_t src_offset) {
  src.check_range("copy from device buffer", bytes, src_offset);
  check_range("copy to device buffer", bytes, offset);
  if (!ctx_ || !src.ctx_) {  // host-backed: both are (offline there is no other kind)
    if (bytes)
      std::memmove(reinterpret_cast<unsigned char*>(ptr_ + offset),
                   reinterpret_cast<const unsigned char*>(src.ptr_ + src_offset), bytes);
    return;
  }
  if (bytes) {
    WL_CU_CHECK(api().cuMemcpyDtoD(ptr_ + offset, src.ptr_ + src_offset, bytes), range_text(bytes, offset));
    finish_legacy_copy();
  }
}

void DeviceBuffer::copy_from_async(const DeviceBuffer& src, std::size_t bytes, CUstream stream,
                                   std::size_t offset, std::size_t src_offset) {
  src.check_range("copy from device buffer", bytes, src_offset);
  if (!ctx_ || !src.ctx_) return copy_from(src, bytes, offset, src_offset);
  check_range("copy to device buffer", bytes, offset);
  if (bytes)
    WL_CU_CHECK(api().cuMemcpyDtoDAsync(ptr_ + offset, src.ptr_ + src_offset, bytes, stream),
                range_text(bytes, offset));
}

void DeviceBuffer::memset(std::uint8_t value, std::size_t bytes, std::size_t offset) {
  if (bytes == SIZE_MAX) bytes = offset <= size_ ? size_ - offset : 0;
  check_range("memset", bytes, offset);
  if (!ctx_)
    return (void)(bytes ? std::memset(reinterpret_cast<unsigned char*>(ptr_ + offset), value, bytes)
                        : nullptr);
  if (bytes) WL_CU_CHECK(api().cuMemsetD8(ptr_ + offset, value, bytes), range_text(bytes, offset));
}

void DeviceBuffer::memset_async(std::uint8_t value, CUstream stream, std::size_t bytes, std::size_t offset) {
  if (bytes == SIZE_MAX) bytes = offset <= size_ ? size_ - offset : 0;
  check_range("memset", bytes, offset);
  if (!ctx_) return memset(value, bytes, offset);
  if (bytes)
    WL_CU_CHECK(api().cuMemsetD8Async(ptr_ + offset, value, bytes, stream), range_text(bytes, offset));
}

void DeviceBuffer::prefetch(CUmemLocation to, CUstream stream, std::size_t bytes, std::size_t offset) const {
  check_range("prefetch", bytes, offset);
  if (!managed_) throw Error("prefetch needs managed memory: this buffer is plain device memory");
  if (ctx_ && bytes)
    WL_CU_CHECK(api().cuMemPrefetchAsync(ptr_ + offset, bytes, to, 0, stream), range_text(bytes, offset));
}

void DeviceBuffer::advise(CUmem_advise advice, CUmemLocation where, std::size_t bytes,
                          std::size_t offset) const {
  check_range("advise", bytes, offset);
  if (!managed_) throw Error("advise needs managed memory: this buffer is plain device memory");
  if (ctx_ && bytes)
    WL_CU_CHECK(api().cuMemAdvise(ptr_ + offset, bytes, advice, where), range_text(bytes, offset));
}

PinnedBuffer::PinnedBuffer(ContextPtr ctx, std::size_t bytes, unsigned flags) : ctx_(std::move(ctx)) {
  if (bytes == 0) throw Error("a pinned buffer of 0 bytes cannot be allocated: give a size >= 1");
  ctx_->make_current();
  WL_CU_CHECK(api().cuMemHostAlloc(&ptr_, bytes, flags), format_bytes(bytes) + " of pinned host memory");
  size_ = bytes;
}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& o) noexcept
    : ctx_(std::move(o.ctx_)), ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
  if (this != &o) {
    free();
    ctx_ = std::move(o.ctx_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

void PinnedBuffer::free() noexcept {
  if (ptr_) {
    set_current_quietly(ctx_);
    if (driver_available()) api().cuMemFreeHost(ptr_);
  }
  ptr_ = nullptr;
  size_ = 0;
  ctx_.reset();
}

}  // namespace warplab::cu
