// The 2D dispatch fold: pure arithmetic, no device.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu/workgroups.h"
#include "wgrt/error.h"

namespace wgrt::gpu {
namespace {

constexpr uint32_t kLimit = 65535;

// Every fold must cover [0, count) with each dimension within the limit, and
// waste (launched but idle workgroups) below x, i.e. one partial row.
void expect_valid_fold(uint64_t count, uint32_t limit) {
  const WorkgroupCount wg = fold_workgroups(count, limit);
  SCOPED_TRACE("count=" + std::to_string(count));
  EXPECT_LE(wg.x, limit);
  EXPECT_LE(wg.y, limit);
  EXPECT_EQ(wg.z, 1u);
  EXPECT_GE(wg.total(), count);
  EXPECT_LT(wg.total() - count, std::max<uint64_t>(wg.x, 1));
  if (count > limit) {
    // Near-square: the idle share is bounded by about 1/sqrt(count).
    EXPECT_LE(double(wg.total() - count), std::ceil(std::sqrt(double(count))));
  }
}

TEST(WorkgroupFold, FitsInOneDimension) {
  EXPECT_EQ(fold_workgroups(0, kLimit), (WorkgroupCount{0, 1, 1}));
  EXPECT_EQ(fold_workgroups(1, kLimit), (WorkgroupCount{1, 1, 1}));
  EXPECT_EQ(fold_workgroups(kLimit, kLimit), (WorkgroupCount{kLimit, 1, 1}));
}

TEST(WorkgroupFold, OnePastTheLimitFoldsNearSquare) {
  // 65536 = 256 * 256: a perfect square, no idle workgroup.
  EXPECT_EQ(fold_workgroups(kLimit + 1, kLimit), (WorkgroupCount{256, 256, 1}));
  // 65537: x = ceil(sqrt) = 257, y = ceil(65537 / 257) = 256 (257 * 255 = 65535 < 65537).
  EXPECT_EQ(fold_workgroups(kLimit + 2, kLimit), (WorkgroupCount{257, 256, 1}));
}

TEST(WorkgroupFold, LargeCountsNeedYAboveOne) {
  // SDPA prefill at S = 2048 with 32 heads: 32 * 2048 * 2048 / 256 workgroups.
  const uint64_t count = 32ull * 2048 * 2048 / 256;
  const WorkgroupCount wg = fold_workgroups(count, kLimit);
  EXPECT_GT(wg.y, 1u);
  // ceil(sqrt(524288)) = 725 (724^2 = 524176 is short); ceil(524288 / 725) = 724.
  EXPECT_EQ(wg, (WorkgroupCount{725, 724, 1}));
}

TEST(WorkgroupFold, CoversEveryCountWithBoundedWaste) {
  for (uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{kLimit - 1}, uint64_t{kLimit}, uint64_t{kLimit + 1},
                         uint64_t{kLimit + 2}, uint64_t{131071}, uint64_t{1} << 20, uint64_t{99991} * 7,
                         uint64_t{kLimit} * kLimit - 1, uint64_t{kLimit} * kLimit}) {
    expect_valid_fold(count, kLimit);
  }
  // A small limit exercises many shapes quickly.
  for (uint64_t count = 0; count <= 100; ++count) expect_valid_fold(count, 10);
}

TEST(WorkgroupFold, BeyondTwoDimensionsIsAClearError) {
  const uint64_t too_many = uint64_t{kLimit} * kLimit + 1;
  try {
    fold_workgroups(too_many, kLimit);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotSupported);
    EXPECT_NE(std::string(e.what()).find(std::to_string(too_many)), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("65535"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fold_workgroups(101, 10), Error);
}

}  // namespace
}  // namespace wgrt::gpu
