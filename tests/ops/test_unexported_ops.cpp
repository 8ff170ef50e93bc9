// The six in-scope VulkanPartitioner ops that no export of executorch 1.5.1
// delivers to a delegate (tests/coverage/known_missing.txt gives the reason
// for each; the coverage test requires every such op to be named here), run
// on hand-built graphs against torch (tests/fixtures/ops/unexported.*, from
// tools/export/make_op_goldens.py unexported): a program built by another
// exporter, or a later executorch, may still carry them.
#include <gtest/gtest.h>

#include <functional>

#include "gpu_test_env.h"
#include "host_tensors.h"
#include "op_goldens.h"

namespace wgrt {
namespace {

using test::load_npy;

class UnexportedOpsTest : public test::GpuTest {
 protected:
  // Builds x -> op -> out (the op's arguments from `args`, given x's id and
  // the output's), runs it on the golden x and compares with `golden` exactly:
  // every op here moves or selects values without arithmetic.
  void expect_golden(const char* golden, const std::function<std::vector<ValueId>(GraphBuilder&, ValueId, ValueId)>& args,
                     const std::string& op, bool with_src = false) {
    SCOPED_TRACE(op);
    const auto x = load_npy("unexported.x"), src = load_npy("unexported.src"), want = load_npy(golden);
    GraphBuilder b;
    const ValueId xi = b.add_tensor(DType::F32, x.dims);
    b.mark_input(xi);
    ValueId si{};
    if (with_src) {
      si = b.add_tensor(DType::F32, src.dims);
      b.mark_input(si);
    }
    const ValueId out = b.add_tensor(DType::F32, want.dims);
    b.mark_output(out);
    std::vector<ValueId> a = args(b, xi, out);
    if (with_src) a.insert(a.begin() + 1, si);
    b.add_op(op, std::move(a));
    auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
    const auto xs = x.as<float>(), ss = src.as<float>();
    std::vector<HostTensorView> in = {test::f32_view(xs, x.dims)};
    if (with_src) in.push_back(test::f32_view(ss, src.dims));
    const auto outs = g->execute(in);
    EXPECT_EQ(outs.at(0).dims, want.dims);
    EXPECT_EQ(test::max_abs_error(test::floats(outs.at(0)), want.as<float>()), 0.0);
  }
};

TEST_F(UnexportedOpsTest, HardshrinkKeepsOnlyValuesPastLambda) {
  expect_golden("unexported.hardshrink", [](GraphBuilder& b, ValueId x, ValueId out) {
    return std::vector<ValueId>{x, b.add_double(0.5), out};
  }, "aten.hardshrink.default");
}

TEST_F(UnexportedOpsTest, PermuteMovesDims) {
  expect_golden("unexported.permute", [](GraphBuilder& b, ValueId x, ValueId out) {
    return std::vector<ValueId>{x, b.add_int_list({2, 0, 3, 1}), out};
  }, "aten.permute.default");
}

TEST_F(UnexportedOpsTest, AliasCopyCopies) {
  expect_golden("unexported.alias_copy", [](GraphBuilder&, ValueId x, ValueId out) {
    return std::vector<ValueId>{x, out};
  }, "aten.alias_copy.default");
}

TEST_F(UnexportedOpsTest, CopyBroadcastsSrcToSelfsShape) {
  // aten.copy (self, src, non_blocking, out): src [5, 4] into self [2, 3, 5, 4].
  expect_golden("unexported.copy", [](GraphBuilder& b, ValueId x, ValueId out) {
    return std::vector<ValueId>{x, b.add_bool(false), out};
  }, "aten.copy.default", /*with_src=*/true);
}

TEST_F(UnexportedOpsTest, CloneDimOrderKeepsValues) {
  // A channels_last dim order: wgrt keeps tensors contiguous, so only the
  // permutation is checked and the logical values stay where they are.
  expect_golden("unexported.clone_channels_last", [](GraphBuilder& b, ValueId x, ValueId out) {
    return std::vector<ValueId>{x, b.add_bool(false), b.add_int_list({0, 2, 3, 1}), out};
  }, "dim_order_ops._clone_dim_order.default");
}

TEST_F(UnexportedOpsTest, ScalarTensorIsARankZeroTensor) {
  const auto want = load_npy("unexported.scalar_tensor");
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {1});  // a graph needs an input
  b.mark_input(x);
  const ValueId out = b.add_tensor(DType::F32, want.dims);
  b.mark_output(out);
  b.add_op("aten.scalar_tensor.default", {b.add_double(2.5), b.add_int(6), b.add_null(), b.add_null(), b.add_null(), out});
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  const std::vector<float> one = {0.0f};
  const HostTensorView in[] = {test::f32_view(one, {1})};
  const auto outs = g->execute(in);
  EXPECT_EQ(outs.at(0).dims, want.dims);
  EXPECT_EQ(test::floats(outs.at(0)), want.as<float>());
}

// et_vk.swiglu.default (gate, up, out): what ExecuTorch releases after 1.5.1
// emit for silu(gate) * up (seed 001), against torch (goldens:
// tools/export/make_op_goldens.py swiglu) at its maximum rows and fewer,
// each input's live shape driving the hook.
TEST_F(UnexportedOpsTest, SwigluOfNewerExportsFollowsBothInputs) {
  const auto gate = load_npy("swiglu.gate"), up = load_npy("swiglu.up"), want = load_npy("swiglu.out");
  GraphBuilder b;
  const ValueId g = b.add_tensor(DType::F32, gate.dims), u = b.add_tensor(DType::F32, up.dims);
  b.mark_input(g);
  b.mark_input(u);
  const ValueId out = b.add_tensor(DType::F32, want.dims);
  b.mark_output(out);
  b.add_op("et_vk.swiglu.default", {g, u, out});
  auto graph = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());
  const int64_t width = gate.dims[2];
  for (int64_t rows : {gate.dims[1], int64_t{3}, gate.dims[1]}) {
    SCOPED_TRACE("rows=" + std::to_string(rows));
    const auto gs = test::leading(gate.as<float>(), gate.dims, 1, rows), us = test::leading(up.as<float>(), up.dims, 1, rows);
    const HostTensorView in[] = {test::f32_view(gs, {1, rows, width}), test::f32_view(us, {1, rows, width})};
    const auto outs = graph->execute(in);
    ASSERT_EQ(outs.at(0).dims, (Dims{1, rows, width}));
    // silu through exp in f32: 1e-6 of |value| + 1e-6.
    const auto w = test::leading(want.as<float>(), want.dims, 1, rows), got = test::floats(outs.at(0));
    for (size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(got[i], w[i], 1e-6 + 1e-6 * std::abs(w[i])) << i;
  }
  // Live shapes that disagree are refused naming the op's inputs.
  const auto gs = test::leading(gate.as<float>(), gate.dims, 1, 3), us = test::leading(up.as<float>(), up.dims, 1, 2);
  const HostTensorView bad[] = {test::f32_view(gs, {1, 3, width}), test::f32_view(us, {1, 2, width})};
  EXPECT_THROW(graph->execute(bad), Error);
}

}  // namespace
}  // namespace wgrt
