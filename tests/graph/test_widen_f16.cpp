// fp16 programs computed in f32 (ops/passes/widen_f16.h): the host's f16
// conversions, the pass's rewrite (f32 inside, convert_dtype at the edges,
// constants widened, untouched edges left alone), and a widened graph run on
// the GPU against the same arithmetic done on the host.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "graph/op_registry.h"
#include "ops/passes/widen_f16.h"
#include "host_tensors.h"
#include "wgrt/dtype.h"

namespace wgrt {
namespace {

TEST(HalfConversion, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = f16_to_f32(uint16_t(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(f)))) << h;
      continue;
    }
    ASSERT_EQ(f32_to_f16(f), h) << "half " << h << " = " << f;
  }
}

TEST(HalfConversion, RoundsToNearestEven) {
  // Between consecutive halves a and a + 1: below the midpoint rounds down,
  // above up, at it to the even one. Normals and subnormals alike.
  for (uint16_t a : {uint16_t(0x0000), uint16_t(0x0001), uint16_t(0x03FF), uint16_t(0x0400), uint16_t(0x3C00),
                     uint16_t(0x3C01), uint16_t(0x7BFE), uint16_t(0x8001), uint16_t(0xBC00)}) {
    const double lo = f16_to_f32(a), hi = f16_to_f32(uint16_t(a + 1));
    const double mid = (lo + hi) / 2;
    const uint16_t even = (a & 1) == 0 ? a : uint16_t(a + 1);
    EXPECT_EQ(f32_to_f16(float(mid)), even) << a;
    EXPECT_EQ(f32_to_f16(std::nextafter(float(mid), float(lo))), a) << a;
    EXPECT_EQ(f32_to_f16(std::nextafter(float(mid), float(hi))), uint16_t(a + 1)) << a;
  }
  EXPECT_EQ(f32_to_f16(65519.99f), 0x7BFF);  // 65504, the largest half
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7C00);   // the midpoint to 65536 rounds to infinity
  EXPECT_EQ(f32_to_f16(-1e6f), 0xFC00);
  EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(f32_to_f16(0x1p-25f), 0x0000);          // half the smallest subnormal: ties to even (zero)
  EXPECT_EQ(f32_to_f16(0x1.000002p-25f), 0x0001);   // just above it
  EXPECT_EQ(f32_to_f16(-0.0f), 0x8000);
}

std::vector<uint8_t> halves(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint16_t h = f32_to_f16(v[i]);
    std::memcpy(out.data() + 2 * i, &h, 2);
  }
  return out;
}

constexpr int64_t kN = 7;  // odd: the last f16 word holds one element

// x (f16 input), c (f16 constant): t = x * c; y = t + x (f16 output), and
// z (f16 input) returned unchanged.
Graph f16_graph(const std::vector<float>& c) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F16, {kN});
  const ValueId z = b.add_tensor(DType::F16, {3});
  const ValueId cst = b.add_constant(DType::F16, {kN}, halves(c));
  const ValueId t = b.add_tensor(DType::F16, {kN}, 0);
  const ValueId y = b.add_tensor(DType::F16, {kN});
  b.add_op("aten.mul.Tensor", {x, cst, t});
  b.add_op("aten.add.Tensor", {t, x, b.add_int(1), y});
  b.mark_input(x);
  b.mark_input(z);
  b.mark_output(y);
  b.mark_output(z);
  return std::move(b).build();
}

TEST(WidenF16, F32InsideConvertsAtTheEdges) {
  Graph g = f16_graph({0.5f, -2, 3, 0.25f, 1, -1, 0.125f});
  const WidenStats st = widen_f16(g);
  EXPECT_EQ(st.constants, 1u);
  EXPECT_EQ(st.tensors, 2u);   // c and t
  EXPECT_EQ(st.converts, 2u);  // x in, y out; z is untouched
  ASSERT_EQ(g.ops.size(), 4u);
  EXPECT_EQ(g.ops[0].name, "wgrt.convert_dtype");
  EXPECT_EQ(g.ops[3].name, "wgrt.convert_dtype");
  const ValueId x = g.inputs[0], y = g.outputs[0], z = g.inputs[1];
  EXPECT_EQ(g.ops[0].args[0], x);
  EXPECT_EQ(g.ops[3].args[1], y);
  EXPECT_EQ(g.tensor(x).dtype, DType::F16);
  EXPECT_EQ(g.tensor(y).dtype, DType::F16);
  EXPECT_EQ(g.tensor(z).dtype, DType::F16);
  // Every tensor an op between the converts names is f32.
  for (size_t i = 1; i + 1 < g.ops.size(); ++i) {
    for (ValueId a : g.ops[i].args) {
      if (g.is_tensor(a)) EXPECT_EQ(g.tensor(a).dtype, DType::F32) << g.ops[i].name;
    }
  }
  // The constant holds f32 bytes of the same values.
  const Tensor& c = g.tensor(g.ops[1].args[1]);
  ASSERT_EQ(c.bytes.size(), size_t(kN) * 4);
  float second;
  std::memcpy(&second, c.bytes.data() + 4, 4);
  EXPECT_EQ(second, -2.0f);
}

TEST(WidenF16, AGraphWithoutF16IsUnchanged) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {4}), y = b.add_tensor(DType::F32, {4});
  b.add_op("aten.relu.default", {x, y});
  b.mark_input(x);
  b.mark_output(y);
  Graph g = std::move(b).build();
  const WidenStats st = widen_f16(g);
  EXPECT_EQ(st.tensors + st.constants + st.converts, 0u);
  EXPECT_EQ(g.ops.size(), 1u);
}

class WidenF16Gpu : public test::GpuTest {};

TEST_F(WidenF16Gpu, RunsAsTheHostComputesIt) {
  const std::vector<float> c = {0.5f, -2, 3, 0.25f, 1, -1, 0.125f};
  Graph g = f16_graph(c);
  widen_f16(g);
  auto eg = ExecutableGraph::load(device(), std::move(g), LoadOptions{});
  const std::vector<float> xs = {1.5f, 0.1f, -7.25f, 1000, -0.3f, 2e-3f, 60000};
  const std::vector<float> zs = {1, -2, 3};
  const auto xb = halves(xs), zb = halves(zs);
  const HostTensorView in[] = {{DType::F16, {kN}, xb}, {DType::F16, {3}, zb}};
  const auto out = eg->execute(in);
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].dtype, DType::F16);
  const auto y = test::as_floats(DType::F16, out[0].data);
  ASSERT_EQ(y.size(), size_t(kN));
  for (size_t i = 0; i < y.size(); ++i) {
    // f32 arithmetic on the f16 values, rounded to f16 once at the end.
    const float x = f16_to_f32(f32_to_f16(xs[i])), cc = f16_to_f32(f32_to_f16(c[i]));
    EXPECT_EQ(y[i], f16_to_f32(f32_to_f16(x * cc + x))) << i;
  }
  EXPECT_EQ(out[1].data, zb);  // returned unchanged, bit for bit
}

// aten.linear reads its weight in f16 (OpDef::f16_constant_args): with the
// registry, the pass keeps that constant f16 (half its memory) and the bias,
// which linear reads in f32, is widened. Odd sizes: 15 weight elements end
// mid-word. Both linear kernels (one row: the GEMV; two: the GEMM) read it.
TEST_F(WidenF16Gpu, LinearKeepsItsWeightF16) {
  constexpr int64_t kIn = 5, kOut = 3;
  const std::vector<float> w = {0.5f, -1, 2, 0.25f, 3, -0.75f, 1.5f, 0, -2, 1, 0.125f, 4, -3, 2.5f, -0.5f};
  const std::vector<float> bias = {0.1f, -0.2f, 0.3f};
  for (int64_t rows : {int64_t{1}, int64_t{2}}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    GraphBuilder b;
    const ValueId x = b.add_tensor(DType::F16, {rows, kIn});
    const ValueId wc = b.add_constant(DType::F16, {kOut, kIn}, halves(w));
    const ValueId bc = b.add_constant(DType::F16, {kOut}, halves(bias));
    const ValueId y = b.add_tensor(DType::F16, {rows, kOut});
    b.add_op("aten.linear.default", {x, wc, bc, y});
    b.mark_input(x);
    b.mark_output(y);
    Graph g = std::move(b).build();
    const WidenStats st = widen_f16(g, OpRegistry::builtin());
    EXPECT_EQ(st.kept, 1u);
    EXPECT_EQ(st.constants, 1u);  // the bias
    EXPECT_EQ(g.tensor(wc).dtype, DType::F16);
    EXPECT_EQ(g.tensor(wc).bytes.size(), w.size() * 2);
    auto eg = ExecutableGraph::load(device(), std::move(g), test::load_options());
    const std::vector<float> xs = {1, -2, 0.5f, 3, -1.25f, 0.75f, 2, -0.5f, 1.5f, -3};
    const auto xb = halves(std::vector<float>(xs.begin(), xs.begin() + rows * kIn));
    const HostTensorView in[] = {{DType::F16, {rows, kIn}, xb}};
    const auto y_out = test::as_floats(DType::F16, eg->execute(in)[0].data);
    ASSERT_EQ(y_out.size(), size_t(rows * kOut));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t o = 0; o < kOut; ++o) {
        double want = f16_to_f32(f32_to_f16(bias[o]));
        for (int64_t k = 0; k < kIn; ++k) {
          want += double(f16_to_f32(f32_to_f16(xs[r * kIn + k]))) * f16_to_f32(f32_to_f16(w[o * kIn + k]));
        }
        EXPECT_NEAR(y_out[r * kOut + o], want, 1e-3 * (std::abs(want) + 1)) << r << "," << o;
      }
    }
  }
}

// mm's and addmm's constant right operand stays f16 too, read as packed f16 by
// the GEMM (odd sizes: 15 elements end mid-word).
TEST_F(WidenF16Gpu, MatrixProductsKeepTheirConstantOperandF16) {
  constexpr int64_t kM = 2, kK = 5, kN = 3;
  const std::vector<float> bm = {0.5f, -1, 2, 0.25f, 3, -0.75f, 1.5f, 0, -2, 1, 0.125f, 4, -3, 2.5f, -0.5f};
  const std::vector<float> bias = {0.1f, -0.2f, 0.3f};
  const std::vector<float> xs = {1, -2, 0.5f, 3, -1.25f, 0.75f, 2, -0.5f, 1.5f, -3};
  for (bool addmm : {false, true}) {
    SCOPED_TRACE(addmm ? "addmm" : "mm");
    GraphBuilder b;
    const ValueId x = b.add_tensor(DType::F16, {kM, kK});
    const ValueId bc = b.add_constant(DType::F16, {kK, kN}, halves(bm));
    const ValueId y = b.add_tensor(DType::F16, {kM, kN});
    if (addmm) {
      const ValueId bias_c = b.add_constant(DType::F16, {kN}, halves(bias));
      b.add_op("aten.addmm.default", {bias_c, x, bc, b.add_null(), b.add_null(), y});
    } else {
      b.add_op("aten.mm.default", {x, bc, y});
    }
    b.mark_input(x);
    b.mark_output(y);
    Graph g = std::move(b).build();
    EXPECT_EQ(widen_f16(g, OpRegistry::builtin()).kept, 1u);
    EXPECT_EQ(g.tensor(bc).dtype, DType::F16);
    auto eg = ExecutableGraph::load(device(), std::move(g), test::load_options());
    const auto xb = halves(xs);
    const HostTensorView in[] = {{DType::F16, {kM, kK}, xb}};
    const auto got = test::as_floats(DType::F16, eg->execute(in)[0].data);
    ASSERT_EQ(got.size(), size_t(kM * kN));
    for (int64_t m = 0; m < kM; ++m) {
      for (int64_t n = 0; n < kN; ++n) {
        double want = addmm ? f16_to_f32(f32_to_f16(bias[n])) : 0.0;
        for (int64_t k = 0; k < kK; ++k) {
          want += double(f16_to_f32(f32_to_f16(xs[m * kK + k]))) * f16_to_f32(f32_to_f16(bm[k * kN + n]));
        }
        EXPECT_NEAR(got[m * kN + n], want, 1e-3 * (std::abs(want) + 1)) << m << "," << n;
      }
    }
  }
}

// aten.embedding's table stays f16 (odd row width: rows start mid-word).
TEST_F(WidenF16Gpu, EmbeddingKeepsItsTableF16) {
  constexpr int64_t kVocab = 4, kDim = 3;
  const std::vector<float> table = {0.5f, -1, 2, 0.25f, 3, -0.75f, 1.5f, 0, -2, 1, 0.125f, 4};
  GraphBuilder b;
  const ValueId ids = b.add_tensor(DType::I64, {3});
  const ValueId tc = b.add_constant(DType::F16, {kVocab, kDim}, halves(table));
  const ValueId y = b.add_tensor(DType::F16, {3, kDim});
  b.add_op("aten.embedding.default", {tc, ids, b.add_int(-1), b.add_bool(false), b.add_bool(false), y});
  b.mark_input(ids);
  b.mark_output(y);
  Graph g = std::move(b).build();
  EXPECT_EQ(widen_f16(g, OpRegistry::builtin()).kept, 1u);
  auto eg = ExecutableGraph::load(device(), std::move(g), test::load_options());
  const std::vector<int64_t> id_values = {3, 0, 1};
  const HostTensorView in[] = {
      {DType::I64, {3}, std::span(reinterpret_cast<const uint8_t*>(id_values.data()), id_values.size() * 8)}};
  const auto got = test::as_floats(DType::F16, eg->execute(in)[0].data);
  ASSERT_EQ(got.size(), size_t(3 * kDim));
  for (size_t t = 0; t < 3; ++t) {
    for (int64_t d = 0; d < kDim; ++d) EXPECT_EQ(got[t * kDim + d], table[size_t(id_values[t] * kDim + d)]) << t;
  }
}

}  // namespace
}  // namespace wgrt
