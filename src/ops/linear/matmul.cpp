// f32 matrix products, all on linear/matmul.wgsl:
//   aten.linear.default (x [..., K], weight [N, K], bias [N] or Null, out [..., N])
//   aten.mm.default     (a [M, K], b [K, N], out [M, N])
//   aten.bmm.default    (a [B, M, K], b [B, K, N], out [B, M, N])
//   aten.addmm.default  (bias [N] or [1, N], a [M, K], b [K, N], beta 1, alpha 1, out [M, N])
// linear records both the GEMV and the tiled GEMM; its hook gives workgroups
// to GEMV when the live M (rows of x) is 1 and to the GEMM otherwise, so bind
// groups never change. linear's GEMM is the family's (linear/gemm.h, the
// weight rows read as ggml F32 rows) when K % 32 == 0 and the device fits it. mm and bmm use the GEMM alone. Every live dim may
// change between runs, up to its maximum.
// A constant weight or b above the binding limit comes in runs of its rows
// (graph/memory_plan.h), one dispatch (linear: one pair) per run: linear's
// runs of N write their columns of out; mm's and addmm's runs of K each add
// their part of the sum (the first writes, with the bias; the later ones
// add to out: ACCUMULATE in matmul.wgsl); bmm's runs of batches write
// their batches.
#include "ops/linear/matmul.h"

#include <cstdio>
#include <vector>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/f16_constant.h"
#include "ops/common/row_runs.h"
#include "ops/linear/gemm.h"
#include "ops/quant/quant_layout.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kTile = 32;         // TILE in matmul.wgsl
constexpr uint32_t kGemvWorkgroup = 64;
constexpr uint32_t kGemvRows = 4;      // ROWS in matmul.wgsl

struct MatmulParams {
  uint32_t m = 0;
  uint32_t n = 0;
  uint32_t k = 0;
  uint32_t tiles_m = 0;
  uint32_t tiles_n = 0;
  uint32_t a_batch_stride = 0;
  uint32_t b_batch_stride = 0;
  uint32_t batches = 0;
  // A run of b's rows (matmul.wgsl): linear's of N, mm's of K, bmm's of batches.
  uint32_t row0 = 0, out_cols = 0, a_cols = 0, k0 = 0;
  uint32_t batch0 = 0, pad[3] = {};
};
static_assert(sizeof(MatmulParams) == 64, "must match Params in matmul.wgsl");

MatmulParams params_for(int64_t batches, int64_t m, int64_t k, int64_t n) {
  MatmulParams p;
  p.m = static_cast<uint32_t>(m);
  p.n = static_cast<uint32_t>(n);
  p.k = static_cast<uint32_t>(k);
  p.tiles_m = static_cast<uint32_t>(gpu::div_up(m, kTile));
  p.tiles_n = static_cast<uint32_t>(gpu::div_up(n, kTile));
  p.a_batch_stride = static_cast<uint32_t>(m * k);
  p.b_batch_stride = static_cast<uint32_t>(k * n);
  p.batches = static_cast<uint32_t>(batches);
  p.out_cols = p.n;
  p.a_cols = p.k;
  return p;
}

uint64_t gemm_workgroups(const MatmulParams& p) { return uint64_t(p.batches) * p.tiles_m * p.tiles_n; }

void expect_shape(const OpArgs& args, size_t i, const Dims& want) {
  if (args.tensor(i).max_dims != want) {
    args.fail(i, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(i).max_dims));
  }
}

[[noreturn]] void bad_live(const char* op, const Dims& a, const Dims& b) {
  throw Error(ErrorCode::InvalidArgument,
              std::string(op) + ": live shapes " + dims_string(a) + " and " + dims_string(b) + " do not multiply");
}

// --- aten.linear.default -------------------------------------------------------

void check_linear(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& x = args.tensor(0, {DType::F32});
  args.expect_rank_at_least(0, 1);
  const Tensor& w = f32_or_f16_constant(args, 1);
  args.expect_rank(1, 2);
  const int64_t n = w.max_dims[0], k = w.max_dims[1];
  if (x.max_dims.back() != k) {
    args.fail(1, "expected [N, " + std::to_string(x.max_dims.back()) + "] (argument 0's last dim), got " +
                     dims_string(w.max_dims));
  }
  if (!args.is_null(2)) {
    args.tensor(2, {DType::F32});
    expect_shape(args, 2, {n});
  }
  args.tensor(3, {DType::F32});
  Dims want = x.max_dims;
  want.back() = n;
  expect_shape(args, 3, want);
}

void lower_linear(OpContext& ctx) {
  const ValueId x = ctx.arg(0), w = ctx.arg(1), out = ctx.arg(3);
  const bool has_bias = !ctx.args().is_null(2);
  const bool f16_weight = ctx.tensor_info(w).dtype == DType::F16;
  const gpu::OverrideConstants constants = {
      {"B_TRANSPOSED", 1}, {"HAS_BIAS", has_bias ? 1 : 0}, {"BATCHED", 0}, {"B_F16", f16_weight ? 1 : 0}};
  gpu::OverrideConstants gemv_constants = constants;
  gemv_constants.emplace_back("WG", kGemvWorkgroup);
  const auto& gemv = ctx.pipeline("linear/matmul.wgsl", "gemv", gemv_constants);
  const int64_t n = ctx.max_dims(w)[0], k = ctx.max_dims(w)[1];
  GemmChoice choice;
  // Auto keeps this op's own GEMM: the family's default was measured on
  // GGUF linears only (bench/RESULTS.md).
  const bool family = k % 32 == 0 && ctx.tuning().matmul_precision != MatmulPrecision::Auto &&
                      gemm_choose(ctx.device(), ctx.tuning(), choice);
  const gpu::ComputePipeline* gemm = nullptr;
  if (family) {
    gpu::OverrideConstants c = decode_constants(*find_quant_layout(f16_weight ? 1 : 0));  // ggml F32 / F16 rows
    c.emplace_back("HAS_BIAS", has_bias ? 1 : 0);
    gemm = &gemm_pipeline(ctx, choice, "quant/dequant.wgsl", c);
  } else {
    gemm = &ctx.pipeline("linear/matmul.wgsl", "gemm", constants);
  }
  const GemmUnusedBindings unused = family ? gemm_unused_bindings(ctx, ctx.tensor(x)) : GemmUnusedBindings{};
  const gpu::BufferBinding bias = ctx.tensor(has_bias ? ctx.arg(2) : x);  // x: a placeholder
  // A weight above the binding limit comes in runs of rows (memory_plan.h):
  // each run its own GEMV and GEMM, writing its columns of out.
  const std::vector<LinearRunDispatch> parts = record_linear_runs(
      ctx, w, sizeof(MatmulParams), family ? sizeof(GemmParams) : 0, [&](gpu::BufferBinding run, LinearRunDispatch& d) {
        const auto bindings = {ctx.tensor(x), run, bias, ctx.tensor(out), ctx.uniform_binding(d.params)};
        d.gemv = ctx.dispatch(gemv, bindings, kMatmulGemvLabel);
        d.gemm = family ? ctx.dispatch(*gemm,
                                       {ctx.tensor(x), run, bias, ctx.tensor(out), ctx.uniform_binding(d.family_params),
                                        unused.norm, unused.residual, unused.out1, unused.out2},
                                       kGemmLabel)
                        : ctx.dispatch(*gemm, bindings, kMatmulGemmLabel);
      });
  ctx.on_resize({x}, [=](ResizeContext& r) {
    Dims dims = r.dims(x);
    const int64_t m = k == 0 ? 0 : numel(dims) / k;
    dims.back() = n;
    r.set_dims(out, dims);
    const bool one_row = m == 1;
    for (const LinearRunDispatch& part : parts) {
      MatmulParams p = params_for(1, m, k, part.rows);
      p.row0 = part.row0;
      p.out_cols = static_cast<uint32_t>(n);
      r.write_uniform(part.params, p);
      // Words per weight row: k f32s, or k f16s two to a word.
      const uint32_t row_words = f16_weight ? p.k / 2 : p.k;
      if (family) r.write_uniform(part.family_params, GemmParams::run(p.m, p.n, p.k, row_words, part.row0, p.out_cols));
      r.set_workgroups(part.gemv, r.fold(one_row ? gpu::div_up(part.rows, kGemvRows) : 0));
      r.set_workgroups(part.gemm,
                       r.fold(one_row ? 0 : family ? ops::gemm_workgroups(choice.tile, p.m, p.n) : gemm_workgroups(p)));
    }
  });
}

// --- aten.mm.default and aten.bmm.default ------------------------------------------

void check_mm(const OpArgs& args, size_t rank) {
  args.expect_count(3);
  const Tensor& a = args.tensor(0, {DType::F32});
  args.expect_rank(0, rank);
  const Tensor& b = f32_or_f16_constant(args, 1);
  args.expect_rank(1, rank);
  const size_t r = rank - 2;  // index of M in a, of K in b
  if (a.max_dims[r + 1] != b.max_dims[r] || (rank == 3 && a.max_dims[0] != b.max_dims[0])) {
    args.fail(1, "shape " + dims_string(b.max_dims) + " does not multiply " + dims_string(a.max_dims));
  }
  args.tensor(2, {DType::F32});
  Dims want = a.max_dims;
  want.back() = b.max_dims.back();
  expect_shape(args, 2, want);
}

// mm and bmm are (a, b, out); addmm is (bias, a, b, beta, alpha, out) with
// the bias added per output column. A constant b above the binding limit
// comes in runs of rows: of K for mm and addmm (each run one GEMM over its
// columns of a; the first writes out with the bias, the later ones add to
// it), of batches for bmm (each run its batches). One run otherwise: the
// same single dispatch and uniform values as before splits existed.
void lower_mm(OpContext& ctx, bool batched, bool addmm = false) {
  const size_t first = addmm ? 1 : 0;
  const ValueId a = ctx.arg(first), b = ctx.arg(first + 1), out = ctx.arg(first + (addmm ? 4 : 2));
  const double b_f16 = ctx.tensor_info(b).dtype == DType::F16 ? 1 : 0;
  const auto& gemm = ctx.pipeline("linear/matmul.wgsl", "gemm",
                                  {{"B_TRANSPOSED", 0}, {"HAS_BIAS", addmm ? 1 : 0}, {"BATCHED", batched ? 1 : 0},
                                   {"B_F16", b_f16}});
  const std::vector<TensorSegment> segments = ctx.segments(b);
  // Later runs of K add their part to out, without the bias.
  const gpu::ComputePipeline* accumulate =
      segments.size() > 1 && !batched ? &ctx.pipeline("linear/matmul.wgsl", "gemm",
                                                      {{"B_TRANSPOSED", 0}, {"HAS_BIAS", 0}, {"BATCHED", 0},
                                                       {"B_F16", b_f16}, {"ACCUMULATE", 1}})
                                      : nullptr;
  // Without a bias, a again as its placeholder.
  const gpu::BufferBinding bias = ctx.tensor(addmm ? ctx.arg(0) : a);
  std::vector<LinearRunDispatch> runs;
  for (const TensorSegment& s : segments) {
    LinearRunDispatch run;
    run.params = ctx.uniform(sizeof(MatmulParams));
    run.row0 = static_cast<uint32_t>(s.first_row);
    run.rows = static_cast<uint32_t>(s.rows);
    run.gemm = ctx.dispatch(runs.empty() || batched ? gemm : *accumulate,
                            {ctx.tensor(a), gpu::BufferBinding{s.buffer}, bias, ctx.tensor(out),
                             ctx.uniform_binding(run.params)},
                            kMatmulGemmLabel);
    runs.push_back(run);
  }
  ctx.on_resize({a, b}, [=](ResizeContext& r) {
    const Dims& da = r.dims(a);
    const Dims& db = r.dims(b);
    const size_t i = batched ? 1 : 0;  // index of M in a, of K in b
    if (da[i + 1] != db[i] || (batched && da[0] != db[0])) bad_live(batched ? "bmm" : "mm", da, db);
    Dims dims = da;
    dims.back() = db.back();
    r.set_dims(out, dims);
    for (const LinearRunDispatch& run : runs) {
      // One run: the whole of b (row0 0, rows its first dim).
      MatmulParams p = params_for(batched ? da[0] : 1, da[i], da[i + 1], db.back());
      if (batched) {
        p.batch0 = run.row0;
        p.batches = run.rows;
      } else {
        p.k0 = run.row0;
        p.k = run.rows;
      }
      r.write_uniform(run.params, p);
      r.set_workgroups(run.gemm, r.fold(gemm_workgroups(p)));
    }
  });
}

void check_addmm(const OpArgs& args) {
  args.expect_count(6);
  const Tensor& a = args.tensor(1, {DType::F32});
  args.expect_rank(1, 2);
  const Tensor& b = f32_or_f16_constant(args, 2);
  args.expect_rank(2, 2);
  if (a.max_dims[1] != b.max_dims[0]) args.fail(2, "shape " + dims_string(b.max_dims) + " does not multiply " + dims_string(a.max_dims));
  const int64_t n = b.max_dims[1];
  const Dims& bias = args.tensor(0, {DType::F32}).max_dims;
  if (bias != Dims{n} && bias != Dims{1, n}) {
    args.fail(0, "bias " + dims_string(bias) + ": only a per-column bias ([" + std::to_string(n) + "] or [1, " +
                     std::to_string(n) + "]) is supported");
  }
  for (size_t i : {size_t{3}, size_t{4}}) {
    if (!args.is_null(i) && args.number(i) != 1.0) {
      char value[32];
      std::snprintf(value, sizeof value, "%g", args.number(i));
      args.fail(i, std::string(i == 3 ? "beta " : "alpha ") + value + ": only 1 is supported");
    }
  }
  args.tensor(5, {DType::F32});
  expect_shape(args, 5, {a.max_dims[0], n});
}

}  // namespace

void register_matmul(OpRegistry& registry) {
  OpDef linear{check_linear, lower_linear};
  linear.f16_constant_args = {1};  // the weight: f16 programs keep it f16 (half the memory)
  registry.add("aten.linear.default", std::move(linear));
  OpDef mm{[](const OpArgs& a) { check_mm(a, 2); }, [](OpContext& c) { lower_mm(c, false); }};
  OpDef bmm{[](const OpArgs& a) { check_mm(a, 3); }, [](OpContext& c) { lower_mm(c, true); }};
  OpDef addmm{check_addmm, [](OpContext& c) { lower_mm(c, false, true); }};
  mm.f16_constant_args = bmm.f16_constant_args = {1};  // b
  addmm.f16_constant_args = {2};
  registry.add("aten.mm.default", std::move(mm));
  registry.add("aten.bmm.default", std::move(bmm));
  registry.add("aten.addmm.default", std::move(addmm));
}

}  // namespace wgrt::ops
