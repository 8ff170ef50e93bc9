// The decode GEMV with several rows of x (batched decode, M = 2 .. 32): the
// multi-row pipeline (XROWS rows per workgroup, each weight block decoded
// once for them) must give each row exactly (bitwise) what that row gives
// alone at M = 1, with every fused epilogue, and match a float64 reference.
// Shapes pick the kernels' row counts: block layout K = 512 (8 lanes, 8 rows
// of x per workgroup, two staged parts at M >= 5), K = 2304 (16 lanes, 4
// rows, two chunks); planar K = 4160 (32 lanes, 4 rows, two chunks) and K = 608 at 8
// lanes (8 rows; K-quants 4352 and 768); the same two for the int8-x GEMV; and planar matrices
// whose one-row kernel has row blocks (output heads: K = 4096 at 16 lanes,
// two chunks of two x elements per invocation, 4 row blocks), which M > 1
// takes to the multi-row kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"
#include "import/gguf/dequantize.h"
#include "ops/quant/quant_layout.h"
#include "ops/random_blocks.h"

namespace wgrt {
namespace {

struct Format {
  uint32_t type;
  const char* name;
  bool planar;
};

// The linear forms whose GEMV epilogues differ.
// NormRequant: norm+residual with x requantized per row (x_quant, 8da4w).
enum class Form { Plain, NormResidual, Swiglu, SplitRope, NormRequant };
const char* form_name(Form f) {
  switch (f) {
    case Form::Plain: return "plain";
    case Form::NormResidual: return "norm+residual";
    case Form::Swiglu: return "swiglu";
    case Form::SplitRope: return "split+rope";
    case Form::NormRequant: return "norm+requant+residual";
  }
  return "";
}

constexpr int64_t kMaxM = 32, kHeadDim = 16;
constexpr int64_t kRopeN = 2 * kHeadDim + kHeadDim + 8;  // 2 query heads, 1 key head, 8 values

// One linear call: its graph, and the inputs and weight as the test made them.
struct Linear {
  std::unique_ptr<ExecutableGraph> graph;
  std::vector<float> x, residual, cos, sin, bias, norm, wf;  // wf: the dequantized weight [N, K]
  int64_t k = 0, n = 0;
  Form form = Form::Plain;
};

Linear build(gpu::Device& device, const Format& f, Form form, int64_t k, int64_t n, const Tuning& tuning) {
  Linear L;
  L.k = k;
  L.n = form == Form::SplitRope ? kRopeN : n;
  L.form = form;
  const ops::QuantLayout& l = *ops::find_quant_layout(f.type);
  const auto file = test::random_blocks(l, L.n, k, f.type + 11);
  L.wf.resize(L.n * k);
  gguf::dequantize(static_cast<gguf::GgmlType>(f.type), file, L.wf);
  const auto gpu_bytes = f.planar ? ops::repack_planar(f.type, file, L.n, k) : ops::repack_for_gpu(l, file, L.n, k);
  const Dims wdims = f.planar ? Dims{L.n, int64_t(ops::planar_row_bytes(f.type, k) / 16), 16}
                              : Dims{L.n, int64_t(ops::gpu_row_bytes(l, k))};
  L.x = test::random_floats(kMaxM * k, 5);
  L.bias = test::random_floats(L.n, 6);
  L.norm = test::random_floats(k, 7, 0.5f, 1.5f);
  L.residual = test::random_floats(kMaxM * L.n, 8);
  L.cos = test::random_floats(kMaxM * kHeadDim / 2, 9, -1.0f, 1.0f);
  L.sin = test::random_floats(kMaxM * kHeadDim / 2, 10, -1.0f, 1.0f);

  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {kMaxM, k});
  b.mark_input(x);
  const ValueId w = b.add_constant(DType::U8, wdims, gpu_bytes);
  const ValueId type = b.add_int(f.type);
  const ValueId bias = b.add_constant(DType::F32, {L.n}, test::bytes_of(L.bias));
  const ValueId norm = b.add_constant(DType::F32, {k}, test::bytes_of(L.norm));
  const ValueId eps = b.add_double(1e-5);
  if (form == Form::Plain) {
    const ValueId out = b.add_tensor(DType::F32, {kMaxM, L.n});
    b.add_op("wgrt.linear_ggml", {x, w, type, bias, b.add_null(), out});
    b.mark_output(out);
  } else if (form == Form::NormResidual || form == Form::NormRequant) {
    const ValueId res = b.add_tensor(DType::F32, {kMaxM, L.n});
    b.mark_input(res);
    const ValueId out = b.add_tensor(DType::F32, {kMaxM, L.n});
    const ValueId x_quant = form == Form::NormRequant ? b.add_double(1.1920928955078125e-07) : b.add_null();
    b.add_op("wgrt.linear_ggml_fused", {x, w, type, bias, x_quant, norm, eps, res, out});
    b.mark_output(out);
  } else if (form == Form::Swiglu) {
    const ValueId out = b.add_tensor(DType::F32, {kMaxM, L.n / 2});
    b.add_op("wgrt.linear_ggml_swiglu", {x, w, type, bias, b.add_null(), norm, eps, out});
    b.mark_output(out);
  } else {
    const ValueId cos = b.add_tensor(DType::F32, {kMaxM, kHeadDim / 2});
    const ValueId sin = b.add_tensor(DType::F32, {kMaxM, kHeadDim / 2});
    b.mark_input(cos);
    b.mark_input(sin);
    const ValueId q = b.add_tensor(DType::F32, {kMaxM, 2, kHeadDim});
    const ValueId kk = b.add_tensor(DType::F32, {kMaxM, 1, kHeadDim});
    const ValueId v = b.add_tensor(DType::F32, {kMaxM, 8});
    b.add_op("wgrt.linear_ggml_split_rope", {x, w, type, bias, b.add_null(), norm, eps, cos, sin, q, kk, v});
    b.mark_output(q);
    b.mark_output(kk);
    b.mark_output(v);
  }
  LoadOptions options;
  options.tuning = tuning;
  L.graph = ExecutableGraph::load(device, std::move(b).build(), options);
  return L;
}

// Rows first .. first + m of every input; the outputs' rows flattened, one
// vector per output.
std::vector<std::vector<float>> run(Linear& L, int64_t first, int64_t m) {
  const auto rows = [&](const std::vector<float>& v, int64_t width) {
    return std::vector<float>(v.begin() + first * width, v.begin() + (first + m) * width);
  };
  const auto x = rows(L.x, L.k), res = rows(L.residual, L.n);
  const auto cos = rows(L.cos, kHeadDim / 2), sin = rows(L.sin, kHeadDim / 2);
  std::vector<HostTensorView> in = {test::f32_view(x, {m, L.k})};
  if (L.form == Form::NormResidual || L.form == Form::NormRequant) in.push_back(test::f32_view(res, {m, L.n}));
  if (L.form == Form::SplitRope) {
    in.push_back(test::f32_view(cos, {m, kHeadDim / 2}));
    in.push_back(test::f32_view(sin, {m, kHeadDim / 2}));
  }
  std::vector<std::vector<float>> outs;
  for (const HostTensor& t : L.graph->execute(in)) outs.push_back(test::floats(t));
  return outs;
}

// Plain and norm+residual outputs against float64: relative to the sum of
// |terms| (and |residual|), 1e-5 as the GEMV's bound in test_quant_linear.cpp.
void check_reference(const Linear& L, const std::vector<float>& got, int64_t m) {
  double worst = 0;
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = L.x.data() + i * L.k;
    double scale = 1;
    if (L.form == Form::NormResidual) {
      double sq = 0;
      for (int64_t k = 0; k < L.k; ++k) sq += double(xr[k]) * xr[k];
      scale = 1 / std::sqrt(sq / L.k + 1e-5);
    }
    for (int64_t n = 0; n < L.n; ++n) {
      double want = L.bias[n], mag = std::abs(L.bias[n]);
      if (L.form == Form::NormResidual) {
        want += L.residual[i * L.n + n];
        mag += std::abs(L.residual[i * L.n + n]);
      }
      for (int64_t k = 0; k < L.k; ++k) {
        const double xk = L.form == Form::NormResidual ? xr[k] * scale * L.norm[k] : xr[k];
        want += xk * L.wf[n * L.k + k];
        mag += std::abs(xk * L.wf[n * L.k + k]);
      }
      worst = std::max(worst, std::abs(got[i * L.n + n] - want) / (mag + 1e-6));
    }
  }
  EXPECT_LT(worst, 1e-5);
}

// Every row alone (M = 1), then M = 2, 3, 8 and 32: each row bitwise the
// same as alone, and (plain, norm+residual; f32 x) near the float64
// reference. lanes: Tuning::gemv_lanes; int8_x: the planar GEMV on two int8
// roundings of x (gemv_planar_q8.wgsl; its bound is test_quant_linear.cpp's).
void check_rows(gpu::Device& device, const Format& f, int64_t k, int64_t n, uint32_t lanes = 0, bool int8_x = false,
                uint32_t row_blocks = 0) {
  Tuning tuning;
  tuning.gemv_lanes = lanes;
  tuning.gemv_row_blocks = row_blocks;
  tuning.gemv_batch_rows = 32;  // the GEMV takes every M here (a batched decode step)
  if (int8_x) tuning.gemv_activation = GemvActivation::Q8x2;
  // NormRequant's numerics are checked end to end against torch (test_llama_pte.cpp's 8da4w).
  for (Form form : {Form::Plain, Form::NormResidual, Form::Swiglu, Form::SplitRope, Form::NormRequant}) {
    // The RoPE GEMV binds 10 storage buffers: under WebGPU's default 8 the
    // fusion pass never makes it (fuse_linear.cpp), so there is nothing to test.
    if (form == Form::SplitRope && device.limits().max_storage_buffers_per_shader_stage < 10) continue;
    // x_quant's staging is the same code in every block format (gemv_stage_x.wgsl): F32 stands for
    // them (each K-quant pipeline costs lavapipe seconds to compile); the planar ones have their own.
    if (form == Form::NormRequant && !f.planar && f.type != 0) continue;
    SCOPED_TRACE(std::string(f.name) + " " + form_name(form) + " K=" + std::to_string(k) + " lanes " +
                 std::to_string(lanes) + (int8_x ? " int8 x" : "") + " row blocks " + std::to_string(row_blocks));
    Linear L = build(device, f, form, k, n, tuning);
    std::vector<std::vector<std::vector<float>>> alone;  // [row][output]
    for (int64_t i = 0; i < kMaxM; ++i) alone.push_back(run(L, i, 1));
    for (int64_t m : {2, 3, 8, 32}) {
      SCOPED_TRACE("M=" + std::to_string(m));
      const auto outs = run(L, 0, m);
      ASSERT_EQ(outs.size(), alone[0].size());
      for (size_t o = 0; o < outs.size(); ++o) {
        const size_t width = alone[0][o].size();
        ASSERT_EQ(outs[o].size(), width * m);
        for (int64_t i = 0; i < m; ++i) {
          EXPECT_EQ(0, std::memcmp(outs[o].data() + i * width, alone[i][o].data(), width * 4))
              << "output " << o << " row " << i << " differs from the row alone";
        }
      }
      if (!int8_x && (form == Form::Plain || form == Form::NormResidual)) check_reference(L, outs[0], m);
    }
  }
}

class GemvRows : public test::GpuTest, public ::testing::WithParamInterface<Format> {};

TEST_P(GemvRows, EachRowAsAlone) {
  const Format f = GetParam();
  if (f.planar) {
    // K-quants: whole 256-element blocks (4160 -> 4352, 608 -> 768; the same kernels' row counts).
    const int64_t block = ops::find_quant_layout(f.type)->block_elems;
    const auto whole = [block](int64_t k) { return (k + block - 1) / block * block; };
    check_rows(device(), f, whole(4160), 40);
    check_rows(device(), f, whole(608), 40, 8);
    check_rows(device(), f, whole(4160), 40, 0, true);
    check_rows(device(), f, whole(608), 40, 8, true);
    check_rows(device(), f, 4096, 200, 16, false, 4);
    check_rows(device(), f, 4096, 200, 16, true, 4);
  } else {
    check_rows(device(), f, 512, 40);  // K-quants need whole 256-element blocks
    check_rows(device(), f, 2304, 40);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, GemvRows,
                         ::testing::Values(Format{2, "Q4_0", true}, Format{3, "Q4_1", true},
                                           Format{8, "Q8_0", true}, Format{0, "F32", false},
                                           Format{1, "F16", false}, Format{12, "Q4_K", false},
                                           Format{14, "Q6_K", false}, Format{12, "Q4_K_planar", true},
                                           Format{13, "Q5_K_planar", true}, Format{14, "Q6_K_planar", true}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace wgrt
