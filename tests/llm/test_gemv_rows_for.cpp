// How many rows an LLM's linears take through the GEMV rather than the GEMM
// (llm_model.cpp): on a GPU every prompt of up to kBatchedGemvRows tokens
// and every batched step; on a CPU adapter only a batch's rows. The numerics
// of short prompts through the multi-row GEMV: tests/e2e/test_smollm2_reference.py.
#include <gtest/gtest.h>

#include "llm/llm_model.h"

namespace wgrt::llm {
namespace {

TEST(GemvRowsForTest, GpusTakeShortPromptsThroughTheGemv) {
  EXPECT_EQ(gemv_rows_for(false, 1, 1), uint32_t(kBatchedGemvRows));
  EXPECT_EQ(gemv_rows_for(false, 32, 1), uint32_t(kBatchedGemvRows));
  EXPECT_EQ(gemv_rows_for(false, 1, 32), 32u);  // WGRT_GEMV_BATCH_ROWS raises it
}

TEST(GemvRowsForTest, CpuAdaptersOnlyForBatches) {
  EXPECT_EQ(gemv_rows_for(true, 1, 1), 1u);
  EXPECT_EQ(gemv_rows_for(true, 4, 1), 4u);
  EXPECT_EQ(gemv_rows_for(true, 32, 1), uint32_t(kBatchedGemvRows));
  EXPECT_EQ(gemv_rows_for(true, 1, 8), 8u);
}

}  // namespace
}  // namespace wgrt::llm
