// Which GEMV kernel decode uses for each matrix shape (ops/linear/
// gemv_choice.cpp): x rounded twice to int8 where measurements said it pays
// (many rows, or matrices wide both ways: every matrix of an 8B), f32 x
// elsewhere and on CPU adapters; several rows of x (multi-row GEMV) of
// K >= 4,096 in f32 unless a rounding is forced. The kernels' numerics are checked in
// test_quant_linear.cpp and test_gemv_rows.cpp; the 8B-shaped logits with
// two roundings in tests/e2e/test_default_limits.py.
#include <gtest/gtest.h>

#include <string>

#include "ops/linear/gemv_choice.h"

namespace wgrt::ops {
namespace {

double xq_levels(const Tuning& tuning, uint32_t k, uint32_t n, bool cpu_adapter = false) {
  GemvMatrix m;
  m.k = k;
  m.n = n;
  m.planar = true;
  m.cpu_adapter = cpu_adapter;
  for (const auto& [name, value] : choose_gemv(tuning, m, {}).constants)
    if (name == "XQ_LEVELS") return value;
  return 0;
}

TEST(GemvChoiceTest, EveryMatrixOfAn8BTakesTwoInt8RoundingsOfX) {
  const Tuning tuning;
  // Llama-3.1-8B: fused Q/K/V (6,144 x 4,096), o (4,096 x 4,096), fused
  // gate/up (28,672 x 4,096), down (4,096 x 14,336), the head (128,256 x 4,096).
  for (auto [k, n] : {std::pair{4096u, 6144u}, {4096u, 4096u}, {4096u, 28672u}, {14336u, 4096u}, {4096u, 128256u}})
    EXPECT_EQ(xq_levels(tuning, k, n), 2) << k << " x " << n;
}

TEST(GemvChoiceTest, NarrowMatricesKeepF32XUnlessTheyHaveManyRows) {
  const Tuning tuning;
  // Llama-3.2-1B: Q/K/V 3,072 x 2,048, o 2,048 x 2,048, down 2,048 x 8,192.
  for (auto [k, n] : {std::pair{2048u, 3072u}, {2048u, 2048u}, {8192u, 2048u}, {576u, 960u}, {1536u, 576u}})
    EXPECT_EQ(xq_levels(tuning, k, n), 0) << k << " x " << n;
  // Its gate/up (16,384 rows) and SmolLM2's head (49,152) are many rows.
  EXPECT_EQ(xq_levels(tuning, 2048, 16384), 2);
  EXPECT_EQ(xq_levels(tuning, 576, 49152), 2);
  // Wide one way only.
  EXPECT_EQ(xq_levels(tuning, 4096, 2048), 0);
  EXPECT_EQ(xq_levels(tuning, 2048, 4096), 0);
}

TEST(GemvChoiceTest, CpuAdaptersAndTheOptionDecide) {
  Tuning tuning;
  EXPECT_EQ(xq_levels(tuning, 4096, 4096, /*cpu_adapter=*/true), 0);
  tuning.gemv_activation = GemvActivation::F32;
  EXPECT_EQ(xq_levels(tuning, 4096, 4096), 0);
  tuning.gemv_activation = GemvActivation::Q8;
  EXPECT_EQ(xq_levels(tuning, 2048, 2048), 1);
}

TEST(GemvChoiceTest, SeveralRowsOfWideXStayF32UnlessARoundingIsForced) {
  GemvMatrix m;
  m.k = 4096;
  m.n = 28672;
  m.planar = true;
  Tuning tuning;
  tuning.gemv_batch_rows = 8;
  auto has = [](const gpu::OverrideConstants& c, const std::string& name) {
    for (const auto& [n, v] : c) {
      if (n == name) return true;
    }
    return false;
  };
  GemvChoice g = choose_gemv(tuning, m, {});
  EXPECT_EQ(std::string(g.shader), "linear/gemv_planar_q8.wgsl");
  EXPECT_EQ(std::string(g.multi_shader), "linear/gemv_planar.wgsl");
  EXPECT_GT(g.multi_rows, 1u);
  EXPECT_FALSE(has(g.multi_constants, "XQ_LEVELS"));
  // Llama-1B's gate/up (K 2,048) keeps int8 x for several rows too.
  m.k = 2048;
  m.n = 16384;
  g = choose_gemv(tuning, m, {});
  EXPECT_EQ(std::string(g.multi_shader), "linear/gemv_planar_q8.wgsl");
  EXPECT_TRUE(has(g.multi_constants, "XQ_LEVELS"));
  m.k = 4096;
  m.n = 28672;
  tuning.gemv_activation = GemvActivation::Q8x2;
  g = choose_gemv(tuning, m, {});
  EXPECT_EQ(std::string(g.multi_shader), "linear/gemv_planar_q8.wgsl");
  EXPECT_TRUE(has(g.multi_constants, "XQ_LEVELS"));
}

}  // namespace
}  // namespace wgrt::ops
