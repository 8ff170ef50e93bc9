// The passes that put exported programs into the forms the fusion passes
// know (ops/passes/canonicalize.h) and ExecuTorch's linears into the GGUF
// family (ops/passes/ggml_linears.h): what each rewrites, what it leaves,
// the weights' bytes decoded back exactly, and a rewritten graph computing
// what the exported one does.
#include <gtest/gtest.h>

#include <cstring>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"
#include "ops/passes/canonicalize.h"
#include "ops/passes/ggml_linears.h"
#include "ops/quant/quant_layout.h"

namespace wgrt {
namespace {

std::vector<std::string> op_names(const Graph& g) {
  std::vector<std::string> out;
  for (const OpCall& op : g.ops) out.push_back(op.name);
  return out;
}

// sigmoid(g) -> s; mul(first, second) -> h; mul(h or u ...) -> y, operands
// in the orders asked; `s_is_output` makes s a graph output too.
Graph silu_mul(bool gate_first, bool h_first, bool s_is_output = false) {
  GraphBuilder b;
  const ValueId gate = b.add_tensor(DType::F32, {2, 8}), up = b.add_tensor(DType::F32, {2, 8});
  b.mark_input(gate);
  b.mark_input(up);
  const ValueId s = b.add_tensor(DType::F32, {2, 8}), h = b.add_tensor(DType::F32, {2, 8});
  const ValueId y = b.add_tensor(DType::F32, {2, 8});
  b.add_op("aten.sigmoid.default", {gate, s});
  b.add_op("aten.mul.Tensor", {gate_first ? gate : s, gate_first ? s : gate, h});
  b.add_op("aten.mul.Tensor", {h_first ? h : up, h_first ? up : h, y});
  b.mark_output(y);
  if (s_is_output) b.mark_output(s);
  return std::move(b).build();
}

TEST(Canonicalize, SiluMulsBecomeOneSwigluInEitherOrder) {
  for (bool gate_first : {true, false}) {
    for (bool h_first : {true, false}) {
      Graph g = silu_mul(gate_first, h_first);
      EXPECT_EQ(passes::canonicalize(g).swiglus, 1u);
      ASSERT_EQ(op_names(g), std::vector<std::string>{"wgrt.swiglu"});
      EXPECT_EQ(g.ops[0].args, (std::vector<ValueId>{g.inputs[0], g.inputs[1], g.outputs[0]}));
    }
  }
}

TEST(Canonicalize, SiluMulStaysWhenTheSigmoidIsReadElsewhere) {
  Graph g = silu_mul(true, true, /*s_is_output=*/true);
  EXPECT_EQ(passes::canonicalize(g).total(), 0u);
  EXPECT_EQ(g.ops.size(), 3u);
}

TEST(Canonicalize, IdentityViewsGoReshapesStayPrepacksReadTheConstant) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {2, 8});
  b.mark_input(x);
  const ValueId c = b.add_constant(DType::F32, {2, 8}, std::vector<uint8_t>(64, 0));
  const ValueId a = b.add_tensor(DType::F32, {2, 8}), same = b.add_tensor(DType::F32, {2, 8});
  const ValueId flat = b.add_tensor(DType::F32, {16}), packed = b.add_tensor(DType::F32, {2, 8});
  const ValueId sum = b.add_tensor(DType::F32, {2, 8}), out = b.add_tensor(DType::F32, {16});
  b.add_op("et_vk.prepack.default", {c, packed});
  b.add_op("aten.relu.default", {x, a});
  b.add_op("aten.view_copy.default", {a, b.add_int_list({2, 8}), same});
  b.add_op("aten.add.Tensor", {same, packed, b.add_int(1), sum});
  b.add_op("aten.view_copy.default", {sum, b.add_int_list({16}), flat});
  b.add_op("aten.relu.default", {flat, out});
  b.mark_output(out);
  Graph g = std::move(b).build();
  const passes::CanonicalStats st = passes::canonicalize(g);
  EXPECT_EQ(st.identity_copies, 1u);
  EXPECT_EQ(st.prepacks, 1u);
  EXPECT_EQ(op_names(g), (std::vector<std::string>{"aten.relu.default", "aten.add.Tensor", "aten.view_copy.default",
                                                   "aten.relu.default"}));
  EXPECT_EQ(g.ops[1].args[0], a);  // the add reads the view's input
  EXPECT_EQ(g.ops[1].args[1], c);  // and the constant itself
}

TEST(Canonicalize, RepeatedActivationParametersMerge) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {1, 3, 64});
  b.mark_input(x);
  std::vector<ValueId> outs;
  auto qparams = [&] {
    const ValueId s = b.add_tensor(DType::F32, {1, 3}), zp = b.add_tensor(DType::F32, {1, 3});
    b.add_op("torchao.choose_qparams_affine.default",
             {x, b.add_string("ASYMMETRIC"), b.add_int_list({1, 1, 64}), b.add_null(), b.add_int(-128), b.add_int(127),
              b.add_null(), b.add_null(), b.add_null(), b.add_bool(false), b.add_value_list({s, zp})});
    outs.insert(outs.end(), {s, zp});
  };
  qparams();
  qparams();
  const ValueId sum = b.add_tensor(DType::F32, {1, 3});
  b.add_op("aten.add.Tensor", {outs[0], outs[2], b.add_int(1), sum});
  b.mark_output(sum);
  Graph g = std::move(b).build();
  EXPECT_EQ(passes::canonicalize(g).repeats, 1u);
  ASSERT_EQ(g.ops.size(), 2u);
  EXPECT_EQ(g.ops[1].args[0], outs[0]);
  EXPECT_EQ(g.ops[1].args[1], outs[0]);
}

// Q4_0F32 element e of a row of `cols` at `row` (quant_layout.h): (q - 8) * d.
float q4f32_element(const Tensor& w, int64_t row, int64_t e) {
  const uint8_t* block = w.bytes.data() + w.max_dims[1] * row + (e / 32) * 20;
  float d;
  std::memcpy(&d, block, 4);
  const int64_t j = e % 32;
  const uint32_t q = j < 16 ? block[4 + j] & 15u : block[4 + j - 16] >> 4;
  return (float(q) - 8.0f) * d;
}

TEST(GgmlLinears, Q4gswAndQcs4wWeightsDecodeToTheSameValues) {
  constexpr int64_t kN = 3, kK = 128, kGroup = 64;
  std::vector<uint8_t> packed(kN * kK / 2);
  for (size_t i = 0; i < packed.size(); ++i) packed[i] = uint8_t(i * 73 + 5);
  const auto group_scales = test::random_floats(size_t(kK / kGroup * 4), 1, 0.01f, 0.5f);  // [K/G, 4]: padded N
  const auto row_scales = test::random_floats(size_t(kN), 2, 0.01f, 0.5f);
  for (bool groupwise : {true, false}) {
    SCOPED_TRACE(groupwise ? "linear_q4gsw" : "linear_qcs4w");
    GraphBuilder b;
    const ValueId x = b.add_tensor(DType::F32, {1, kK});
    b.mark_input(x);
    const ValueId out = b.add_tensor(DType::F32, {1, kN});
    const ValueId w = b.add_constant(DType::U8, {kN, kK / 2}, std::span<const uint8_t>(packed));
    if (groupwise) {
      b.add_op("et_vk.linear_q4gsw.default", {x, w, b.add_constant(DType::F32, {kK / kGroup, 4}, test::bytes_of(group_scales)),
                                              b.add_int(kGroup), b.add_null(), out});
    } else {
      b.add_op("et_vk.linear_qcs4w.default", {x, w, b.add_constant(DType::F32, {kN}, test::bytes_of(row_scales)), out});
    }
    b.mark_output(out);
    Graph g = std::move(b).build();
    ASSERT_EQ(passes::ggml_linears(g, {}), 1u);
    ASSERT_EQ(g.ops[0].name, "wgrt.linear_ggml");
    EXPECT_EQ(std::get<int64_t>(g.values[g.ops[0].args[2]]), int64_t(ops::kQ4F32Type));
    EXPECT_FALSE(g.is_tensor(w)) << "the exported weight gets no buffer";
    const Tensor& q = g.tensor(g.ops[0].args[1]);
    ASSERT_EQ(q.max_dims, (Dims{kN, kK / 32 * 20}));
    for (int64_t n = 0; n < kN; ++n) {
      for (int64_t k = 0; k < kK; ++k) {
        const uint8_t byte = packed[size_t(n * kK / 2 + k / 2)];
        // q4gsw: even k in the low nibble; qcs4w: in the high one.
        const bool low = groupwise == (k % 2 == 0);
        const float scale = groupwise ? group_scales[size_t(k / kGroup * 4 + n)] : row_scales[size_t(n)];
        const float want = (float(low ? byte & 15 : byte >> 4) - 8.0f) * scale;
        ASSERT_EQ(q4f32_element(q, n, k), want) << "row " << n << " element " << k;
      }
    }
  }
}

TEST(GgmlLinears, WhatTheFamilyCannotTakeStays) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {1, 48});  // K = 48: not whole 32-element blocks
  b.mark_input(x);
  const ValueId out = b.add_tensor(DType::F32, {1, 4});
  b.add_op("aten.linear.default", {x, b.add_constant(DType::F32, {4, 48}, std::vector<uint8_t>(4 * 48 * 4, 0)),
                                   b.add_null(), out});
  b.mark_output(out);
  Graph g = std::move(b).build();
  EXPECT_EQ(passes::ggml_linears(g, {}), 0u);
  EXPECT_EQ(g.ops[0].name, "aten.linear.default");
}

class CanonicalizeGpu : public test::GpuTest {};

TEST_F(CanonicalizeGpu, RewrittenGraphsComputeWhatTheExportedOnesDo) {
  LoadOptions on, off;
  off.tuning.fuse = false;
  auto fused = ExecutableGraph::load(device(), silu_mul(false, true), on);
  auto plain = ExecutableGraph::load(device(), silu_mul(false, true), off);
  EXPECT_EQ(fused->dispatch_count(), 1u);
  EXPECT_EQ(plain->dispatch_count(), 3u);
  const auto g = test::random_floats(16, 3, -4.0f, 4.0f), u = test::random_floats(16, 4);
  const HostTensorView in[] = {test::f32_view(g, {2, 8}), test::f32_view(u, {2, 8})};
  EXPECT_LT(test::max_abs_error(test::floats(fused->execute(in)[0]), test::floats(plain->execute(in)[0])), 1e-6);
}

}  // namespace
}  // namespace wgrt
