// Scalar arguments as VulkanPartitioner passes them (issue 31, item 1, in
// part): a PyTorch Scalar may be a bool. scaled_dot_product_attention with
// is_causal=True and transformers' attention masks build their masks with
// aten.full(size, True, dtype=bool), which wgrt refused ("expected a
// number, got bool") before OpArgs::number took bools. And a SymInt bound of
// arange (a dynamic sequence length): "expected a number, got symint".
#include <gtest/gtest.h>

#include <cstring>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"

namespace wgrt {
namespace {

class ScalarArgsTest : public test::GpuTest {};

TEST_F(ScalarArgsTest, BoolFillValuesMakeMasks) {
  for (bool value : {true, false}) {
    SCOPED_TRACE(value ? "True" : "False");
    GraphBuilder b;
    const ValueId x = b.add_tensor(DType::F32, {1});  // a graph needs an input
    b.mark_input(x);
    const ValueId mask = b.add_tensor(DType::Bool, {3, 5});
    b.add_op("aten.full.default", {b.add_int_list({3, 5}), b.add_bool(value), b.add_int(11), b.add_null(),
                                   b.add_null(), b.add_null(), mask});
    const ValueId floats = b.add_tensor(DType::F32, {2, 4});
    b.add_op("aten.full.default", {b.add_int_list({2, 4}), b.add_bool(value), b.add_null(), b.add_null(),
                                   b.add_null(), b.add_null(), floats});
    b.mark_output(mask);
    b.mark_output(floats);
    auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
    const std::vector<float> one = {0.0f};
    const HostTensorView in[] = {test::f32_view(one, {1})};
    const auto outs = g->execute(in);
    ASSERT_EQ(outs.at(0).dtype, DType::Bool);
    EXPECT_EQ(outs.at(0).data, std::vector<uint8_t>(15, value ? 1 : 0));
    EXPECT_EQ(test::floats(outs.at(1)), std::vector<float>(8, value ? 1.0f : 0.0f));  // True is 1 as a number
  }
}

// A dynamic sequence length exported as a SymInt bound of arange (BERT's
// positions): the output is built at its maximum length and follows the
// live SymInt; a length past the maximum is refused and the graph stays usable.
TEST_F(ScalarArgsTest, ArangeWithASymIntEndFollowsTheLiveLength) {
  constexpr int64_t kMax = 8;
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {1, kMax});
  b.mark_input(x);
  const ValueId len = b.add_symint(kMax);
  b.add_op("sym_size.int", {x, b.add_int(1), len});
  const ValueId positions = b.add_tensor(DType::I64, {kMax});
  b.add_op("aten.arange.start_step", {b.add_int(0), len, b.add_int(1), b.add_int(4), b.add_null(), b.add_null(),
                                      b.add_null(), positions});
  const ValueId odd = b.add_tensor(DType::F32, {kMax / 2});
  b.add_op("aten.arange.start_step", {b.add_int(1), len, b.add_int(2), b.add_null(), b.add_null(), b.add_null(),
                                      b.add_null(), odd});
  b.mark_output(positions);
  b.mark_output(odd);
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  for (int64_t n : {kMax, int64_t{5}, int64_t{1}, kMax}) {
    SCOPED_TRACE("length " + std::to_string(n));
    const std::vector<float> xs(static_cast<size_t>(n), 0.0f);
    const HostTensorView in[] = {test::f32_view(xs, {1, n})};
    const auto outs = g->execute(in);
    ASSERT_EQ(outs.at(0).dims, (Dims{n}));
    std::vector<int64_t> want(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) want[size_t(i)] = i;
    std::vector<int64_t> got(static_cast<size_t>(n));
    std::memcpy(got.data(), outs.at(0).data.data(), got.size() * 8);
    EXPECT_EQ(got, want);
    ASSERT_EQ(outs.at(1).dims, (Dims{n / 2}));  // 1, 3, 5, ... below n
    for (int64_t i = 0; i < n / 2; ++i) EXPECT_EQ(test::floats(outs.at(1))[size_t(i)], float(1 + 2 * i));
  }
}

}  // namespace
}  // namespace wgrt
