// host_buffer_test.cpp: cu::HostBuffer's pageable kind (no GPU needed): zeroed, page-aligned,
// move-only ownership, idempotent free, and the sentences for 0 bytes and for more than
// the machine holds. The pinned kind is exercised on a GPU (tests/lua/api_host_array.lua).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "cu/error.hpp"
#include "cu/host_buffer.hpp"

using namespace warplab::cu;

TEST(HostBuffer, PageableIsZeroedAlignedAndOwned) {
  HostBuffer b = HostBuffer::pageable(10000);
  ASSERT_TRUE(b.valid());
  EXPECT_FALSE(b.is_pinned());
  EXPECT_EQ(b.size(), 10000u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % 4096, 0u);
  for (std::size_t i = 0; i < b.size(); ++i) ASSERT_EQ(b.data()[i], 0) << i;
  b.data()[9999] = 7;

  HostBuffer moved(std::move(b));
  EXPECT_FALSE(b.valid());  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_EQ(b.data(), nullptr);
  ASSERT_TRUE(moved.valid());
  EXPECT_EQ(moved.data()[9999], 7);

  HostBuffer other = HostBuffer::pageable(16);
  other = std::move(moved);
  EXPECT_EQ(other.size(), 10000u);
  other.free();
  other.free();  // idempotent
  EXPECT_FALSE(other.valid());
  EXPECT_EQ(other.size(), 0u);
}

TEST(HostBuffer, RefusesZeroAndMoreThanTheMachine) {
  try {
    HostBuffer::pageable(0);
    FAIL() << "expected cu::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "a pageable host buffer of 0 bytes cannot be allocated: give a size >= 1");
  }
  const std::size_t phys = physical_memory();
  ASSERT_GT(phys, 0u);
  try {
    HostBuffer::pageable(phys + 1);
    FAIL() << "expected cu::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("of pageable host memory is more than this machine's"),
              std::string::npos)
        << e.what();
  }
}
