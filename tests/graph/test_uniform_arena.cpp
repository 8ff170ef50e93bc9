// UniformArena: slots at bindable offsets, blocks that grow, and queue writes
// only for bytes that changed. (That the GPU reads the right slot is shown by
// every graph test: their ops share blocks.)
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "gpu_test_env.h"
#include "graph/uniform_arena.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

class UniformArenaTest : public test::GpuTest {};

TEST_F(UniformArenaTest, SlotsSitAtTheDevicesOffsetAlignmentAndRoundTo16) {
  UniformArena a;
  const uint64_t align = std::max<uint64_t>(device().limits().min_uniform_buffer_offset_alignment, 16);
  const UniformId u0 = a.allocate(device(), 20);
  const UniformId u1 = a.allocate(device(), 4);
  EXPECT_EQ(a.binding(u0).offset, 0u);
  EXPECT_EQ(a.binding(u0).size, 32u);
  EXPECT_EQ(a.binding(u1).offset % align, 0u);
  EXPECT_GE(a.binding(u1).offset, 32u);
  EXPECT_EQ(a.binding(u1).size, 16u);
  EXPECT_EQ(a.binding(u0).buffer, a.binding(u1).buffer);
}

TEST_F(UniformArenaTest, BlocksGrowWhenFullAndKeepEarlierSlotsInPlace) {
  UniformArena a;
  std::vector<UniformId> ids;
  for (int i = 0; i < 600; ++i) ids.push_back(a.allocate(device(), 64));
  const gpu::BufferBinding first = a.binding(ids.front());
  EXPECT_NE(first.buffer, a.binding(ids.back()).buffer);
  EXPECT_EQ(a.binding(ids.front()).buffer, first.buffer);
  EXPECT_EQ(a.binding(ids.front()).offset, first.offset);
  for (UniformId u : ids) EXPECT_LE(a.binding(u).offset + a.binding(u).size, a.binding(u).buffer->size());
  EXPECT_GE(a.allocated_bytes(), 600u * 64u);
  EXPECT_LE(a.allocated_bytes(), 600u * 64u * 2 + 600u * 256u);
}

TEST_F(UniformArenaTest, OnlyChangedBytesReachTheQueueOncePerBlock) {
  UniformArena a;
  const UniformId u0 = a.allocate(device(), 16);
  const UniformId u1 = a.allocate(device(), 16);
  const std::array<uint32_t, 4> zeros{};
  const std::array<uint32_t, 4> ones{1, 1, 1, 1};
  a.write(u0, zeros.data(), sizeof zeros);  // equals the zero-filled buffer
  a.flush();
  EXPECT_EQ(a.flushes(), 0u);
  a.write(u0, ones.data(), sizeof ones);
  a.write(u1, ones.data(), sizeof ones);
  a.flush();
  EXPECT_EQ(a.flushes(), 1u);  // both slots in one write
  a.write(u1, ones.data(), sizeof ones);
  a.flush();
  EXPECT_EQ(a.flushes(), 1u);
}

TEST_F(UniformArenaTest, AWriteLargerThanItsSlotIsRefused) {
  UniformArena a;
  const UniformId u = a.allocate(device(), 16);
  const std::array<uint32_t, 8> big{};
  EXPECT_THROW(a.write(u, big.data(), sizeof big), Error);
}

}  // namespace
}  // namespace wgrt
