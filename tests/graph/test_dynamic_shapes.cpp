// One graph built at the maximum shape and run at smaller live shapes
// through resize hooks (seed 004).
#include <gtest/gtest.h>

#include <cmath>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"

namespace wgrt {
namespace {

constexpr int64_t kMaxS = 64, kD = 48;

struct Cascade {
  Graph graph;
  std::vector<float> weight;
};

// out = (rms(rms(x)) + x) * x, x: [S <= 64, 48]
Cascade rms_cascade() {
  Cascade c;
  c.weight = test::random_floats(kD, 11, 0.5f, 1.5f);
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {kMaxS, kD});
  b.mark_input(x);
  const ValueId w = b.add_constant(DType::F32, {kD}, test::bytes_of(c.weight));
  const ValueId eps = b.add_double(1e-5);
  const ValueId h1 = b.add_tensor(DType::F32, {kMaxS, kD});
  const ValueId h2 = b.add_tensor(DType::F32, {kMaxS, kD});
  const ValueId s = b.add_tensor(DType::F32, {kMaxS, kD});
  const ValueId out = b.add_tensor(DType::F32, {kMaxS, kD});
  b.add_op("et_vk.rms_norm.default", {x, w, eps, h1});
  b.add_op("et_vk.rms_norm.default", {h1, w, eps, h2});
  b.add_op("aten.add.Tensor", {h2, x, b.add_int(1), s});
  b.add_op("aten.mul.Tensor", {s, x, out});
  b.mark_output(out);
  c.graph = std::move(b).build();
  return c;
}

std::vector<double> rms_ref(const std::vector<double>& x, const std::vector<float>& w, int64_t rows) {
  std::vector<double> out(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < kD; ++i) ss += x[r * kD + i] * x[r * kD + i];
    const double scale = 1.0 / std::sqrt(ss / kD + 1e-5);
    for (int64_t i = 0; i < kD; ++i) out[r * kD + i] = x[r * kD + i] * scale * w[i];
  }
  return out;
}

class DynamicShapeTest : public test::GpuTest {};

TEST_F(DynamicShapeTest, OneGraphServesShrinkingAndGrowingShapes) {
  Cascade c = rms_cascade();
  auto g = ExecutableGraph::load(device(), std::move(c.graph), test::load_options());
  const auto handles = test::buffer_handles(*g);
  const size_t dispatches = g->dispatch_count();

  // Shrinking, then growing back, then the maximum again.
  for (int64_t s : {kMaxS, int64_t{17}, int64_t{5}, int64_t{1}, int64_t{33}, int64_t{64}, int64_t{2}}) {
    SCOPED_TRACE("S=" + std::to_string(s));
    const auto x = test::random_floats(s * kD, uint32_t(100 + s));
    const HostTensorView in[] = {test::f32_view(x, {s, kD})};
    const HostTensor out = g->execute(in)[0];
    ASSERT_EQ(out.dims, (Dims{s, kD}));
    const auto got = test::floats(out);
    std::vector<double> xd(x.begin(), x.end());
    const auto h2 = rms_ref(rms_ref(xd, c.weight, s), c.weight, s);
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double want = (h2[i] + xd[i]) * xd[i];
      worst = std::max(worst, std::abs(got[i] - want) / (1.0 + std::abs(want)));
    }
    EXPECT_LT(worst, 1e-5) << "f32 tolerance: 1e-5 relative";  // stated f32 tolerance
  }
  // Buffers and dispatches never moved.
  EXPECT_EQ(test::buffer_handles(*g), handles);
  EXPECT_EQ(g->dispatch_count(), dispatches);
}

TEST_F(DynamicShapeTest, HooksFireOnlyWhenAShapeChanges) {
  Cascade c = rms_cascade();
  auto g = ExecutableGraph::load(device(), std::move(c.graph), test::load_options());
  const auto x = test::random_floats(kMaxS * kD, 5);
  const HostTensorView full[] = {test::f32_view(x, {kMaxS, kD})};
  const std::vector<float> part(x.begin(), x.begin() + 10 * kD);
  const HostTensorView ten[] = {test::f32_view(part, {10, kD})};

  const auto first = test::floats(g->execute(full)[0]);
  EXPECT_EQ(g->hooks_fired_last_execute(), 0u) << "a static run fires no hook";
  g->execute(ten);
  EXPECT_EQ(g->hooks_fired_last_execute(), 4u) << "one hook per op in the cascade";
  g->execute(ten);
  EXPECT_EQ(g->hooks_fired_last_execute(), 0u);
  const auto again = test::floats(g->execute(full)[0]);
  EXPECT_EQ(g->hooks_fired_last_execute(), 4u);
  EXPECT_EQ(first, again);
}

TEST_F(DynamicShapeTest, OutputsSkippedOnRequestKeepTheirLiveShape) {
  Cascade c = rms_cascade();
  auto g = ExecutableGraph::load(device(), std::move(c.graph), test::load_options());
  const auto x = test::random_floats(3 * kD, 9);
  const HostTensorView in[] = {test::f32_view(x, {3, kD})};
  ExecuteOptions opts;
  opts.read_outputs = {false};
  const HostTensor out = g->execute(in, opts)[0];
  EXPECT_EQ(out.dims, (Dims{3, kD}));
  EXPECT_TRUE(out.data.empty());
}

TEST_F(DynamicShapeTest, PerDispatchTimingNamesEachOp) {
  if (!device().features().timestamp_query) GTEST_SKIP() << "adapter has no timestamp-query";
  Cascade c = rms_cascade();
  auto g = ExecutableGraph::load(device(), std::move(c.graph), test::load_options());
  const auto x = test::random_floats(kMaxS * kD, 5);
  const HostTensorView in[] = {test::f32_view(x, {kMaxS, kD})};
  ExecuteOptions opts;
  opts.time_dispatches = true;
  g->execute(in, opts);
  ASSERT_EQ(g->last_timings().size(), 4u);
  EXPECT_EQ(g->last_timings()[0].label, "et_vk.rms_norm.default");
  EXPECT_EQ(g->last_timings()[3].label, "aten.mul.Tensor");
}

}  // namespace
}  // namespace wgrt
