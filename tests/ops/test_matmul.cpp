// aten.linear / aten.mm / aten.bmm (linear/matmul.wgsl) against torch goldens
// (tests/fixtures/ops/matmul.*): sizes off the 32-wide tiles, K spanning
// several K steps, each graph loaded once and run at several live leading
// dims (the maximum first: the static run) without reallocating.
#include <gtest/gtest.h>

#include "gpu_test_env.h"
#include "host_tensors.h"
#include "op_goldens.h"
#include "ops/linear/matmul.h"

namespace wgrt {
namespace {

using test::load_npy;

// Absolute; K <= 70 products of N(0, 1) values (outputs up to ~30), summed in
// another order than torch's.
constexpr double kMatmulTolerance = 1e-4;

class MatmulTest : public test::GpuTest {};

TEST_F(MatmulTest, LinearFollowsLiveRowsThroughGemvAndGemm) {
  constexpr int64_t kMaxM = 40, kK = 70, kN = 50;
  const auto x = load_npy("matmul.linear_x").as<float>();
  const auto w = load_npy("matmul.linear_w"), bias = load_npy("matmul.linear_bias");
  const bool timed = device().features().timestamp_query;
  double worst = 0;
  for (bool with_bias : {false, true}) {
    SCOPED_TRACE(with_bias ? "bias" : "no bias");
    const auto want = load_npy(with_bias ? "matmul.linear_out_bias" : "matmul.linear_out").as<float>();
    GraphBuilder b;
    const ValueId in = b.add_tensor(DType::F32, {1, kMaxM, kK});
    b.mark_input(in);
    const ValueId out = b.add_tensor(DType::F32, {1, kMaxM, kN});
    b.add_op("aten.linear.default", {in, b.add_constant(DType::F32, w.dims, w.bytes),
                                     with_bias ? b.add_constant(DType::F32, bias.dims, bias.bytes) : b.add_null(),
                                     out});
    b.mark_output(out);
    auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
    const auto handles = test::buffer_handles(*g);
    for (int64_t m : {kMaxM, int64_t{1}, int64_t{33}, int64_t{7}, int64_t{1}, kMaxM}) {
      SCOPED_TRACE("M=" + std::to_string(m));
      const auto xs = test::leading(x, {1, kMaxM, kK}, 1, m);
      const HostTensorView ins[] = {test::f32_view(xs, {1, m, kK})};
      ExecuteOptions opts;
      opts.time_dispatches = timed;
      const auto got = g->execute(ins, opts)[0];
      ASSERT_EQ(got.dims, (Dims{1, m, kN}));
      const double err = test::max_abs_error(test::floats(got), test::leading(want, {1, kMaxM, kN}, 1, m));
      EXPECT_LE(err, kMatmulTolerance);
      worst = std::max(worst, err);
      if (timed) {  // zero-workgroup dispatches are skipped: the timings name the kernel that ran
        ASSERT_EQ(g->last_timings().size(), 1u);
        EXPECT_EQ(g->last_timings()[0].label, m == 1 ? ops::kMatmulGemvLabel : ops::kMatmulGemmLabel);
      }
    }
    EXPECT_EQ(test::buffer_handles(*g), handles);
  }
  std::printf("[ linear ] max abs error %.3g\n", worst);
}

TEST_F(MatmulTest, MmStaticAndAtFewerRows) {
  constexpr int64_t kM = 37, kK = 45, kN = 29;
  const auto a = load_npy("matmul.mm_a"), bm = load_npy("matmul.mm_b");
  const auto av = a.as<float>(), want = load_npy("matmul.mm_out").as<float>();
  GraphBuilder b;
  const ValueId in = b.add_tensor(DType::F32, {kM, kK});
  b.mark_input(in);
  const ValueId out = b.add_tensor(DType::F32, {kM, kN});
  b.add_op("aten.mm.default", {in, b.add_constant(DType::F32, bm.dims, bm.bytes), out});
  b.mark_output(out);
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  double worst = 0;
  for (int64_t m : {kM, int64_t{20}, int64_t{1}, kM}) {
    SCOPED_TRACE("M=" + std::to_string(m));
    const auto as = test::leading(av, {kM, kK}, 0, m);
    const HostTensorView ins[] = {test::f32_view(as, {m, kK})};
    const auto got = g->execute(ins)[0];
    ASSERT_EQ(got.dims, (Dims{m, kN}));
    const double err = test::max_abs_error(test::floats(got), test::leading(want, {kM, kN}, 0, m));
    EXPECT_LE(err, kMatmulTolerance);
    worst = std::max(worst, err);
  }
  std::printf("[ mm ] max abs error %.3g\n", worst);
}

TEST_F(MatmulTest, BmmFollowsTheLiveBatch) {
  constexpr int64_t kB = 3, kM = 19, kK = 40, kN = 35;
  const auto av = load_npy("matmul.bmm_a").as<float>(), bv = load_npy("matmul.bmm_b").as<float>();
  const auto want = load_npy("matmul.bmm_out").as<float>();
  GraphBuilder b;
  const ValueId lhs = b.add_tensor(DType::F32, {kB, kM, kK});
  const ValueId rhs = b.add_tensor(DType::F32, {kB, kK, kN});
  b.mark_input(lhs);
  b.mark_input(rhs);
  const ValueId out = b.add_tensor(DType::F32, {kB, kM, kN});
  b.add_op("aten.bmm.default", {lhs, rhs, out});
  b.mark_output(out);
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  double worst = 0;
  for (int64_t batch : {kB, int64_t{1}, int64_t{2}, kB}) {
    SCOPED_TRACE("B=" + std::to_string(batch));
    const auto as = test::leading(av, {kB, kM, kK}, 0, batch), bs = test::leading(bv, {kB, kK, kN}, 0, batch);
    const HostTensorView ins[] = {test::f32_view(as, {batch, kM, kK}), test::f32_view(bs, {batch, kK, kN})};
    const auto got = g->execute(ins)[0];
    ASSERT_EQ(got.dims, (Dims{batch, kM, kN}));
    const double err = test::max_abs_error(test::floats(got), test::leading(want, {kB, kM, kN}, 0, batch));
    EXPECT_LE(err, kMatmulTolerance);
    worst = std::max(worst, err);
  }
  std::printf("[ bmm ] max abs error %.3g\n", worst);
}

// mm and bmm check that the inner dims agree before anything is allocated.
TEST_F(MatmulTest, MismatchedInnerDimsAreRejected) {
  GraphBuilder b;
  const ValueId lhs = b.add_tensor(DType::F32, {4, 5});
  const ValueId rhs = b.add_tensor(DType::F32, {6, 3});
  b.mark_input(lhs);
  b.mark_input(rhs);
  const ValueId out = b.add_tensor(DType::F32, {4, 3});
  b.add_op("aten.mm.default", {lhs, rhs, out});
  b.mark_output(out);
  try {
    ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
    FAIL() << "expected InvalidProgram";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidProgram) << e.what();
  }
}

}  // namespace
}  // namespace wgrt
