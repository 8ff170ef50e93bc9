// ExecuTorch's quantize / dequantize ops (src/ops/qdq) on graphs built here:
// per-token quantize and dequantize against a CPU transcription of torch's
// quantized_decomposed reference (bit-exact integers), and the load-time
// refusals of bad quantization parameters (scale 0 or NaN, a zero point
// outside [quant_min, quant_max], a quant range outside the dtype, a group
// size that does not divide K), each naming the op and the argument. The
// per-tensor and per-channel forms, and the fused kernels, are tested by the
// exported programs of tests/fixtures/pte/quant/ (tests/runtime/test_pte_programs.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "gpu_test_env.h"
#include "load_error_test.h"
#include "host_tensors.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

class QdqTest : public test::LoadErrorTest {};

std::vector<uint8_t> bytes_of(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TEST_F(QdqTest, PerTokenQuantizeDequantizeMatchTorchReference) {
  // [rows, 11] f32 -> int8 with per-row scales / zero points (graph inputs),
  // then back to f32; zero point before rounding, as quantize_per_token does.
  const int64_t rows = 5, cols = 11;
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {rows, cols});
  const ValueId scales = b.add_tensor(DType::F32, {rows, 1});
  const ValueId zps = b.add_tensor(DType::I32, {rows, 1});
  for (ValueId id : {x, scales, zps}) b.mark_input(id);
  const ValueId q = b.add_tensor(DType::I8, {rows, cols}), back = b.add_tensor(DType::F32, {rows, cols});
  const ValueId null = b.add_null();
  b.add_op("quantized_decomposed.quantize_per_token.default", {x, scales, zps, b.add_int(-128), b.add_int(127), null, q});
  b.add_op("quantized_decomposed.dequantize_per_token.default",
           {q, scales, zps, b.add_int(-128), b.add_int(127), null, null, back});
  b.mark_output(q);
  b.mark_output(back);
  auto g = ExecutableGraph::load(device(), std::move(b).build(), test::load_options());

  for (int64_t live : {rows, int64_t{3}}) {
    const size_t n = static_cast<size_t>(live * cols);
    auto xs = test::random_floats(n, static_cast<uint32_t>(live));
    std::vector<float> s(live);
    std::vector<int32_t> z(live);
    for (int64_t r = 0; r < live; ++r) {
      s[r] = r == 0 ? 0.25f : 0.01f + 0.003f * float(r);
      z[r] = static_cast<int32_t>(r * 7 - 10);
    }
    for (int64_t c = 0; c < cols; ++c) xs[c] = (float(c) - 5.5f) * 0.125f + (c % 2 ? 0.0f : 40.0f);  // ties, clamps
    const HostTensorView in[] = {test::f32_view(xs, {live, cols}), test::f32_view(s, {live, 1}),
                                 {DType::I32, {live, 1}, {reinterpret_cast<const uint8_t*>(z.data()), z.size() * 4}}};
    const auto out = g->execute(in);
    ASSERT_EQ(out[0].dims, (Dims{live, cols}));
    const auto deq = test::floats(out[1]);
    for (size_t i = 0; i < n; ++i) {
      const size_t r = i / cols;
      const float inv = 1.0f / s[r];  // torch: input.mul(1.0 / scales) in f32
      const float v = std::nearbyint(xs[i] * inv + float(z[r]));  // round half to even (default rounding mode)
      const int want = static_cast<int>(std::fmin(std::fmax(v, -128.0f), 127.0f));
      EXPECT_EQ(static_cast<int8_t>(out[0].data[i]), want) << "quantize at " << i << " x " << xs[i];
      EXPECT_EQ(deq[i], float(want - z[r]) * s[r]) << "dequantize at " << i;
    }
  }
}

// quantize_per_tensor with the given scalar parameters on an f32 [4] input.
GraphBuilder quantize_graph(double scale, int64_t zp, int64_t qmin, int64_t qmax, DType out_type = DType::I8) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {4});
  b.mark_input(x);
  const ValueId q = b.add_tensor(out_type, {4});
  b.add_op("quantized_decomposed.quantize_per_tensor.default",
           {x, b.add_double(scale), b.add_int(zp), b.add_int(qmin), b.add_int(qmax), b.add_null(), q});
  b.mark_output(q);
  return b;
}

TEST_F(QdqTest, BadScalarParametersAreRefusedAtLoadNamingOpAndArgument) {
  struct Case {
    GraphBuilder graph;
    std::string want;
  };
  Case cases[] = {
      {quantize_graph(0.0, 0, -128, 127), "argument 1: scale is 0"},
      {quantize_graph(std::nan(""), 0, -128, 127), "argument 1: scale is nan"},
      {quantize_graph(std::numeric_limits<double>::infinity(), 0, -128, 127), "argument 1: scale is inf"},
      {quantize_graph(0.1, 128, -128, 127), "argument 2: zero point 128 is outside [quant_min -128, quant_max 127]"},
      {quantize_graph(0.1, 0, -129, 127), "argument 3: quant_min -129 is outside i8's range"},
      {quantize_graph(0.1, 0, 0, 256, DType::U8), "argument 4: quant_max 256"},
  };
  for (auto& c : cases) {
    const std::string msg = load_error(std::move(c.graph));
    EXPECT_NE(msg.find("quantized_decomposed.quantize_per_tensor.default"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.want), std::string::npos) << msg;
  }
}

TEST_F(QdqTest, BadConstantScalesAndZeroPointsAreRefusedNamingTheElement) {
  auto graph = [](float bad_scale, int64_t bad_zp) {
    GraphBuilder b;
    const ValueId x = b.add_tensor(DType::F32, {3, 2});
    b.mark_input(x);
    const std::vector<float> s = {0.5f, bad_scale, 0.25f};
    const ValueId scales = b.add_constant(DType::F32, {3}, bytes_of(s));
    std::vector<int64_t> z = {0, 1, bad_zp};
    std::vector<uint8_t> zb(z.size() * 8);
    std::memcpy(zb.data(), z.data(), zb.size());
    const ValueId zps = b.add_constant(DType::I64, {3}, std::move(zb));
    const ValueId q = b.add_tensor(DType::I8, {3, 2});
    b.add_op("quantized_decomposed.quantize_per_channel.default",
             {x, scales, zps, b.add_int(0), b.add_int(-128), b.add_int(127), b.add_null(), q});
    b.mark_output(q);
    return b;
  };
  std::string msg = load_error(graph(0.0f, 0));
  EXPECT_NE(msg.find("quantize_per_channel"), std::string::npos) << msg;
  EXPECT_NE(msg.find("argument 1: scale[1] is 0"), std::string::npos) << msg;
  msg = load_error(graph(std::nanf(""), 0));
  EXPECT_NE(msg.find("argument 1: scale[1] is nan"), std::string::npos) << msg;
  msg = load_error(graph(1.0f, -300));
  EXPECT_NE(msg.find("argument 2: zero point[2] -300 is outside"), std::string::npos) << msg;
}

TEST_F(QdqTest, Q4gswGroupSizeNotDividingKIsRefused) {
  // et_vk.linear_q4gsw with K = 64 and group size 24.
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {2, 64});
  b.mark_input(x);
  const ValueId w = b.add_constant(DType::U8, {8, 32}, std::vector<uint8_t>(8 * 32, 0x88));
  const ValueId s = b.add_constant(DType::F32, {3, 8}, bytes_of(std::vector<float>(24, 1.0f)));
  const ValueId out = b.add_tensor(DType::F32, {2, 8});
  b.add_op("et_vk.linear_q4gsw.default", {x, w, s, b.add_int(24), b.add_null(), out});
  b.mark_output(out);
  const std::string msg = load_error(std::move(b));
  EXPECT_NE(msg.find("et_vk.linear_q4gsw.default"), std::string::npos) << msg;
  EXPECT_NE(msg.find("argument 3: group size 24"), std::string::npos) << msg;
}

TEST_F(QdqTest, Embedding4bitBadScalesRangeAndGroupsAreRefused) {
  // quantized_decomposed.embedding_4bit.dtype: table [4, 8] (D = 16).
  auto graph = [](std::vector<float> scales, Dims scale_dims, int64_t qmin, bool zero_points) {
    GraphBuilder b;
    const ValueId idx = b.add_tensor(DType::I64, {3});
    b.mark_input(idx);
    const ValueId w = b.add_constant(DType::U8, {4, 8}, std::vector<uint8_t>(32, 0x9a));
    const ValueId s = b.add_constant(DType::F32, scale_dims, bytes_of(scales));
    const ValueId zp = zero_points ? b.add_constant(DType::F32, scale_dims, bytes_of(std::vector<float>(scales.size(), 0)))
                                   : b.add_null();
    const ValueId out = b.add_tensor(DType::F32, {3, 16});
    b.add_op("quantized_decomposed.embedding_4bit.dtype",
             {w, s, zp, b.add_int(qmin), b.add_int(7), idx, b.add_null(), out});
    b.mark_output(out);
    return b;
  };
  const std::vector<float> ok = {0.5f, 0.25f, 1.0f, 2.0f};
  EXPECT_EQ(load_error(graph(ok, {4}, -8, false)), "");
  struct Case {
    GraphBuilder g;
    std::string want;
  };
  Case cases[] = {
      {graph({0.5f, 0.25f, 0.0f, 2.0f}, {4}, -8, false), "argument 1: scale[2] is 0"},
      {graph({0.5f, std::nanf(""), 1.0f, 2.0f}, {4}, -8, false), "argument 1: scale[1] is nan"},
      {graph(ok, {4}, -7, false), "argument 3: quant range [-7, 7] must be [-8, 7]"},
      // 3 groups do not split a row of 16.
      {graph(std::vector<float>(12, 1.0f), {4, 3}, -8, false), "argument 1: 3 groups per row do not split a row of 16"},
      {graph(ok, {4}, -8, true), "argument 2"},
  };
  for (auto& c : cases) {
    const std::string msg = load_error(std::move(c.g));
    EXPECT_NE(msg.find("quantized_decomposed.embedding_4bit.dtype"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.want), std::string::npos) << msg;
  }
}

TEST_F(QdqTest, ChooseQparamsBadEpsAndRangeAreRefused) {
  auto graph = [](double eps, int64_t qmin, int64_t qmax) {
    GraphBuilder b;
    const ValueId x = b.add_tensor(DType::F32, {3, 8});
    b.mark_input(x);
    const ValueId scale = b.add_tensor(DType::F32, {1});
    const ValueId zp = b.add_tensor(DType::I64, {1});
    b.add_op("quantized_decomposed.choose_qparams.tensor",
             {x, b.add_int(qmin), b.add_int(qmax), b.add_double(eps), b.add_null(), b.add_value_list({scale, zp})});
    b.mark_output(scale);
    b.mark_output(zp);
    return b;
  };
  EXPECT_EQ(load_error(graph(1e-5, -128, 127)), "");
  std::string msg = load_error(graph(0.0, -128, 127));
  EXPECT_NE(msg.find("quantized_decomposed.choose_qparams.tensor"), std::string::npos) << msg;
  EXPECT_NE(msg.find("argument 3: eps must be positive"), std::string::npos) << msg;
  EXPECT_NE(load_error(graph(std::nan(""), -128, 127)).find("argument 3: eps"), std::string::npos);
  msg = load_error(graph(1e-5, 10, 5));
  EXPECT_NE(msg.find("argument 2: quant_max 5 must be in [quant_min 10"), std::string::npos) << msg;
}

}  // namespace
}  // namespace wgrt
