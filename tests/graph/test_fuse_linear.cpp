// The fusion passes (ops/passes/fuse_linear.h): the op list of a small
// transformer layer before and after, the preconditions that keep ops as
// they are, and fused against unfused numerics on the GPU for several
// weight formats (shapes off the kernels' tile sizes).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "ops/linear/linear_forms.h"
#include "ops/passes/fuse_linear.h"
#include "host_tensors.h"
#include "ops/quant/quant_layout.h"
#include "ops/random_blocks.h"

namespace wgrt {
namespace {

struct LayerShape {
  uint32_t type = 0;  // ggml type of every matrix
  int64_t d = 64, f = 96, vocab = 37, max_m = 6;
  bool qk_bias = false;  // biases on the Q and K projections (Qwen2)
};

// What to break in the layer, for the precondition tests.
struct Variant {
  bool norm_is_output = false;   // the first norm's result is also a graph output
  bool norm_feeds_mul = false;   // ... and also feeds a non-linear op
  bool alpha_two = false;        // the attention residual add has alpha 2
  bool linear_used_twice = false;  // the down projection's result is used again
  bool gate_is_output = false;   // the gate projection's result is also a graph output
  bool up_first = false;         // the up projection comes before the gate in the graph
  bool rope = false;             // q and k go through views and RoPE (heads of 16) before their product
};

std::vector<std::string> op_names(const Graph& g) {
  std::vector<std::string> out;
  for (const OpCall& op : g.ops) out.push_back(op.name);
  return out;
}

// x [1, M, D] -> norm -> q, k -> q * k -> o (+ x) -> norm -> gate, up ->
// swiglu -> down (+ h) -> final norm -> last row -> head [1, vocab].
Graph build_layer(const LayerShape& s, const Variant& v = {}) {
  const ops::QuantLayout& l = *ops::find_quant_layout(s.type);
  GraphBuilder b;
  uint32_t seed = 1;
  // As the file stores them: the ops' prepare step lays them out at load
  // (the planar layout for Q4_0 and Q4_1, the block layout for the others).
  auto matrix = [&](int64_t n, int64_t k) {
    return b.add_constant(DType::U8, {n, int64_t(ops::file_row_bytes(l, k))}, test::random_blocks(l, n, k, seed++));
  };
  auto norm_weight = [&](int64_t k) {
    return b.add_constant(DType::F32, {k}, test::bytes_of(test::random_floats(k, seed++, 0.5f, 1.5f)));
  };
  const ValueId type = b.add_int(s.type), null = b.add_null(), eps = b.add_double(1e-5);
  auto tensor = [&](Dims d) { return b.add_tensor(DType::F32, std::move(d)); };
  auto linear = [&](ValueId x, int64_t n, int64_t k, Dims out_dims, bool bias = false) {
    const ValueId out = tensor(std::move(out_dims));
    const ValueId bi = bias ? b.add_constant(DType::F32, {n}, test::bytes_of(test::random_floats(n, seed++))) : null;
    b.add_op("wgrt.linear_ggml", {x, matrix(n, k), type, bi, b.add_null(), out});
    return out;
  };
  auto norm = [&](ValueId x, const Dims& dims) {
    const ValueId out = tensor(dims);
    b.add_op("et_vk.rms_norm.default", {x, norm_weight(dims.back()), eps, out});
    return out;
  };
  const Dims hd{1, s.max_m, s.d}, fd{1, s.max_m, s.f};
  const ValueId x = tensor(hd);
  b.mark_input(x);
  const ValueId n1 = norm(x, hd);
  ValueId q = linear(n1, s.d, s.d, hd, s.qk_bias), k = linear(n1, s.d, s.d, hd, s.qk_bias);
  if (v.rope) {  // as the GGUF importer: views to heads, RoPE by a table's rows, views back
    const int64_t hdim = 16, heads = s.d / hdim;
    const Dims d4{1, s.max_m, heads, hdim};
    auto view = [&](ValueId x, const Dims& to) {
      const ValueId out = tensor(to);
      b.add_op("aten.view_copy.default", {x, b.add_int_list(to), out});
      return out;
    };
    auto table = [&] {
      return b.add_constant(DType::F32, {s.max_m, hdim / 2},
                            test::bytes_of(test::random_floats(s.max_m * hdim / 2, seed++, -1.0f, 1.0f)));
    };
    const ValueId q4 = view(q, d4), k4 = view(k, d4), cos = table(), sin = table();
    const ValueId qr = tensor(d4), kr = tensor(d4);
    b.add_op("et_vk.apply_rotary_emb.default", {q4, k4, cos, sin, b.add_value_list({qr, kr})});
    q = view(qr, hd);
    k = view(kr, hd);
  }
  const ValueId qk = tensor(hd);
  b.add_op("aten.mul.Tensor", {q, k, qk});
  if (v.norm_feeds_mul) {
    const ValueId extra = tensor(hd);
    b.add_op("aten.mul.Tensor", {n1, qk, extra});
    b.mark_output(extra);
  }
  const ValueId o = linear(qk, s.d, s.d, hd);
  const ValueId h = tensor(hd);
  b.add_op("aten.add.Tensor", {x, o, b.add_int(v.alpha_two ? 2 : 1), h});
  const ValueId n2 = norm(h, hd);
  ValueId gate, up;
  if (v.up_first) {
    up = linear(n2, s.f, s.d, fd);
    gate = linear(n2, s.f, s.d, fd);
  } else {
    gate = linear(n2, s.f, s.d, fd);
    up = linear(n2, s.f, s.d, fd);
  }
  if (v.gate_is_output) b.mark_output(gate);
  const ValueId prod = tensor(fd);
  b.add_op("wgrt.swiglu", {gate, up, prod});
  const ValueId down = linear(prod, s.d, s.f, hd);
  const ValueId h2 = tensor(hd);
  b.add_op("aten.add.Tensor", {down, h, b.add_int(1), h2});
  if (v.linear_used_twice) b.mark_output(down);
  const ValueId n3 = norm(h2, hd);
  const ValueId last = tensor({1, s.d});
  b.add_op("aten.select_copy.int", {n3, b.add_int(1), b.add_int(-1), last});
  const ValueId logits = linear(last, s.vocab, s.d, {1, s.vocab});
  b.mark_output(logits);
  if (v.norm_is_output) b.mark_output(n1);
  return std::move(b).build();
}

TEST(FuseLinear, LayerOpsBeforeAndAfter) {
  Graph g = build_layer({});
  const std::vector<std::string> before = {
      "et_vk.rms_norm.default", "wgrt.linear_ggml", "wgrt.linear_ggml", "aten.mul.Tensor", "wgrt.linear_ggml",
      "aten.add.Tensor", "et_vk.rms_norm.default", "wgrt.linear_ggml", "wgrt.linear_ggml", "wgrt.swiglu",
      "wgrt.linear_ggml", "aten.add.Tensor", "et_vk.rms_norm.default", "aten.select_copy.int", "wgrt.linear_ggml"};
  EXPECT_EQ(op_names(g), before);
  const ValueId q_out = g.ops[1].args[ops::kLinearPlain.out], k_out = g.ops[2].args[ops::kLinearPlain.out];
  const FusionStats st = fuse_linear_layers(g);
  EXPECT_EQ(st.norms, 3u);
  EXPECT_EQ(st.merged, 2u);
  EXPECT_EQ(st.residuals, 2u);
  EXPECT_EQ(st.ops_before, 15u);
  EXPECT_EQ(st.swiglus, 1u);
  EXPECT_EQ(st.ops_after, 7u);
  const std::string F = "wgrt.linear_ggml_fused", S = "wgrt.linear_ggml_split", W = "wgrt.linear_ggml_swiglu";
  const std::vector<std::string> after = {S, "aten.mul.Tensor", F, W, F, "aten.select_copy.int", F};
  EXPECT_EQ(op_names(g), after);
  // Q and K: one matrix of 2D rows read from the norm's input, normalized inside.
  const OpCall& qk = g.ops[0];
  EXPECT_EQ(qk.args[0], g.inputs[0]);
  EXPECT_FALSE(std::holds_alternative<Null>(g.values[qk.args[ops::kLinearSplit.norm]]));
  EXPECT_EQ(g.tensor(qk.args[1]).max_dims[0], 2 * 64);
  EXPECT_EQ(qk.args[ops::kLinearSplit.out], q_out);
  EXPECT_EQ(qk.args[ops::kLinearSplit.out1], k_out);
  EXPECT_TRUE(std::holds_alternative<Null>(g.values[qk.args[ops::kLinearSplit.out2]]));
  // The attention output projection adds the original x and writes h.
  const OpCall& o = g.ops[2];
  EXPECT_EQ(o.args[ops::kLinearFused.residual], g.inputs[0]);
  EXPECT_TRUE(std::holds_alternative<Null>(g.values[o.args[ops::kLinearFused.norm]]));  // no norm before o
  // gate/up: one matrix with their rows interleaved, normalized inside,
  // writing the swiglu's output, which the down projection reads.
  const OpCall& gu = g.ops[3];
  EXPECT_EQ(gu.args.size(), ops::kLinearSwiglu.arg_count());
  EXPECT_EQ(g.tensor(gu.args[1]).max_dims[0], 2 * 96);
  EXPECT_FALSE(std::holds_alternative<Null>(g.values[gu.args[ops::kLinearSwiglu.norm]]));
  EXPECT_EQ(g.ops[4].args[0], gu.args[ops::kLinearSwiglu.out]);
  // The head reads the selected row of h2 (the down projection's output), not of its norm.
  EXPECT_EQ(g.ops[5].args[0], g.ops[4].args[ops::kLinearFused.out]);
  // The separate Q/K/gate/up weights are gone (no upload for them).
  size_t u8_constants = 0;
  for (const Value& v : g.values) {
    const auto* t = std::get_if<Tensor>(&v);
    if (t && t->storage == StorageKind::Constant && t->dtype == DType::U8) ++u8_constants;
  }
  EXPECT_EQ(u8_constants, 5u);  // q|k, o, gate|up, down, head
  // Running the pass again finds nothing more.
  const FusionStats again = fuse_linear_layers(g);
  EXPECT_EQ(again.norms + again.merged + again.swiglus + again.residuals, 0u);
  EXPECT_EQ(again.ops_after, 7u);
}

// RoPE after the Q/K projections: the views and the RoPE op fold into the
// split linear, which writes the rotated heads.
TEST(FuseLinear, RopeIntoTheQkvLinear) {
  Graph g = build_layer({}, {.rope = true});
  EXPECT_EQ(g.ops.size(), 20u);
  const FusionStats st = fuse_linear_layers(g);
  EXPECT_EQ(st.ropes, 1u);
  EXPECT_EQ(st.swiglus, 1u);
  const std::string F = "wgrt.linear_ggml_fused", V = "aten.view_copy.default";
  const std::vector<std::string> after = {"wgrt.linear_ggml_split_rope", V, V, "aten.mul.Tensor", F,
                                          "wgrt.linear_ggml_swiglu", F, "aten.select_copy.int", F};
  EXPECT_EQ(op_names(g), after);
  const OpCall& qkv = g.ops[0];
  ASSERT_EQ(qkv.args.size(), ops::kLinearSplitRope.arg_count());
  EXPECT_EQ(g.tensor(qkv.args[ops::kLinearSplitRope.out]).max_dims, (Dims{1, 6, 4, 16}));  // writes the rotated heads
  EXPECT_EQ(g.ops[1].args[0], qkv.args[ops::kLinearSplitRope.out]);
  EXPECT_EQ(g.ops[2].args[0], qkv.args[ops::kLinearSplitRope.out1]);
  EXPECT_EQ(fuse_linear_layers(g).ropes, 0u);
}

TEST(FuseLinear, PreconditionsKeepOpsAsTheyAre) {
  {
    Graph g = build_layer({}, {.norm_is_output = true});
    const FusionStats st = fuse_linear_layers(g);
    EXPECT_EQ(st.norms, 2u);  // not the first: its result leaves the graph
    EXPECT_EQ(g.ops[0].name, "et_vk.rms_norm.default");
  }
  {
    Graph g = build_layer({}, {.norm_feeds_mul = true});
    EXPECT_EQ(fuse_linear_layers(g).norms, 2u);  // the first also feeds a mul
    EXPECT_EQ(g.ops[0].name, "et_vk.rms_norm.default");
  }
  {
    Graph g = build_layer({}, {.alpha_two = true});
    const FusionStats st = fuse_linear_layers(g);
    EXPECT_EQ(st.residuals, 1u);  // x + 2 * o stays an add
    EXPECT_EQ(g.ops[2].name, "wgrt.linear_ggml");
    EXPECT_EQ(g.ops[3].name, "aten.add.Tensor");
  }
  {
    Graph g = build_layer({}, {.linear_used_twice = true});
    const FusionStats st = fuse_linear_layers(g);
    EXPECT_EQ(st.residuals, 1u);  // down's result is an output too
    EXPECT_EQ(st.norms, 3u);
  }
  {
    Graph g = build_layer({}, {.gate_is_output = true});
    const FusionStats st = fuse_linear_layers(g);
    EXPECT_EQ(st.merged, 2u);
    EXPECT_EQ(st.swiglus, 0u);  // the gate's result leaves the graph: the swiglu stays
    EXPECT_EQ(g.ops[3].name, "wgrt.linear_ggml_split");
    EXPECT_EQ(g.ops[4].name, "wgrt.swiglu");
  }
  {
    Graph g = build_layer({}, {.up_first = true});
    const FusionStats st = fuse_linear_layers(g);
    EXPECT_EQ(st.swiglus, 1u);  // up before gate: interleaved the other way round
    EXPECT_EQ(st.ops_after, 7u);
  }
}

class FuseLinearGpu : public test::GpuTest, public ::testing::WithParamInterface<uint32_t> {};
class FuseLinearGpuTiles : public test::GpuTest {};

// The same layer loaded with and without the passes: logits agree for a
// decode step (the GEMV) and a 5-token prompt (the tiled GEMM).
void expect_fused_matches_unfused(gpu::Device& device, const LayerShape& s, std::initializer_list<int64_t> rows,
                                  const Tuning& tuning = test::tuning()) {
  LoadOptions on, off;
  on.tuning = off.tuning = tuning;
  on.tuning.fuse = true;
  off.tuning.fuse = false;
  for (const Variant v : {Variant{}, Variant{.up_first = true, .rope = true}}) {
  auto fused = ExecutableGraph::load(device, build_layer(s, v), on);
  auto plain = ExecutableGraph::load(device, build_layer(s, v), off);
  EXPECT_LT(fused->dispatch_count(), plain->dispatch_count());
  for (int64_t m : rows) {
    SCOPED_TRACE(std::string(v.rope ? "RoPE, up before gate, " : "") + "M=" + std::to_string(m));
    const auto xs = test::random_floats(m * s.d, uint32_t(m + 40));
    const HostTensorView in[] = {test::f32_view(xs, {1, m, s.d})};
    const auto a = test::floats(fused->execute(in)[0]);
    const auto b = test::floats(plain->execute(in)[0]);
    ASSERT_EQ(a.size(), b.size());
    double worst = 0, scale = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      worst = std::max(worst, double(std::abs(a[i] - b[i])));
      scale = std::max(scale, double(std::abs(b[i])));
    }
    EXPECT_GT(scale, 0.0);
    EXPECT_LT(worst, 2e-5 * scale + 1e-6) << "largest |logit| " << scale;
  }
  }
}

TEST_P(FuseLinearGpu, FusedMatchesUnfused) {
  const uint32_t type = GetParam();
  const bool k_quant = ops::find_quant_layout(type)->block_elems == 256;
  // K not a multiple of 256 for the 32-element formats; rows off the GEMV's
  // rows per workgroup and the GEMM's 64-wide tiles.
  expect_fused_matches_unfused(device(), {type, k_quant ? 512 : 608, k_quant ? 768 : 352, 37, 6, type == 2}, {1, 5});
}

// The GEMM family's norm prologue, residual epilogue and split outputs with
// the two ways its tiles share a row's squares (4 staging threads per row:
// 64x64_4x4, 32x64_4x4; 2: 128x128_8x8) at M = 131 (several row tiles, a
// partial one); split boundaries (352, 704) inside column tiles; K tiles of
// one unit and of four (two for 128x128_8x8, whose threads cannot stage
// more; 19 units: a partial last K tile). The unfused graph runs the family
// without those parts (tested against float64 in tests/ops/test_quant_linear.cpp).
TEST_F(FuseLinearGpuTiles, FusedMatchesUnfusedForEveryNormLayout) {
  for (uint32_t ku : {1u, 4u}) {
    for (const char* tile : {"64x64_4x4", "128x128_8x8", "32x64_4x4"}) {
      SCOPED_TRACE(std::string(tile) + " KU=" + std::to_string(ku));
      Tuning t = test::tuning();
      t.gemm_tile = tile;
      t.gemm_depth = ku;
      expect_fused_matches_unfused(device(), {2, 352, 608, 37, 131, true}, {131, 64}, t);
    }
  }
  // The large tile chosen by live shape (2 staging threads per row): at
  // M = 131 gate/up's grid of large tiles is 2 x 19, at least the minimum,
  // the other matrices' below it; at M = 64 every grid is below it.
  SCOPED_TRACE("large tile");
  Tuning t = test::tuning();
  t.gemm_large_min_workgroups = 20;
  expect_fused_matches_unfused(device(), {2, 352, 608, 37, 131, true}, {131, 64}, t);
}

// Three formats: the fused kernels are the GEMV/GEMM skeleton with the
// format's decode function (tests/ops/test_quant_linear.cpp runs every format
// through it); each format costs tens of seconds of shader compiling on
// lavapipe. Q4_0 with Q/K biases, SmolLM2's Q4_1, and a 256-element K-quant.
INSTANTIATE_TEST_SUITE_P(Formats, FuseLinearGpu, ::testing::Values(2u, 3u, 14u), [](const auto& info) {
  return std::string(info.param == 2 ? "Q4_0" : info.param == 3 ? "Q4_1" : "Q6_K");
});

}  // namespace
}  // namespace wgrt
