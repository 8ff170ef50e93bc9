// et_vk.apply_rotary_emb.default against torch's complex-number rotation
// (Meta's Llama reference; tests/fixtures/ops/rope.*), static and on one graph
// across live sequence lengths.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu_test_env.h"
#include "host_tensors.h"
#include "op_goldens.h"

namespace wgrt {
namespace {

using test::load_npy;

constexpr double kTolerance = 1e-5;  // absolute; values O(1), one rotation
constexpr int64_t kMaxS = 12, kHeads = 4, kKvHeads = 2, kDim = 16;

Graph rope_graph(const char* op = "et_vk.apply_rotary_emb.default") {
  GraphBuilder b;
  const ValueId xq = b.add_tensor(DType::F32, {1, kMaxS, kHeads, kDim});
  const ValueId xk = b.add_tensor(DType::F32, {1, kMaxS, kKvHeads, kDim});
  const ValueId cos = b.add_tensor(DType::F32, {kMaxS, kDim / 2});
  const ValueId sin = b.add_tensor(DType::F32, {kMaxS, kDim / 2});
  for (ValueId id : {xq, xk, cos, sin}) b.mark_input(id);
  const ValueId q_out = b.add_tensor(DType::F32, {1, kMaxS, kHeads, kDim});
  const ValueId k_out = b.add_tensor(DType::F32, {1, kMaxS, kKvHeads, kDim});
  b.add_op(op, {xq, xk, cos, sin, b.add_value_list({q_out, k_out})});
  b.mark_output(k_out);  // outputs in the opposite order: picked by shape, not position
  b.mark_output(q_out);
  return std::move(b).build();
}

class RopeTest : public test::GpuTest {};

TEST_F(RopeTest, MatchesTorchAtEveryLiveLength) {
  const auto xq = load_npy("rope.xq").as<float>(), xk = load_npy("rope.xk").as<float>(),
             cos = load_npy("rope.cos").as<float>(), sin = load_npy("rope.sin").as<float>(),
             q_want = load_npy("rope.xq_out").as<float>(), k_want = load_npy("rope.xk_out").as<float>();
  auto g = ExecutableGraph::load(device(), rope_graph(), test::load_options());
  const auto handles = test::buffer_handles(*g);
  double worst = 0;
  // The maximum first (the static run), then shrinking and growing.
  for (int64_t s : {kMaxS, int64_t{5}, int64_t{1}, int64_t{9}, kMaxS}) {
    SCOPED_TRACE("S=" + std::to_string(s));
    const Dims qd{1, kMaxS, kHeads, kDim}, kd{1, kMaxS, kKvHeads, kDim}, fd{kMaxS, kDim / 2};
    const auto q = test::leading(xq, qd, 1, s), k = test::leading(xk, kd, 1, s);
    const auto c = test::leading(cos, fd, 0, s), n = test::leading(sin, fd, 0, s);
    const HostTensorView in[] = {test::f32_view(q, {1, s, kHeads, kDim}), test::f32_view(k, {1, s, kKvHeads, kDim}),
                                 test::f32_view(c, {s, kDim / 2}), test::f32_view(n, {s, kDim / 2})};
    const auto outs = g->execute(in);
    const double eq = test::max_abs_error(test::floats(test::output_shaped(outs, {1, s, kHeads, kDim})),
                                          test::leading(q_want, qd, 1, s));
    const double ek = test::max_abs_error(test::floats(test::output_shaped(outs, {1, s, kKvHeads, kDim})),
                                          test::leading(k_want, kd, 1, s));
    EXPECT_LE(eq, kTolerance);
    EXPECT_LE(ek, kTolerance);
    worst = std::max({worst, eq, ek});
  }
  EXPECT_EQ(test::buffer_handles(*g), handles);
  std::printf("[ apply_rotary_emb ] max abs error %.3g\n", worst);
}

// Pairs (x[i], x[i + D/2]) of each head, against the rotation written out in
// double on the host (the torch goldens use adjacent pairs).
TEST_F(RopeTest, HalvesVariantRotatesPairsHalfAHeadApart) {
  const auto xq = load_npy("rope.xq").as<float>(), xk = load_npy("rope.xk").as<float>(),
             cos = load_npy("rope.cos").as<float>(), sin = load_npy("rope.sin").as<float>();
  auto g = ExecutableGraph::load(device(), rope_graph("wgrt.apply_rotary_emb_halves"), test::load_options());
  auto expected = [&](const std::vector<float>& x, int64_t s, int64_t heads) {
    std::vector<double> out(x.size());
    constexpr int64_t half = kDim / 2;
    for (int64_t p = 0; p < s; ++p) {
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t base = (p * heads + h) * kDim;
        for (int64_t i = 0; i < half; ++i) {
          const double a = x[base + i], b = x[base + i + half], c = cos[p * half + i], n = sin[p * half + i];
          out[base + i] = a * c - b * n;
          out[base + i + half] = a * n + b * c;
        }
      }
    }
    return out;
  };
  for (int64_t s : {kMaxS, int64_t{3}}) {
    SCOPED_TRACE("S=" + std::to_string(s));
    const Dims qd{1, kMaxS, kHeads, kDim}, kd{1, kMaxS, kKvHeads, kDim}, fd{kMaxS, kDim / 2};
    const auto q = test::leading(xq, qd, 1, s), k = test::leading(xk, kd, 1, s);
    const auto c = test::leading(cos, fd, 0, s), n = test::leading(sin, fd, 0, s);
    const HostTensorView in[] = {test::f32_view(q, {1, s, kHeads, kDim}), test::f32_view(k, {1, s, kKvHeads, kDim}),
                                 test::f32_view(c, {s, kDim / 2}), test::f32_view(n, {s, kDim / 2})};
    const auto outs = g->execute(in);
    const auto got_q = test::floats(test::output_shaped(outs, {1, s, kHeads, kDim}));
    const auto got_k = test::floats(test::output_shaped(outs, {1, s, kKvHeads, kDim}));
    const auto want_q = expected(q, s, kHeads), want_k = expected(k, s, kKvHeads);
    double worst = 0;
    for (size_t i = 0; i < want_q.size(); ++i) worst = std::max(worst, std::abs(got_q[i] - want_q[i]));
    for (size_t i = 0; i < want_k.size(); ++i) worst = std::max(worst, std::abs(got_k[i] - want_k[i]));
    EXPECT_LE(worst, kTolerance);
  }
}

}  // namespace
}  // namespace wgrt
