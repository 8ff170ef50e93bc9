// aten.eq.Scalar, aten.logical_not, aten.where.self and aten.full_like (the
// attention-mask ops of a stock nn.TransformerEncoder) against a CPU
// reference, in one graph loaded at [2, 3, 5] and run at live shapes [2, 3, 5],
// [1, 3, 2] and [2, 3, 5] again: bool outputs of every length mod 4, -inf
// matched exactly, where broadcasting a [B, 3, 1] condition.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gpu_test_env.h"
#include "host_tensors.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

class MaskOpsTest : public test::GpuTest {};

TEST_F(MaskOpsTest, MaskOpsMatchCpuAtLiveShapes) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {2, 3, 5});
  const ValueId row = b.add_tensor(DType::F32, {2, 3, 1});
  b.mark_input(x);
  b.mark_input(row);
  const ValueId is_inf = b.add_tensor(DType::Bool, {2, 3, 5}), keep = b.add_tensor(DType::Bool, {2, 3, 5});
  const ValueId row_inf = b.add_tensor(DType::Bool, {2, 3, 1});
  const ValueId zeros = b.add_tensor(DType::F32, {2, 3, 5}), out = b.add_tensor(DType::F32, {2, 3, 5});
  b.add_op("aten.eq.Scalar", {x, b.add_double(-kInf), is_inf});
  b.add_op("aten.logical_not.default", {is_inf, keep});
  b.add_op("aten.eq.Scalar", {row, b.add_int(0), row_inf});
  const ValueId null = b.add_null();
  b.add_op("aten.full_like.default", {x, b.add_double(0.5), null, null, null, b.add_bool(false), null, zeros});
  b.add_op("aten.where.self", {row_inf, zeros, x, out});  // a row whose `row` is 0 becomes 0.5
  for (ValueId id : {keep, out}) b.mark_output(id);
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());

  for (const Dims& dims : {Dims{2, 3, 5}, Dims{1, 3, 2}, Dims{2, 3, 5}}) {
    const size_t n = static_cast<size_t>(numel(dims)), rows = static_cast<size_t>(dims[0] * dims[1]);
    auto xs = test::random_floats(n, static_cast<uint32_t>(n));
    for (size_t i = 0; i < n; i += 3) xs[i] = -kInf;
    xs[1] = kInf;  // +inf is not -inf
    std::vector<float> rs(rows);
    for (size_t r = 0; r < rows; ++r) rs[r] = r % 3 == 0 ? -0.0f : r % 3 == 1 ? 0.0f : static_cast<float>(r);  // -0 == 0
    const HostTensorView inputs[] = {test::f32_view(xs, dims), test::f32_view(rs, {dims[0], dims[1], 1})};
    const auto outs = g->execute(inputs);
    ASSERT_EQ(outs[0].dims, dims);
    ASSERT_EQ(outs[1].dims, dims);
    const auto got = test::floats(outs[1]);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(outs[0].data[i], xs[i] == -kInf ? 0 : 1) << "logical_not(eq) at " << i;
      const float want = rs[i / static_cast<size_t>(dims[2])] == 0.0f ? 0.5f : xs[i];
      EXPECT_EQ(got[i], want) << "where at " << i;
    }
  }
}

TEST_F(MaskOpsTest, ArgumentChecksNameTheArgument) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {4});
  const ValueId wrong = b.add_tensor(DType::Bool, {3});  // eq.Scalar's output has its input's shape
  b.mark_input(x);
  b.add_op("aten.eq.Scalar", {x, b.add_double(1.0), wrong});
  b.mark_output(wrong);
  try {
    ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("aten.eq.Scalar"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wgrt
