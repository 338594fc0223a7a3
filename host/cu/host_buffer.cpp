// host_buffer.cpp: HostBuffer's two kinds.
#include "cu/host_buffer.hpp"

#include <unistd.h>

#include <cstring>
#include <utility>

#include "cu/attributes.hpp"
#include "cu/error.hpp"

namespace warplab::cu {
namespace {

constexpr std::size_t kPage = 4096;

// Refuses sizes no allocation on this machine can hold, before asking for them: with
// Linux's overcommit a huge malloc may succeed and the zeroing then runs out of memory.
void check_size(std::size_t bytes, const char* kind) {
  if (bytes == 0)
    throw Error(std::string("a ") + kind + " host buffer of 0 bytes cannot be allocated: give a size >= 1");
  const std::size_t phys = physical_memory();
  if (phys && bytes > phys)
    throw Error(format_bytes(bytes) + " of " + kind + " host memory is more than this machine's " +
                format_bytes(phys));
}

}  // namespace

std::size_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(size) : 0;
}

HostBuffer HostBuffer::pinned(ContextPtr ctx, std::size_t bytes) {
  check_size(bytes, "pinned");
  HostBuffer b;
  b.pinned_ = PinnedBuffer(std::move(ctx), bytes);
  b.size_ = bytes;
  std::memset(b.data(), 0, bytes);
  return b;
}

HostBuffer HostBuffer::pageable(std::size_t bytes) {
  check_size(bytes, "pageable");
  // aligned_alloc wants a multiple of the alignment; the tail past `bytes` is unused.
  const std::size_t rounded = (bytes + kPage - 1) / kPage * kPage;
  HostBuffer b;
  b.plain_.reset(static_cast<unsigned char*>(std::aligned_alloc(kPage, rounded)));
  if (!b.plain_) throw Error("could not allocate " + format_bytes(bytes) + " of pageable host memory");
  b.size_ = bytes;
  std::memset(b.data(), 0, bytes);
  return b;
}

}  // namespace warplab::cu
