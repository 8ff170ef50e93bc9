// aten._softmax / aten._log_softmax along every dim and
// aten.native_layer_norm (out, mean, rstd) against torch goldens
// (tests/fixtures/ops/softmax.*, log_softmax.*, layer_norm.*), each graph
// loaded once at S = 6 and run at live S = 6 (static), 3, 1 and 6 again.
#include <gtest/gtest.h>

#include "gpu_test_env.h"
#include "host_tensors.h"
#include "op_goldens.h"

namespace wgrt {
namespace {

using test::load_npy;

// Absolute. Softmax outputs are in [0, 1]; log-softmax outputs reach ~-60
// (inputs scaled by 4): a few f32 ulps of that. Layer norm's outputs are
// O(5) after weight and bias; rstd of variance ~9 rows is ~0.33.
constexpr double kSoftmaxTolerance = 1e-6;
constexpr double kLogSoftmaxTolerance = 2e-5;
constexpr double kLayerNormTolerance = 1e-5;

constexpr int64_t kRows = 3, kMaxS = 6, kCols = 20;

class SoftmaxLayerNormTest : public test::GpuTest {};

TEST_F(SoftmaxLayerNormTest, SoftmaxAndLogSoftmaxAlongEachDimFollowLiveS) {
  const auto x = load_npy("softmax.x").as<float>();
  const int64_t dims[] = {-1, 1, 0};
  GraphBuilder b;
  const ValueId in = b.add_tensor(DType::F32, {kRows, kMaxS, kCols});
  b.mark_input(in);
  std::vector<std::string> goldens;  // per output: "<op>.s{S}.dim{d}" without the S part
  for (const char* op : {"softmax", "log_softmax"}) {
    for (int64_t d : dims) {
      const ValueId out = b.add_tensor(DType::F32, {kRows, kMaxS, kCols});
      b.add_op(std::string("aten._") + op + ".default", {in, b.add_int(d), b.add_bool(false), out});
      b.mark_output(out);
      goldens.push_back(std::string(op) + "|dim" + std::to_string(d));
    }
  }
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  const auto handles = test::buffer_handles(*g);
  double worst_softmax = 0, worst_log = 0;
  for (int64_t s : {kMaxS, int64_t{3}, int64_t{1}, kMaxS}) {
    SCOPED_TRACE("S=" + std::to_string(s));
    const auto xs = test::leading(x, {kRows, kMaxS, kCols}, 1, s);
    const HostTensorView ins[] = {test::f32_view(xs, {kRows, s, kCols})};
    const auto outs = g->execute(ins);
    for (size_t i = 0; i < goldens.size(); ++i) {
      const std::string op = goldens[i].substr(0, goldens[i].find('|'));
      const std::string name = op + ".s" + std::to_string(s) + "." + goldens[i].substr(goldens[i].find('|') + 1);
      SCOPED_TRACE(name);
      ASSERT_EQ(outs[i].dims, (Dims{kRows, s, kCols}));
      const double err = test::max_abs_error(test::floats(outs[i]), load_npy(name).as<float>());
      const bool log = op == "log_softmax";
      EXPECT_LE(err, log ? kLogSoftmaxTolerance : kSoftmaxTolerance);
      (log ? worst_log : worst_softmax) = std::max(log ? worst_log : worst_softmax, err);
    }
  }
  EXPECT_EQ(test::buffer_handles(*g), handles);
  std::printf("[ softmax ] max abs error %.3g; [ log_softmax ] %.3g\n", worst_softmax, worst_log);
}

// 1000 values a row (the workgroup strides the row), spread +-100: without
// subtracting the max, exp would overflow.
TEST_F(SoftmaxLayerNormTest, SoftmaxOfALongRowOfLargeValuesIsStable) {
  const auto x = load_npy("softmax.long_x");
  GraphBuilder b;
  const ValueId in = b.add_tensor(DType::F32, x.dims);
  b.mark_input(in);
  const ValueId out = b.add_tensor(DType::F32, x.dims);
  b.add_op("aten._softmax.default", {in, b.add_int(-1), b.add_bool(false), out});
  b.mark_output(out);
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  const HostTensorView ins[] = {x.view()};
  const double err = test::max_abs_error(test::floats(g->execute(ins)[0]), load_npy("softmax.long_out").as<float>());
  EXPECT_LE(err, kSoftmaxTolerance);
  std::printf("[ softmax long row ] max abs error %.3g\n", err);
}

TEST_F(SoftmaxLayerNormTest, LayerNormWritesOutMeanAndRstdAtLiveS) {
  constexpr int64_t kBatch = 2, kD = 48;
  const auto x = load_npy("layer_norm.x").as<float>();
  const auto w = load_npy("layer_norm.w"), bias = load_npy("layer_norm.b");
  GraphBuilder b;
  const ValueId in = b.add_tensor(DType::F32, {kBatch, kMaxS, kD});
  b.mark_input(in);
  const ValueId out = b.add_tensor(DType::F32, {kBatch, kMaxS, kD});
  const ValueId mean = b.add_tensor(DType::F32, {kBatch, kMaxS, 1});
  const ValueId rstd = b.add_tensor(DType::F32, {kBatch, kMaxS, 1});
  b.add_op("aten.native_layer_norm.default",
           {in, b.add_int_list({kD}), b.add_constant(DType::F32, w.dims, w.bytes),
            b.add_constant(DType::F32, bias.dims, bias.bytes), b.add_double(1e-5), b.add_value_list({out, mean, rstd})});
  for (ValueId id : {out, mean, rstd}) b.mark_output(id);
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  const auto handles = test::buffer_handles(*g);
  double worst = 0;
  for (int64_t s : {kMaxS, int64_t{3}, int64_t{1}, kMaxS}) {
    SCOPED_TRACE("S=" + std::to_string(s));
    const auto xs = test::leading(x, {kBatch, kMaxS, kD}, 1, s);
    const HostTensorView ins[] = {test::f32_view(xs, {kBatch, s, kD})};
    const auto outs = g->execute(ins);
    const char* parts[] = {"out", "mean", "rstd"};
    for (size_t i = 0; i < 3; ++i) {
      SCOPED_TRACE(parts[i]);
      const auto want = load_npy("layer_norm.s" + std::to_string(s) + "." + parts[i]);
      ASSERT_EQ(outs[i].dims, want.dims);
      const double err = test::max_abs_error(test::floats(outs[i]), want.as<float>());
      EXPECT_LE(err, kLayerNormTolerance);
      worst = std::max(worst, err);
    }
  }
  EXPECT_EQ(test::buffer_handles(*g), handles);
  std::printf("[ native_layer_norm ] max abs error %.3g\n", worst);
}

// Two normalized dims, no weight or bias (Null): the placeholders are never read.
TEST_F(SoftmaxLayerNormTest, LayerNormOverTwoDimsWithoutAffine) {
  const auto x = load_npy("layer_norm.x2");
  GraphBuilder b;
  const ValueId in = b.add_tensor(DType::F32, x.dims);
  b.mark_input(in);
  const ValueId out = b.add_tensor(DType::F32, x.dims);
  const ValueId mean = b.add_tensor(DType::F32, {x.dims[0], 1, 1});
  const ValueId rstd = b.add_tensor(DType::F32, {x.dims[0], 1, 1});
  b.add_op("aten.native_layer_norm.default", {in, b.add_int_list({x.dims[1], x.dims[2]}), b.add_null(), b.add_null(),
                                              b.add_double(1e-5), b.add_value_list({out, mean, rstd})});
  for (ValueId id : {out, mean, rstd}) b.mark_output(id);
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  const HostTensorView ins[] = {x.view()};
  const auto outs = g->execute(ins);
  double worst = 0;
  const char* parts[] = {"x2_out", "x2_mean", "x2_rstd"};
  for (size_t i = 0; i < 3; ++i) {
    const auto want = load_npy(std::string("layer_norm.") + parts[i]);
    ASSERT_EQ(outs[i].dims, want.dims) << parts[i];
    worst = std::max(worst, test::max_abs_error(test::floats(outs[i]), want.as<float>()));
  }
  EXPECT_LE(worst, kLayerNormTolerance);
  std::printf("[ native_layer_norm, 2 dims, no affine ] max abs error %.3g\n", worst);
}

}  // namespace
}  // namespace wgrt
