// gpu::UploadRing: host bytes written into mapped staging land where each
// commit says, slots are reused only after their copy, and a failed map is
// reported by the next use of that slot, not by a hang.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "gpu/buffer.h"
#include "gpu/device.h"
#include "gpu/upload_ring.h"
#include "gpu_test_env.h"
#include "wgrt/error.h"

namespace wgrt::gpu {
namespace {

class UploadRingTest : public test::GpuTest {};

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(seed + i * 7);
  return v;
}

TEST_F(UploadRingTest, CommitsLandAtTheirOffsetsThroughReusedSlots) {
  constexpr uint64_t kSlot = 256;
  UploadRing ring(device(), 3, kSlot);
  EXPECT_EQ(ring.slot_bytes(), kSlot);
  // Ten pieces through three slots: every slot is mapped again after its copy.
  const std::vector<uint8_t> want = pattern(10 * kSlot, 3);
  Buffer dst = Buffer::create(device(), want.size(), BufferKind::Storage, "upload ring test");
  for (uint64_t i = 0; i < 10; ++i) {
    UploadRing::Staging s = ring.acquire();
    ASSERT_EQ(s.bytes.size(), kSlot);
    std::memcpy(s.bytes.data(), want.data() + i * kSlot, kSlot);
    ring.commit(s, kSlot, dst, i * kSlot);
  }
  ring.finish();
  EXPECT_EQ(dst.read(), want);
}

TEST_F(UploadRingTest, TwoSlotsHeldAtOnceAndAShortTailPaddedWithZeros) {
  UploadRing ring(device(), 3, 64);
  Buffer dst = Buffer::create(device(), 128, BufferKind::Storage, "upload ring test");
  UploadRing::Staging a = ring.acquire();
  UploadRing::Staging b = ring.acquire();
  EXPECT_NE(a.slot, b.slot);
  std::memset(a.bytes.data(), 0xAB, 64);
  std::memset(b.bytes.data(), 0xCD, 64);
  ring.commit(b, 61, dst, 64);  // out of order; 61 bytes: 3 bytes of zeros make the word whole
  ring.commit(a, 64, dst, 0);
  ring.finish();
  const std::vector<uint8_t> got = dst.read();
  for (size_t i = 0; i < 64; ++i) ASSERT_EQ(got[i], 0xAB) << i;
  for (size_t i = 64; i < 125; ++i) ASSERT_EQ(got[i], 0xCD) << i;
  for (size_t i = 125; i < 128; ++i) EXPECT_EQ(got[i], 0) << i;
}

TEST_F(UploadRingTest, ACommitPastTheDestinationIsRefusedAndTheSlotCanBeGivenBack) {
  UploadRing ring(device(), 2, 64);
  Buffer dst = Buffer::create(device(), 64, BufferKind::Storage, "upload ring test");
  UploadRing::Staging a = ring.acquire();
  EXPECT_THROW(ring.commit(a, 64, dst, 4), Error);  // 68 bytes into 64
  EXPECT_THROW(ring.commit(a, 8, dst, 2), Error);   // not a multiple of 4
  ring.abandon(a);
  UploadRing::Staging b = ring.acquire();
  ring.abandon(b);
  // Round the ring again: the abandoned slots are still mapped and usable.
  UploadRing::Staging c = ring.acquire();
  std::memset(c.bytes.data(), 1, 64);
  ring.commit(c, 64, dst, 0);
  ring.finish();
  EXPECT_EQ(dst.read(), std::vector<uint8_t>(64, 1));
}

TEST_F(UploadRingTest, HoldingEverySlotIsAnErrorNotADeadlock) {
  UploadRing ring(device(), 2, 64);
  UploadRing::Staging a = ring.acquire();
  UploadRing::Staging b = ring.acquire();
  EXPECT_THROW(ring.acquire(), Error);
  ring.abandon(a);
  ring.abandon(b);
}

TEST_F(UploadRingTest, AFailedMapIsReportedWhenItsSlotIsNextUsed) {
  auto dev = Device::create(test::device_options_from_env());
  UploadRing ring(*dev, 2, 64);
  Buffer dst = Buffer::create(*dev, 64, BufferKind::Storage, "upload ring test");
  dev->fail_nth_gpu_call_for_test(1, Device::Site::BufferMap);
  UploadRing::Staging a = ring.acquire();
  ring.commit(a, 64, dst, 0);  // its map after the copy is refused
  UploadRing::Staging b = ring.acquire();
  ring.commit(b, 64, dst, 0);
  try {
    ring.acquire();  // slot a again
    FAIL() << "a refused map went unnoticed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mapping a buffer for writing failed"), std::string::npos) << e.what();
  }
}

TEST_F(UploadRingTest, StagingIsNotCountedAsDeviceMemory) {
  auto dev = Device::create(test::device_options_from_env());
  const uint64_t before = dev->live_buffer_bytes(), peak = dev->peak_buffer_bytes();
  {
    UploadRing ring(*dev, 2, 1 << 20);
    EXPECT_EQ(dev->live_buffer_bytes(), before);
  }
  EXPECT_EQ(dev->live_buffer_bytes(), before);
  EXPECT_EQ(dev->peak_buffer_bytes(), peak);
}

}  // namespace
}  // namespace wgrt::gpu
