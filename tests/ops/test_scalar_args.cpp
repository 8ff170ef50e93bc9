// Scalar arguments as VulkanPartitioner passes them (issue 31, item 1, in
// part): a PyTorch Scalar may be a bool. scaled_dot_product_attention with
// is_causal=True and transformers' attention masks build their masks with
// aten.full(size, True, dtype=bool), which wgrt refused ("expected a
// number, got bool") before OpArgs::number took bools.
#include <gtest/gtest.h>

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
    auto g = ExecutableGraph::load(device(), std::move(b).build());
    const std::vector<float> one = {0.0f};
    const HostTensorView in[] = {test::f32_view(one, {1})};
    const auto outs = g->execute(in);
    ASSERT_EQ(outs.at(0).dtype, DType::Bool);
    EXPECT_EQ(outs.at(0).data, std::vector<uint8_t>(15, value ? 1 : 0));
    EXPECT_EQ(test::floats(outs.at(1)), std::vector<float>(8, value ? 1.0f : 0.0f));  // True is 1 as a number
  }
}

}  // namespace
}  // namespace wgrt
