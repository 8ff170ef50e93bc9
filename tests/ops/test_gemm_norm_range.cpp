// The prefill GEMM's fused RMSNorm at magnitudes past f16's range, in every
// ggml format the GEMM reads.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"
#include "import/gguf/dequantize.h"
#include "ops/quant/quant_layout.h"
#include "ops/random_blocks.h"

namespace wgrt {
namespace {

struct Case {
  uint32_t type;
  const char* name;
};

class GemmNormRangeTest : public test::GpuTest, public ::testing::WithParamInterface<Case> {};

// The fused RMSNorm GEMM normalizes x as it stages it, so rows of a residual
// stream far past f16's range (65504) give what RMSNorm gives them, finite.
// Staged unnormalized (x * norm_w, scaled by 1 / rms after the sums) they
// became inf, then NaN: the Llama-3.1-8B-shaped random GGUF's prompt on the
// H200, whose residual stream passes 65504 by layer 24.
TEST_P(GemmNormRangeTest, F16GemmNormalizesRowsBeyondF16sRange) {
  const Case c = GetParam();
  constexpr int64_t K = 2048, N = 72, M = 37;
  const ops::QuantLayout& l = *ops::find_quant_layout(c.type);
  const auto file = test::random_blocks(l, N, K, c.type + 3);
  std::vector<float> wf(N * K);
  gguf::dequantize(static_cast<gguf::GgmlType>(c.type), file, wf);
  const auto norm = test::random_floats(K, 4, 0.5f, 1.5f);
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {M, K}), res = b.add_tensor(DType::F32, {M, N});
  b.mark_input(x);
  b.mark_input(res);
  const ValueId w = b.add_constant(DType::U8, {N, int64_t(ops::gpu_row_bytes(l, K))}, ops::repack_for_gpu(l, file, N, K));
  const ValueId out = b.add_tensor(DType::F32, {M, N});
  b.add_op("wgrt.linear_ggml_fused", {x, w, b.add_int(c.type), b.add_null(), b.add_null(),
                                      b.add_constant(DType::F32, {K}, test::bytes_of(norm)), b.add_double(1e-6), res, out});
  b.mark_output(out);
  LoadOptions options;
  options.tuning.matmul_precision = MatmulPrecision::F16;
  auto g = ExecutableGraph::load(device(), std::move(b).build(), options);
  auto xs = test::random_floats(M * K, 9);
  for (float& v : xs) v *= 1e5f;  // rms ~ 58,000, peaks 100,000
  const std::vector<float> zeros(M * N, 0.0f);
  const HostTensorView in[] = {test::f32_view(xs, {M, K}), test::f32_view(zeros, {M, N})};
  const auto got = test::floats(g->execute(in)[0]);
  double worst = 0;
  for (int64_t i = 0; i < M; ++i) {
    double ss = 0;
    for (int64_t k = 0; k < K; ++k) ss += double(xs[i * K + k]) * xs[i * K + k];
    const double inv_rms = 1.0 / std::sqrt(ss / K + 1e-6);
    for (int64_t n = 0; n < N; ++n) {
      double want = 0, mag = 0;
      for (int64_t k = 0; k < K; ++k) {
        const double t = double(xs[i * K + k]) * inv_rms * norm[k] * wf[n * K + k];
        want += t;
        mag += std::abs(t);
      }
      ASSERT_TRUE(std::isfinite(got[i * N + n])) << c.name << " row " << i << " column " << n;
      worst = std::max(worst, std::abs(got[i * N + n] - want) / (mag + 1e-6));
    }
  }
  EXPECT_LT(worst, 2e-3) << c.name;  // test_quant_linear.cpp's F16GemmWithinItsBound bound
}

INSTANTIATE_TEST_SUITE_P(Formats, GemmNormRangeTest,
                         ::testing::Values(Case{0, "F32"}, Case{1, "F16"}, Case{2, "Q4_0"}, Case{3, "Q4_1"},
                                           Case{6, "Q5_0"}, Case{7, "Q5_1"}, Case{8, "Q8_0"}, Case{10, "Q2_K"},
                                           Case{11, "Q3_K"}, Case{12, "Q4_K"}, Case{13, "Q5_K"}, Case{14, "Q6_K"},
                                           Case{20, "IQ4_NL"}, Case{23, "IQ4_XS"}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace wgrt
