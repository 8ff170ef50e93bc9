// How many rows an LLM's linears take through the GEMV rather than the GEMM
// (llm_model.cpp): on a GPU every prompt of up to kBatchedGemvRows tokens (8
// for models 4,096 wide and more) and every batched step up to as many; on a
// CPU adapter only a batch's rows. The numerics of short prompts through the
// multi-row GEMV: tests/e2e/test_smollm2_reference.py.
#include <gtest/gtest.h>

#include "llm/llm_model.h"

namespace wgrt::llm {
namespace {

TEST(GemvRowsForTest, GpusTakeShortPromptsThroughTheGemv) {
  EXPECT_EQ(gemv_rows_for(false, 1, 1, 2048), uint32_t(kBatchedGemvRows));
  EXPECT_EQ(gemv_rows_for(false, 32, 1, 2048), uint32_t(kBatchedGemvRows));
  EXPECT_EQ(gemv_rows_for(false, 1, 1, 0), uint32_t(kBatchedGemvRows));  // a .pte: width unknown
  EXPECT_EQ(gemv_rows_for(false, 1, 32, 2048), 32u);  // WGRT_GEMV_BATCH_ROWS raises it
}

TEST(GemvRowsForTest, WideModelsTakeFewerRows) {
  EXPECT_EQ(gemv_rows_for(false, 1, 1, 4096), 8u);
  EXPECT_EQ(gemv_rows_for(false, 32, 1, 8192), 8u);
  EXPECT_EQ(gemv_rows_for(true, 16, 1, 4096), 8u);
  EXPECT_EQ(gemv_rows_for(false, 1, 16, 4096), 16u);
}

TEST(GemvRowsForTest, CpuAdaptersOnlyForBatches) {
  EXPECT_EQ(gemv_rows_for(true, 1, 1, 576), 1u);
  EXPECT_EQ(gemv_rows_for(true, 4, 1, 576), 4u);
  EXPECT_EQ(gemv_rows_for(true, 32, 1, 576), uint32_t(kBatchedGemvRows));
  EXPECT_EQ(gemv_rows_for(true, 1, 8, 576), 8u);
}

}  // namespace
}  // namespace wgrt::llm
