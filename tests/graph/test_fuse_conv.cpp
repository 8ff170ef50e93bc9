// The convolution residual fusion (ops/passes/fuse_linear.h): a ResNet
// block's conv -> add -> relu becomes one wgrt.conv2d_fused, also when the
// exporter's memory plan puts the add's result in the memory of the
// convolution's own input (then the output gets a buffer of its own), and
// the fused graph computes what the unfused one does.
#include <gtest/gtest.h>

#include <cstring>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "ops/passes/fuse_linear.h"
#include "host_tensors.h"

namespace wgrt {
namespace {

constexpr int64_t kC = 8, kH = 9, kW = 7;

std::vector<uint8_t> weight_bytes(uint32_t seed) {
  const auto w = test::random_floats(size_t(kC * kC * 9), seed, -0.3f, 0.3f);
  std::vector<uint8_t> b(w.size() * sizeof(float));
  std::memcpy(b.data(), w.data(), b.size());
  return b;
}

// x -> conv -> relu -> a; conv(a) -> y; add(y, residual) -> z; relu(z) -> s;
// relu(s) -> out. Memory objects as an exporter plans them: s reuses a's
// object (a is dead once the second convolution ran), which the fused
// convolution, writing s, must not write into while it still reads a. `residual_dims` other than x's makes
// the add broadcast (not fused).
Graph block(Dims residual_dims = {1, kC, kH, kW}) {
  GraphBuilder b;
  const Dims d = {1, kC, kH, kW};
  const ValueId x = b.add_tensor(DType::F32, d);
  b.mark_input(x);
  const ValueId res = residual_dims == d ? x : b.add_tensor(DType::F32, residual_dims);
  if (res != x) b.mark_input(res);
  const ValueId c1 = b.add_tensor(DType::F32, d, 0), a = b.add_tensor(DType::F32, d, 1);
  const ValueId y = b.add_tensor(DType::F32, d, 0), z = b.add_tensor(DType::F32, d, 2);
  const ValueId s = b.add_tensor(DType::F32, d, 1);
  const ValueId out = b.add_tensor(DType::F32, d);
  b.mark_output(out);
  const ValueId null = b.add_null();
  auto conv = [&](ValueId in, ValueId o, uint32_t seed) {
    const ValueId w = b.add_constant(DType::F32, {kC, kC, 3, 3}, weight_bytes(seed));
    b.add_op("aten.convolution.default", {in, w, null, b.add_int_list({1, 1}), b.add_int_list({1, 1}),
                                          b.add_int_list({1, 1}), b.add_bool(false), b.add_int_list({0, 0}),
                                          b.add_int(1), o});
  };
  conv(x, c1, 1);
  b.add_op("aten.relu.default", {c1, a});
  conv(a, y, 2);
  b.add_op("aten.add.Tensor", {y, res, b.add_int(1), z});
  b.add_op("aten.relu.default", {z, s});
  b.add_op("aten.relu.default", {s, out});
  return std::move(b).build();
}

std::vector<std::string> op_names(const Graph& g) {
  std::vector<std::string> out;
  for (const OpCall& op : g.ops) out.push_back(op.name);
  return out;
}

TEST(FuseConv, AddAndReluFoldIntoTheConvolution) {
  Graph g = block();
  const FusionStats st = fuse_linear_layers(g);
  EXPECT_EQ(st.conv_residuals, 1u);
  EXPECT_EQ(op_names(g), (std::vector<std::string>{"aten.convolution.default", "aten.relu.default", "wgrt.conv2d_fused",
                                                   "aten.relu.default"}));
  // The fused op writes the first relu's output, moved out of the object of
  // the convolution's input.
  ASSERT_EQ(g.ops[2].args.size(), 13u);
  EXPECT_EQ(g.ops[2].args.back(), g.ops[3].args[0]);
  EXPECT_EQ(g.tensor(g.ops[2].args.back()).mem_obj_id, -1);
}

TEST(FuseConv, ABroadcastingAddStays) {
  Graph g = block({1, kC, 1, 1});
  EXPECT_EQ(fuse_linear_layers(g).conv_residuals, 0u);
  EXPECT_EQ(g.ops.size(), 6u);
}

class FuseConvGpu : public test::GpuTest {};

TEST_F(FuseConvGpu, FusedMatchesUnfused) {
  LoadOptions on, off;
  on.tuning.fuse = true;
  off.tuning.fuse = false;
  auto fused = ExecutableGraph::load(device(), block(), on);
  auto plain = ExecutableGraph::load(device(), block(), off);
  EXPECT_EQ(fused->dispatch_count() + 2, plain->dispatch_count());
  const auto xs = test::random_floats(size_t(kC * kH * kW), 7);
  const HostTensorView in[] = {test::f32_view(xs, {1, kC, kH, kW})};
  const auto a = test::floats(fused->execute(in)[0]);
  const auto b = test::floats(plain->execute(in)[0]);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_LT(test::max_abs_error(a, b), 1e-5);
  size_t positive = 0;
  for (float v : b) positive += v > 0 ? 1 : 0;
  EXPECT_GT(positive, b.size() / 4);  // the relu is not all that is left
}

}  // namespace
}  // namespace wgrt
