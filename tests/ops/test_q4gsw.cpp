// et_vk.linear_q4gsw.default and et_vk.embedding_q4gsw.default against torch
// dequantize-then-compute goldens (tests/fixtures/ops/linear.*, embedding.*).
#include <gtest/gtest.h>

#include "gpu_test_env.h"
#include "host_tensors.h"
#include "op_goldens.h"
#include "ops/linear/gemm.h"
#include "ops/linear/linear_q4gsw.h"

namespace wgrt {
namespace {

using test::load_npy;

constexpr double kLinearTolerance = 1e-4;    // absolute; K = 96 products of O(1) values
constexpr double kEmbeddingTolerance = 0.0;  // one product per value: exact
constexpr int64_t kMaxM = 8, kK = 96, kN = 36, kGroup = 32;

Graph linear_graph(bool with_bias) {
  const auto w = load_npy("linear.weight"), s = load_npy("linear.scales"), bias = load_npy("linear.bias");
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {1, kMaxM, kK});
  b.mark_input(x);
  const ValueId wid = b.add_constant(DType::U8, w.dims, w.bytes);
  const ValueId sid = b.add_constant(DType::F32, s.dims, s.bytes);
  const ValueId bid = with_bias ? b.add_constant(DType::F32, bias.dims, bias.bytes) : b.add_null();
  const ValueId out = b.add_tensor(DType::F32, {1, kMaxM, kN});
  b.add_op("et_vk.linear_q4gsw.default", {x, wid, sid, b.add_int(kGroup), bid, out});
  b.mark_output(out);
  return std::move(b).build();
}

class Q4gswTest : public test::GpuTest {};

// Loaded as exported (the op's own kernels) and with the graph passes (the
// weight moved losslessly into the GGUF family's Q4_0F32 blocks: its GEMV and GEMM).
class Q4gswLinearTest : public test::GpuTest, public ::testing::WithParamInterface<bool> {};

TEST_P(Q4gswLinearTest, LinearPicksGemvOrGemmFromTheLiveRows) {
  const bool fuse = GetParam();
  const auto x = load_npy("linear.x").as<float>();
  const bool timed = device().features().timestamp_query;
  double worst = 0;
  for (bool with_bias : {false, true}) {
    SCOPED_TRACE(with_bias ? "bias" : "no bias");
    const auto want = load_npy(with_bias ? "linear.out_bias" : "linear.out").as<float>();
    LoadOptions options = test::load_options();
    options.tuning.fuse = fuse;
    auto g = ExecutableGraph::load(device(), linear_graph(with_bias), options);
    const auto handles = test::buffer_handles(*g);
    // The maximum (static), then M = 1 (GEMV) between GEMM sizes, growing and shrinking.
    for (int64_t m : {kMaxM, int64_t{1}, int64_t{3}, int64_t{1}, int64_t{7}, kMaxM}) {
      SCOPED_TRACE("M=" + std::to_string(m));
      const auto xs = test::leading(x, {1, kMaxM, kK}, 1, m);
      const HostTensorView in[] = {test::f32_view(xs, {1, m, kK})};
      ExecuteOptions opts;
      opts.time_dispatches = timed;
      const auto out = g->execute(in, opts)[0];
      ASSERT_EQ(out.dims, (Dims{1, m, kN}));
      const double err = test::max_abs_error(test::floats(out), test::leading(want, {1, kMaxM, kN}, 1, m));
      EXPECT_LE(err, kLinearTolerance);
      worst = std::max(worst, err);
      if (timed) {  // zero-workgroup dispatches are skipped, so the timings name the kernel that ran
        ASSERT_EQ(g->last_timings().size(), 1u);
        // Prefill: the GEMM family's kernel when K % 32 == 0, else linear_q4gsw.wgsl's.
        const std::string& label = g->last_timings()[0].label;
        if (fuse) {
          EXPECT_TRUE(label.starts_with(m == 1 ? "linear_ggml gemv Q4_0F32" : "gemm Q4_0F32")) << label;
        } else {
          EXPECT_EQ(label, m == 1 ? ops::kLinearGemvLabel : kK % 32 == 0 ? ops::kGemmLabel : ops::kLinearGemmLabel);
        }
      }
    }
    EXPECT_EQ(test::buffer_handles(*g), handles);
  }
  std::printf("[ linear_q4gsw%s ] max abs error %.3g\n", fuse ? " as linear_ggml" : "", worst);
}

INSTANTIATE_TEST_SUITE_P(Forms, Q4gswLinearTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "AsLinearGgml" : "AsExported"; });

TEST_F(Q4gswTest, EmbeddingBothNibbleOrdersFollowLiveTokens) {
  const auto ids = load_npy("embedding.ids").as<int64_t>();
  const auto want = load_npy("embedding.out").as<float>();
  const auto scales = load_npy("embedding.scales");
  const int64_t tokens = 10, dim = 32;
  double worst = 0;
  for (bool linear_order : {true, false}) {
    SCOPED_TRACE(linear_order ? "is_linear_weight" : "legacy order");
    const auto w = load_npy(linear_order ? "embedding.weight_linear" : "embedding.weight_legacy");
    GraphBuilder b;
    const ValueId idx = b.add_tensor(DType::I64, {1, tokens});
    b.mark_input(idx);
    const ValueId out = b.add_tensor(DType::F32, {1, tokens, dim});
    b.add_op("et_vk.embedding_q4gsw.default",
             {b.add_constant(DType::U8, w.dims, w.bytes), b.add_constant(DType::F32, scales.dims, scales.bytes),
              b.add_int(16), idx, b.add_bool(linear_order), out});
    b.mark_output(out);
    auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
    const auto handles = test::buffer_handles(*g);
    for (int64_t t : {tokens, int64_t{1}, int64_t{4}, tokens}) {
      SCOPED_TRACE("tokens=" + std::to_string(t));
      const std::vector<int64_t> part(ids.begin(), ids.begin() + t);
      const HostTensorView in[] = {test::i64_view(part, {1, t})};
      const auto got = g->execute(in)[0];
      ASSERT_EQ(got.dims, (Dims{1, t, dim}));
      const double err = test::max_abs_error(test::floats(got), test::leading(want, {1, tokens, dim}, 1, t));
      EXPECT_LE(err, kEmbeddingTolerance);
      worst = std::max(worst, err);
    }
    EXPECT_EQ(test::buffer_handles(*g), handles);
  }
  std::printf("[ embedding_q4gsw ] max abs error %.3g\n", worst);
}

}  // namespace
}  // namespace wgrt
