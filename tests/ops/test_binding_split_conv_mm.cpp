// Constants above the device's binding limit (memory_plan.h) read in runs of
// rows by the convolutions (runs of output channels), aten.mm / addmm (runs
// of K, accumulated), aten.bmm (runs of batches) and the per-channel
// quantized linears (runs of output features): on a device whose split size
// is forced low (DeviceOptions::split_bytes_for_test) each must give what
// the shared device gives and hold the same constant bytes. A transposed
// convolution's split weight (a split of its reduction) is refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"
#include "ops/split_device.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

// 16 KiB (test::kSplitBytes): every weight below is 20 to 41 KB, in 3 runs,
// the last one short.
using test::split_device;

class SplitConvMm : public test::SplitDeviceTest {
 protected:
  // Loads make() on both devices, checks the constant bytes and the number of
  // dispatches of the split graph, then runs every input set on both and
  // compares within tol * (1 + |want|).
  void expect_same(const std::function<Graph()>& make, const std::vector<std::vector<HostTensorView>>& inputs,
                   size_t split_dispatches, float tol, const LoadOptions& options = test::load_options()) {
    auto whole = ExecutableGraph::load(device(), make(), options);
    auto split = ExecutableGraph::load(*split_device(), make(), options);
    // Nothing is held twice: the runs together are the constants' bytes.
    EXPECT_EQ(split->memory_stats().constant_bytes, whole->memory_stats().constant_bytes);
    EXPECT_EQ(split->dispatch_count(), split_dispatches);
    EXPECT_GT(split->dispatch_count(), whole->dispatch_count());
    for (size_t s = 0; s < inputs.size(); ++s) {
      SCOPED_TRACE("input set " + std::to_string(s));
      const auto a = whole->execute(inputs[s]);
      const auto b = split->execute(inputs[s]);
      ASSERT_EQ(a.size(), b.size());
      for (size_t o = 0; o < a.size(); ++o) {
        ASSERT_EQ(a[o].dims, b[o].dims) << "output " << o;
        const auto x = test::floats(a[o]), y = test::floats(b[o]);
        ASSERT_EQ(x.size(), y.size());
        for (size_t i = 0; i < x.size(); ++i) {
          ASSERT_NEAR(y[i], x[i], tol * (1.0f + std::abs(x[i]))) << "output " << o << " element " << i;
        }
      }
    }
  }
};

struct ConvCase {
  const char* name;
  int64_t cin, cout, groups, k, stride;
  bool bias;
  size_t split_dispatches;
};

// aten.convolution.default over [N, cin, H, W] with a [cout, cin / groups, k, k] weight.
Graph conv_model(const ConvCase& c, int64_t n, int64_t h, int64_t w, const std::vector<float>& weight,
                 const std::vector<float>& bias) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {n, c.cin, h, w});
  b.mark_input(x);
  const int64_t pad = c.k / 2;
  const int64_t oh = (h + 2 * pad - c.k) / c.stride + 1, ow = (w + 2 * pad - c.k) / c.stride + 1;
  const ValueId out = b.add_tensor(DType::F32, {n, c.cout, oh, ow});
  b.add_op("aten.convolution.default",
           {x, b.add_constant(DType::F32, {c.cout, c.cin / c.groups, c.k, c.k}, test::bytes_of(weight)),
            c.bias ? b.add_constant(DType::F32, {c.cout}, test::bytes_of(bias)) : b.add_null(),
            b.add_int_list({c.stride, c.stride}), b.add_int_list({pad, pad}), b.add_int_list({1, 1}), b.add_bool(false),
            b.add_int_list({0, 0}), b.add_int(c.groups), out});
  b.mark_output(out);
  return std::move(b).build();
}

class SplitConv : public SplitConvMm, public ::testing::WithParamInterface<ConvCase> {};

// Runs of output channels: one dispatch per run (main_gemm: per run's part
// of one group where a run starts or ends mid-group), each writing its
// channels with their bias; the same arithmetic per output as unsplit.
TEST_P(SplitConv, RunsOfOutputChannelsMatchTheUnsplitGraph) {
  const ConvCase c = GetParam();
  const auto weight = test::random_floats(size_t(c.cout * c.cin / c.groups * c.k * c.k), 21);
  const auto bias = test::random_floats(size_t(c.cout), 22);
  constexpr int64_t kN = 2, kH = 9, kW = 9;
  const auto x1 = test::random_floats(size_t(kN * c.cin * kH * kW), 23);
  const auto x2 = test::random_floats(size_t(c.cin * 7 * 8), 24);  // a smaller live shape
  auto make = [&] { return conv_model(c, kN, kH, kW, weight, bias); };
  // Direct: the unsplit graph keeps the weight as it is (conv_igemm's packed
  // layout is larger), so both hold the same bytes and run main_gemm.
  LoadOptions direct = test::load_options();
  direct.tuning.conv_kernel = ConvKernel::Direct;
  expect_same(make, {{test::f32_view(x1, {kN, c.cin, kH, kW})}, {test::f32_view(x2, {1, c.cin, 7, 8})}},
              c.split_dispatches, 1e-6f, direct);
  // The default kernels: a split weight is left unpacked (main_gemm), the
  // unsplit one may take conv_igemm, which sums in another order.
  auto whole = ExecutableGraph::load(device(), make(), test::load_options());
  auto split = ExecutableGraph::load(*split_device(), make(), test::load_options());
  EXPECT_EQ(split->dispatch_count(), c.split_dispatches);
  const HostTensorView in[] = {test::f32_view(x1, {kN, c.cin, kH, kW})};
  const auto want = test::floats(whole->execute(in)[0]), got = test::floats(split->execute(in)[0]);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5f * (1.0f + std::abs(want[i]))) << i;
}

// Row bytes (cin / groups * k * k f32s) give 64-row runs below 256 bytes a row.
INSTANTIATE_TEST_SUITE_P(
    Shapes, SplitConv,
    ::testing::Values(
        // 144-byte rows, runs 64 + 64 + 22.
        ConvCase{"Plain", 4, 150, 1, 3, 1, true, 3},
        // conv_igemm-eligible (16 input channels): 576-byte rows, runs 28 + 28 + 14, no bias, stride 2.
        ConvCase{"Wide", 16, 70, 1, 3, 2, false, 3},
        // 3 groups of 50 channels, runs [0, 64) [64, 128) [128, 150): the
        // first two each a whole or partial group and a partial one, 5 dispatches.
        ConvCase{"Grouped", 12, 150, 3, 3, 1, true, 5},
        // Depthwise 3x3 (ROW3): 36-byte rows, runs 448 + 448 + 104.
        ConvCase{"Depthwise", 1000, 1000, 1000, 3, 1, true, 3},
        // Depthwise 5x5, channel multiplier 2, stride 2: 100-byte rows, runs 128 + 128 + 44.
        ConvCase{"DepthwiseMultiplier", 150, 300, 150, 5, 2, false, 3}),
    [](const auto& info) { return std::string(info.param.name); });

// A transposed convolution's weight [cin, cout / groups, kh, kw] is split by
// input channels, its reduction: refused naming the op, the weight, its size
// and the limit.
TEST_F(SplitConvMm, TransposedConvolutionIsRefused) {
  constexpr int64_t kCin = 150, kCout = 4;  // 144-byte rows: 21,600 bytes
  const auto weight = test::random_floats(kCin * kCout * 9, 31);
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {1, kCin, 5, 5});
  b.mark_input(x);
  const ValueId out = b.add_tensor(DType::F32, {1, kCout, 7, 7});
  b.add_op("aten.convolution.default",
           {x, b.add_constant(DType::F32, {kCin, kCout, 3, 3}, test::bytes_of(weight)), b.add_null(),
            b.add_int_list({1, 1}), b.add_int_list({0, 0}), b.add_int_list({1, 1}), b.add_bool(true),
            b.add_int_list({0, 0}), b.add_int(1), out});
  b.mark_output(out);
  test::expect_split_load_refused(std::move(b).build(), {"aten.convolution.default", "argument 1", "transposed",
                                                         "[150, 4, 3, 3]", "21600 bytes", "binding limit of 16384"});
}

// aten.mm and aten.addmm over a constant b [K, N] in runs of K (150 rows of
// 256 bytes: 64 + 64 + 22), each run one GEMM over its columns of a, the
// later ones adding to out. The sum is taken in another order (per run,
// then across runs): 1e-5 relative.
TEST_F(SplitConvMm, MmAndAddmmAccumulateRunsOfK) {
  constexpr int64_t kK = 150, kN = 64, kMaxM = 5;
  const auto weight = test::random_floats(kK * kN, 41);
  const auto bias = test::random_floats(kN, 42);
  for (bool addmm : {false, true}) {
    SCOPED_TRACE(addmm ? "addmm" : "mm");
    auto make = [&] {
      GraphBuilder b;
      const ValueId a = b.add_tensor(DType::F32, {kMaxM, kK});
      b.mark_input(a);
      const ValueId w = b.add_constant(DType::F32, {kK, kN}, test::bytes_of(weight));
      const ValueId out = b.add_tensor(DType::F32, {kMaxM, kN});
      if (addmm) {
        b.add_op("aten.addmm.default", {b.add_constant(DType::F32, {kN}, test::bytes_of(bias)), a, w, b.add_null(),
                                        b.add_null(), out});
      } else {
        b.add_op("aten.mm.default", {a, w, out});
      }
      b.mark_output(out);
      return std::move(b).build();
    };
    const auto a5 = test::random_floats(kMaxM * kK, 43), a1 = test::random_floats(kK, 44),
               a3 = test::random_floats(3 * kK, 45);
    expect_same(make,
                {{test::f32_view(a5, {kMaxM, kK})}, {test::f32_view(a1, {1, kK})}, {test::f32_view(a3, {3, kK})}}, 3,
                1e-5f);
  }
}

// aten.bmm over a constant b [B, K, N] in runs of batches (40 of 1,024 bytes: 16 + 16 + 8).
TEST_F(SplitConvMm, BmmRunsOfBatches) {
  constexpr int64_t kB = 40, kM = 3, kK = 16, kN = 16;
  const auto weight = test::random_floats(kB * kK * kN, 51);
  auto make = [&] {
    GraphBuilder b;
    const ValueId a = b.add_tensor(DType::F32, {kB, kM, kK});
    b.mark_input(a);
    const ValueId out = b.add_tensor(DType::F32, {kB, kM, kN});
    b.add_op("aten.bmm.default", {a, b.add_constant(DType::F32, {kB, kK, kN}, test::bytes_of(weight)), out});
    b.mark_output(out);
    return std::move(b).build();
  };
  const auto a = test::random_floats(kB * kM * kK, 52), a2 = test::random_floats(kB * 2 * kK, 53);
  expect_same(make, {{test::f32_view(a, {kB, kM, kK})}, {test::f32_view(a2, {kB, 2, kK})}}, 3, 1e-6f);
}

// aten._weight_int8pack_mm (int8 [N, K]) and et_vk.linear_qcs4w (4-bit
// [N, K / 2]) with 256-byte weight rows: 150 rows in runs of 64 + 64 + 22,
// each writing its output features with their scales.
TEST_F(SplitConvMm, PerChannelQuantizedLinearsRunsOfOutputFeatures) {
  constexpr int64_t kN = 150, kMaxM = 4;
  for (uint32_t bits : {8u, 4u}) {
    SCOPED_TRACE(bits == 8 ? "_weight_int8pack_mm" : "linear_qcs4w");
    const int64_t k = bits == 8 ? 256 : 512, row_bytes = 256;
    std::vector<uint8_t> weight(size_t(kN * row_bytes));
    for (size_t i = 0; i < weight.size(); ++i) weight[i] = uint8_t(i * 37 + 11);
    const auto scales = test::random_floats(kN, 61, 0.01f, 0.1f);
    auto make = [&] {
      GraphBuilder b;
      const ValueId x = b.add_tensor(DType::F32, {kMaxM, k});
      b.mark_input(x);
      const ValueId out = b.add_tensor(DType::F32, {kMaxM, kN});
      b.add_op(bits == 8 ? "aten._weight_int8pack_mm.default" : "et_vk.linear_qcs4w.default",
               {x, b.add_constant(bits == 8 ? DType::I8 : DType::U8, {kN, row_bytes}, weight),
                b.add_constant(DType::F32, {kN}, test::bytes_of(scales)), out});
      b.mark_output(out);
      return std::move(b).build();
    };
    const auto x4 = test::random_floats(size_t(kMaxM * k), 62), x1 = test::random_floats(size_t(k), 63);
    LoadOptions own = test::load_options();
    own.tuning.fuse = false;  // the op's own kernel in both (the passes would move the whole one's into linear_ggml)
    expect_same(make, {{test::f32_view(x4, {kMaxM, k})}, {test::f32_view(x1, {1, k})}}, 3, 1e-6f, own);
  }
}

}  // namespace
}  // namespace wgrt
