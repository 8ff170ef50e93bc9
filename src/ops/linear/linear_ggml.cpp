// wgrt.linear_ggml (x [..., K] f32, weight u8 [N, row bytes] in a ggml block
// format laid out by quant_layout.h, ggml type id, bias [N] or Null, x_quant,
// out [..., N]): the linear layers of GGUF models with weights as stored.
// x_quant is Null, or the eps of a per-row int8 requantization of x (after the
// norm where there is one) as ExecuTorch's 8da4w linears make it
// (linear/x_dq8.wgsl); every form has it (linear_forms.h lists them).
//
// wgrt.linear_ggml_fused (x, weight, type, bias or Null, x_quant, norm weight
// [K] or Null, eps, residual [..., N] or Null, out): the same with an RMSNorm
// of x (by norm weight, eps) before it and a residual added after it; made by
// the fusion pass (ops/passes/fuse_linear.h) from rms_norm -> linear_ggml ->
// add, never by importers.
//
// wgrt.linear_ggml_split (x, weight, type, bias or Null, x_quant, norm weight
// or Null, eps, out0, out1, out2 or Null): linears that share x and prologue
// merged by the fusion pass into one matrix (weight rows and bias concatenated
// at load); output i takes its block of columns ([..., N_i] each).
//
// wgrt.linear_ggml_swiglu (x, weight, type, bias or Null, x_quant, norm weight
// or Null, eps, out [..., N / 2]): gate and up projections merged by the fusion
// pass with their rows interleaved (row 2i gate i, row 2i + 1 up i; bias
// likewise), out = silu(gate) * up. The GEMV applies it in its epilogue; for
// prefill the GEMM writes the interleaved columns to scratch and
// swiglu_pairs.wgsl combines them.
//
// wgrt.linear_ggml_split_rope (x, weight, type, bias or Null, x_quant, norm
// weight or Null, eps, cos [S, D / 2], sin [S, D / 2], q out [..., H, D], k out
// [..., Hk, D], v out [..., Nv] or Null): a split linear (Q, K, V) whose query
// and key outputs get RoPE (adjacent pairs, as et_vk.apply_rotary_emb) by the
// cos/sin rows of x's positions: in the GEMV's epilogue for decode, by
// rope_pairs.wgsl in place after the GEMM for prefill. Made by the fusion pass.
//
// Dispatches recorded: with x_quant or an RMSNorm, x_dq8_rows.wgsl for
// prefill (the GEMMs read its normalized, requantized rows; the GEMV
// normalizes and requantizes as it stages x); the GEMV of
// the quantized family for decode (gemv.wgsl or a planar variant, as
// gemv_choice.h picks; M <= Tuning::gemv_batch_rows; for M > 1 its multi-row
// pipeline where it has one) and two GEMMs for prefill: the GEMM family of
// linear/gemm.h (its tile, the graph's matmul precision; with the same
// residual epilogue and split outputs) and linear.wgsl's 32 x 64 f32
// tiles, which serve where the family would have fewer than
// gemm_family_min_workgroups() workgroups (small N or M: too few to fill a
// large GPU; SmolLM2's matrices at 512 rows), where the device lacks its
// workgroup memory, and while the family is not the default (Auto precision).
// The hook gives the one that fits the live shape its workgroups and the others
// none.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>
#include <string_view>
#include <tuple>

#include "gpu/device.h"
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/linear/gemm.h"
#include "ops/linear/gemv_choice.h"
#include "ops/linear/linear_forms.h"
#include "ops/linear/linear_ggml_check.h"
#include "ops/quant/weight_prep.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;
constexpr uint32_t kTileM = 32, kTileN = 64;  // TILE_M, TILE_N in linear.wgsl

struct RopeParams {
  uint32_t m = 0, q_width = 0, k_width = 0, head_dim = 0;
};

struct PairParams {
  uint32_t count = 0, pad0 = 0, pad1 = 0, pad2 = 0;
};

struct XRowsParams {
  uint32_t m = 0, k = 0;
  float eps = 0, x_eps = 0;
};
static_assert(sizeof(XRowsParams) == 16, "must match Params in linear/x_dq8_rows.wgsl");

void prepare(ConstantPrep& prep) {
  prepare_ggml_weight(prep, 1, 2, prep.args().tensor(0).max_dims.back());
}

// The call's arguments as lowering reads them. Unused bindings get any
// buffer (x, or out for the outputs); split1 and split2 are where out1's and
// out2's columns start (N where there is no such output).
struct LinearCall {
  ValueId x = 0, w = 0, out = 0, out1 = 0, out2 = 0, bias = 0, norm = 0, residual = 0, cos = 0, sin = 0;
  bool has_out1 = false, has_out2 = false, has_bias = false, has_norm = false, has_residual = false;
  bool rope = false, swiglu = false, planar = false, x_dq8 = false;
  float eps = 0, x_eps = 0;
  const QuantLayout* layout = nullptr;
  uint32_t n = 0, k = 0, row_words = 0, split1 = 0, split2 = 0, head_dim = 0;
  // Prefill GEMMs read x from x_dq8_rows.wgsl's pass (record_x_rows).
  bool x_rows() const { return x_dq8 || has_norm; }
};

LinearCall read_call(OpContext& ctx, const LinearForm& s) {
  const OpArgs& args = ctx.args();
  LinearCall c;
  c.x = ctx.arg(0);
  c.w = ctx.arg(1);
  c.out = ctx.arg(s.out);
  c.has_out1 = s.out1 != kNoArg;
  c.has_out2 = c.has_out1 && !args.is_null(s.out2);
  c.has_bias = present(args, s.bias);
  c.has_norm = present(args, s.norm);
  c.has_residual = present(args, s.residual);
  c.rope = s.cos != kNoArg;
  c.swiglu = s.swiglu;
  c.bias = c.has_bias ? ctx.arg(s.bias) : c.x;
  c.norm = c.has_norm ? ctx.arg(s.norm) : c.x;
  c.residual = c.has_residual ? ctx.arg(s.residual) : c.x;
  c.out1 = c.has_out1 ? ctx.arg(s.out1) : c.out;
  c.out2 = c.has_out2 ? ctx.arg(s.out2) : c.out;
  c.cos = c.rope ? ctx.arg(s.cos) : c.x;
  c.sin = c.rope ? ctx.arg(s.sin) : c.x;
  c.eps = c.has_norm ? static_cast<float>(args.number(s.eps)) : 0.0f;
  c.x_dq8 = !args.is_null(kLinearXQuant);
  c.x_eps = c.x_dq8 ? static_cast<float>(args.number(kLinearXQuant)) : 0.0f;
  c.layout = find_quant_layout(static_cast<uint32_t>(args.integer(2)));
  const Tensor& weight = args.tensor(1);
  c.planar = is_planar_weight(weight);
  c.row_words = weight_row_words(weight);
  c.n = static_cast<uint32_t>(ctx.max_dims(c.w)[0]);
  c.k = static_cast<uint32_t>(ctx.max_dims(c.x).back());
  const uint32_t width0 = static_cast<uint32_t>(output_width(s, s.out, ctx.max_dims(c.out), c.n).first);
  const uint32_t width1 =
      c.has_out1 ? static_cast<uint32_t>(output_width(s, s.out1, ctx.max_dims(c.out1), c.n).first) : 0;
  c.split1 = c.has_out1 ? width0 : c.n;
  c.split2 = c.has_out2 ? c.split1 + width1 : c.n;
  c.head_dim = c.rope ? static_cast<uint32_t>(ctx.max_dims(c.out).back()) : 0;
  return c;
}

// The constants every kernel of the call shares: the weight's decoding and
// which optional parts it has.
gpu::OverrideConstants linear_constants(const LinearCall& c, const Tensor& weight) {
  gpu::OverrideConstants constants = weight_decode_constants(*c.layout, weight, c.k);
  constants.insert(constants.end(), {{"HAS_BIAS", c.has_bias ? 1.0 : 0.0},
                                     {"HAS_NORM", c.has_norm ? 1.0 : 0.0},
                                     {"HAS_RESIDUAL", c.has_residual ? 1.0 : 0.0}});
  return constants;
}

// The prefill GEMMs: the family's tiles (gemm.h; its large tile for live
// shapes that give it enough workgroups) where their grid is large enough,
// else the old tiled GEMM (linear.wgsl).
struct GemmPlan {
  GemmChoice choice, large;
  bool family = false, has_large = false;
  // Below this many family workgroups the old tiles: 0 by default (the
  // family measured faster at every size on the H200, also for SmolLM2's
  // 72-workgroup matrices).
  uint64_t min_workgroups = 0;
  uint64_t large_min = 0, large_min_k = 0;

  // Whether the family takes an M x N GEMM (else the old tiles).
  bool family_takes(uint32_t m, uint32_t n) const {
    return family && gemm_workgroups(choice.tile, m, n) >= min_workgroups;
  }
};

GemmPlan plan_gemms(OpContext& ctx) {
  GemmPlan g;
  g.family = gemm_choose(ctx.device(), ctx.tuning(), g.choice);
  g.min_workgroups = ctx.tuning().gemm_min_workgroups;
  g.has_large = g.family && gemm_choose_large(ctx.device(), ctx.tuning(), g.choice, g.large);
  g.large_min = ctx.tuning().gemm_large_min_workgroups;
  g.large_min_k = ctx.tuning().gemm_large_min_k;
  return g;
}

// Where the old tiled GEMM writes. SwiGLU: the GEMM family stores
// silu(gate) * up itself (gemm.wgsl's store4); the old tiled GEMM writes the
// interleaved gate/up columns to scratch ([M, N]), which swiglu_pairs.wgsl
// turns into out. The scratch holds only the rows the old GEMM can get (none
// for llama1b's gate/up, whose 256 column tiles always fill the family's
// grid: 32 MiB less at 512-token chunks).
gpu::BufferBinding tiled_gemm_output(OpContext& ctx, const LinearCall& c, const GemmPlan& gemm) {
  if (!c.swiglu) return ctx.tensor(c.out);
  const uint32_t max_m = static_cast<uint32_t>(numel(ctx.max_dims(c.x)) / std::max<int64_t>(1, c.k));
  uint32_t old_rows = max_m;
  if (gemm.family) {
    old_rows = 0;
    while (old_rows < max_m && !gemm.family_takes(old_rows + 1, c.n)) ++old_rows;
  }
  return ctx.scratch(uint64_t(std::max(old_rows, 1u)) * c.n * 4, "linear swiglu gate/up");
}

// A weight above the binding limit comes in runs of rows (memory_plan.h):
// each run gets its own GEMV and GEMMs, writing its columns of out. Only the
// plain and norm/residual forms split; the fusion pass merges no weights
// past the limit, so the others never meet one.
std::vector<TensorSegment> weight_runs(OpContext& ctx, const LinearCall& c) {
  std::vector<TensorSegment> segments = ctx.segments(c.w);
  if (segments.size() > 1 && (c.has_out1 || c.swiglu || c.rope)) {
    throw Error(ErrorCode::NotSupported, "its weight (" + std::to_string(c.n) + " rows) is above the device's binding "
                                         "limit, which only the plain and norm/residual linears can read in parts");
  }
  return segments;
}

// What each run's dispatches are recorded with.
struct LinearKernels {
  const gpu::ComputePipeline* gemv = nullptr;
  const gpu::ComputePipeline* gemv_multi = nullptr;  // XROWS x rows per workgroup (M > 1), if any
  uint32_t multi_rows = 1;
  const gpu::ComputePipeline* tiled = nullptr;
  // The family has the same bindings, Params (GemmParams) and optional parts.
  gpu::OverrideConstants family_constants;
  GemmPlan gemm;
  gpu::BufferBinding none1, none2;  // out1, out2 or a scratch word each
  gpu::BufferBinding tiled_out;     // out, or SwiGLU's scratch
  gpu::BufferBinding gemm_x;        // x, or with x_quant its requantized rows (scratch)
  // The profile groups by label: format and shape let it tell the matrices
  // apart (bytes per token); the suffix names the optional parts.
  std::string shape, suffix;
};

LinearKernels choose_kernels(OpContext& ctx, const LinearCall& c, const GemvChoice& gemv,
                             const gpu::OverrideConstants& constants) {
  LinearKernels kern;
  // The RoPE GEMV alone binds the tables (10 storage buffers); the others
  // stay within WebGPU's default 8 (linear/gemv_rope_none.wgsl).
  const gpu::ShaderSlot rope_slot = {"rope", c.rope ? "rope" : "rope_none"};
  // x staged as it is, or requantized per row (x_quant).
  const gpu::ShaderSlot xq_slot = {"xq", c.x_dq8 ? "dq8" : "none"};
  kern.gemv = &ctx.pipeline(gemv.shader, "main", gemv.constants, {rope_slot, xq_slot});
  // The multi-row GEMV only where the GEMV takes several rows (Tuning::gemv_batch_rows).
  kern.multi_rows = ctx.tuning().gemv_batch_rows > 1 ? gemv.multi_rows : 1;
  if (kern.multi_rows > 1) {
    kern.gemv_multi = &ctx.pipeline(gemv.multi_shader, "main", gemv.multi_constants, {rope_slot, xq_slot});
  }
  // With x_quant or a fused RMSNorm the GEMMs read rows normalized (and
  // requantized) already: x_rows' pass.
  gpu::OverrideConstants gemm_constants = constants;
  for (auto& [name, value] : gemm_constants) {
    if (name == "HAS_NORM" && c.x_rows()) value = 0.0;
  }
  kern.tiled = &ctx.pipeline("linear/linear.wgsl", "main_tiled", gemm_constants);
  // Unused output bindings get a scratch word: the same buffer bound twice as
  // read_write would alias.
  kern.none1 = c.has_out1 ? ctx.tensor(c.out1) : ctx.scratch(4, "linear unused output");
  kern.none2 = c.has_out2 ? ctx.tensor(c.out2) : ctx.scratch(4, "linear unused output");
  kern.gemm = plan_gemms(ctx);
  kern.tiled_out = tiled_gemm_output(ctx, c, kern.gemm);
  kern.gemm_x = c.x_rows() ? ctx.scratch(uint64_t(numel(ctx.max_dims(c.x))) * 4, "linear normalized x rows")
                           : ctx.tensor(c.x);
  kern.family_constants = gemm_constants;
  kern.family_constants.push_back({"HAS_SWIGLU", c.swiglu ? 1.0 : 0.0});
  kern.shape = std::string(" ") + c.layout->name + " " + std::to_string(c.n) + "x" + std::to_string(c.k);
  kern.suffix = std::string(c.has_out1 ? " split" : "") + (c.swiglu ? " +swiglu" : "") + (c.rope ? " +rope" : "") +
                (c.has_norm ? " +norm" : "") + (c.x_dq8 ? " +dq8 x" : "") + (c.has_residual ? " +residual" : "") +
                (c.planar ? " [planar layout]" : "");
  return kern;
}

// One run of the weight's rows (all of them unless the weight is split) and
// its dispatches; a GEMM (or multi-row GEMV) the call lacks is the run's old
// GEMM (one-row GEMV), which the hook then gives workgroups once.
struct LinearRun {
  UniformId u = 0;
  DispatchId gemv = 0, gemv_multi = 0, gemm = 0, family_gemm = 0, large_gemm = 0;
  uint32_t col0 = 0, rows = 0;
};

LinearRun record_run(OpContext& ctx, const LinearCall& c, const LinearKernels& kern, const TensorSegment& seg,
                     bool split_weight) {
  const std::string rows =
      split_weight ? " rows " + std::to_string(seg.first_row) + "+" + std::to_string(seg.rows) : "";
  LinearRun run{ctx.uniform(sizeof(GemmParams)), 0, 0, 0, 0, 0, static_cast<uint32_t>(seg.first_row),
                static_cast<uint32_t>(seg.rows)};
  const gpu::BufferBinding bindings[] = {ctx.tensor(c.x),        {seg.buffer},   ctx.tensor(c.bias),
                                         ctx.tensor(c.out),      ctx.uniform_binding(run.u),
                                         ctx.tensor(c.norm),     ctx.tensor(c.residual),
                                         kern.none1,             kern.none2,
                                         ctx.tensor(c.cos),      ctx.tensor(c.sin)};
  // The GEMMs do not read the RoPE tables (bindings 9, 10): rope_pairs.wgsl
  // rotates after them; their x may be the requantized rows.
  std::array<gpu::BufferBinding, 9> gemm_bindings;
  std::copy(bindings, bindings + 9, gemm_bindings.begin());
  gemm_bindings[0] = kern.gemm_x;
  const std::span<const gpu::BufferBinding> family_bindings(gemm_bindings);
  // The old tiled GEMM's result (binding 3) is SwiGLU's scratch when it has one.
  std::array<gpu::BufferBinding, 9> tiled_bindings = gemm_bindings;
  tiled_bindings[3] = kern.tiled_out;
  const std::span<const gpu::BufferBinding> gemv_bindings(bindings, c.rope ? 11 : 9);
  const GemmPlan& g = kern.gemm;
  const std::string& shape = kern.shape;
  const std::string& suffix = kern.suffix;
  run.gemv = ctx.dispatch(*kern.gemv, gemv_bindings, std::string("linear_ggml gemv") + shape + suffix + rows);
  run.gemv_multi = kern.gemv_multi == nullptr
                       ? run.gemv
                       : ctx.dispatch(*kern.gemv_multi, gemv_bindings,
                                      std::string("linear_ggml gemv x") + std::to_string(kern.multi_rows) + shape +
                                          suffix + rows);
  run.gemm = ctx.dispatch(*kern.tiled, tiled_bindings, std::string("linear_ggml gemm") + suffix + rows);
  run.family_gemm =
      g.family ? ctx.dispatch(gemm_pipeline(ctx, g.choice, "quant/dequant.wgsl", kern.family_constants),
                              family_bindings, std::string(kGemmLabel) + shape + suffix + rows)
               : run.gemm;
  // The large tile, for live shapes that give it enough workgroups (gemm.h).
  run.large_gemm = g.has_large
                       ? ctx.dispatch(gemm_pipeline(ctx, g.large, "quant/dequant.wgsl", kern.family_constants),
                                      family_bindings,
                                      std::string(kGemmLabel) + " " + g.large.tile.name + shape + suffix + rows)
                       : run.gemm;
  return run;
}

// The prefill pass of x_quant or a fused RMSNorm (x_dq8_rows.wgsl: x
// normalized, and requantized with x_quant, into kern.gemm_x, one workgroup
// per row), ahead of the GEMMs that read it. Normalizing once here, not in
// each GEMM workgroup: a GEMM's workgroups along N each read their rows'
// whole x again for the norm (N / 64 times), 6-7 % of Llama prefill on the
// H100 when the GEMM did it (bench/RESULTS.md, session 21).
std::pair<DispatchId, UniformId> record_x_rows(OpContext& ctx, const LinearCall& c, const LinearKernels& kern) {
  const UniformId u = ctx.uniform(sizeof(XRowsParams));
  const auto& pipeline =
      ctx.pipeline("linear/x_dq8_rows.wgsl", "main",
                   {{"WG", kWorkgroup}, {"HAS_NORM", c.has_norm ? 1.0 : 0.0}, {"QUANT", c.x_dq8 ? 1.0 : 0.0}});
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(c.x), ctx.tensor(c.norm), kern.gemm_x, ctx.uniform_binding(u)},
                                    c.x_dq8 ? "linear_ggml requantize x rows" : "linear_ggml normalize x rows");
  return {d, u};
}

// The passes after the old tiled GEMM (dispatches run in recording order):
// SwiGLU of its interleaved columns, RoPE of out and out1 in place. Where the
// op has no such pass its ids are placeholders (the first run's GEMM and
// uniform), never given workgroups.
struct LinearEpilogues {
  DispatchId swiglu_pairs = 0, rope_pairs = 0;
  UniformId swiglu_u = 0, rope_u = 0;
};

LinearEpilogues record_epilogues(OpContext& ctx, const LinearCall& c, const LinearKernels& kern,
                                 const LinearRun& first) {
  LinearEpilogues e{first.gemm, first.gemm, first.u, first.u};
  if (c.swiglu) {
    e.swiglu_u = ctx.uniform(sizeof(PairParams));
    e.swiglu_pairs = ctx.dispatch(ctx.pipeline("linear/swiglu_pairs.wgsl", "main"),
                                  {kern.tiled_out, ctx.tensor(c.out), ctx.uniform_binding(e.swiglu_u)},
                                  "linear_ggml swiglu pairs");
  }
  if (c.rope) {
    e.rope_u = ctx.uniform(sizeof(RopeParams));
    e.rope_pairs = ctx.dispatch(ctx.pipeline("linear/rope_pairs.wgsl", "main"),
                                {ctx.tensor(c.out), ctx.tensor(c.out1), ctx.tensor(c.cos), ctx.tensor(c.sin),
                                 ctx.uniform_binding(e.rope_u)},
                                "linear_ggml rope pairs");
  }
  return e;
}

// The resize hook: the outputs' live shapes, each run's Params, and
// workgroups for the one kernel that fits the live M (the GEMV for decode, one
// GEMM per run for prefill), none for the others. It runs every decode step:
// it allocates nothing beyond the outputs' dims.
struct LinearSteps {
  LinearCall c;
  uint32_t rows_per_group = 0, row_blocks = 1;  // the GEMV's
  uint32_t multi_rows = 1;                      // x rows per workgroup of the multi-row GEMV (1: none)
  // The GEMV takes M <= gemv_rows (Tuning::gemv_batch_rows: a batched decode
  // step's rows, each row's sums exactly a one-row step's, epilogues fused);
  // larger M (prefill) a GEMM.
  uint32_t gemv_rows = 1;
  GemmPlan gemm;
  DispatchId x_rows = 0;  // with LinearCall::x_rows(): record_x_rows'
  UniformId x_rows_u = 0;
  std::vector<LinearRun> runs;
  LinearEpilogues epilogues;

  void operator()(ResizeContext& r) const;

 private:
  static constexpr gpu::WorkgroupCount kNone{0, 1, 1};
  // RoPE outputs keep their [heads, head_dim] split of the width.
  Dims with_width(Dims d, uint32_t width) const;
  void set_output_dims(ResizeContext& r) const;
  void decode(ResizeContext& r, const LinearRun& run, uint32_t m) const;
  void prefill(ResizeContext& r, const LinearRun& run, uint32_t m, uint32_t k) const;
  void run_epilogues(ResizeContext& r, uint32_t m) const;
};

void LinearSteps::operator()(ResizeContext& r) const {
  const Dims& dims = r.dims(c.x);
  const uint32_t k = static_cast<uint32_t>(dims.back());
  const uint32_t m = static_cast<uint32_t>(k == 0 ? 0 : numel(dims) / k);
  set_output_dims(r);
  if (c.x_rows()) {
    r.write_uniform(x_rows_u, XRowsParams{m, k, c.eps, c.x_eps});
    r.set_workgroups(x_rows, m <= gemv_rows ? kNone : r.fold(m));
  }
  for (const LinearRun& run : runs) {
    // A run's rows all go to out (a split weight has no out1, out2: then
    // split1 = split2 = n >= rows), into its columns col0.. of split1.
    r.write_uniform(run.u, GemmParams{m, run.rows, k, c.row_words, c.eps, std::min(c.split1, run.rows),
                                      std::min(c.split2, run.rows), c.head_dim, run.col0, c.split1, c.x_eps});
    if (m <= gemv_rows) {
      decode(r, run, m);
    } else {
      prefill(r, run, m, k);
    }
  }
  run_epilogues(r, m);
}

Dims LinearSteps::with_width(Dims d, uint32_t width) const {
  if (c.rope) {
    d.back() = width / c.head_dim;
    d.push_back(c.head_dim);
  } else {
    d.back() = width;
  }
  return d;
}

void LinearSteps::set_output_dims(ResizeContext& r) const {
  Dims dims = r.dims(c.x);
  r.set_dims(c.out, with_width(dims, c.swiglu ? c.n / 2 : c.split1));
  if (c.has_out1) r.set_dims(c.out1, with_width(dims, c.split2 - c.split1));
  if (c.has_out2) {
    dims.back() = c.n - c.split2;
    r.set_dims(c.out2, dims);
  }
}

// M <= gemv_rows: the GEMV, a workgroup row per x row, or for M > 1 the
// multi-row GEMV where there is one, a workgroup row per multi_rows x rows
// (the same dispatch count as M = 1: the other gets none).
void LinearSteps::decode(ResizeContext& r, const LinearRun& run, uint32_t m) const {
  if (m > 1 && multi_rows > 1) {
    r.set_workgroups(run.gemv, kNone);
    const uint64_t groups = gpu::div_up(run.rows, rows_per_group) * gpu::div_up(m, multi_rows);  // ROW_BLOCKS 1
    r.set_workgroups(run.gemv_multi, r.fold(groups));
  } else {
    if (multi_rows > 1) r.set_workgroups(run.gemv_multi, kNone);
    const uint64_t row_groups = gpu::div_up(gpu::div_up(run.rows, rows_per_group), row_blocks);  // per x row
    r.set_workgroups(run.gemv, r.fold(row_groups * m));
  }
  r.set_workgroups(run.gemm, kNone);
  if (gemm.family) r.set_workgroups(run.family_gemm, kNone);
  if (gemm.has_large) r.set_workgroups(run.large_gemm, kNone);
}

// Larger M: one GEMM: the family's large tile or its own where its grid is
// large enough, else the old tiles.
void LinearSteps::prefill(ResizeContext& r, const LinearRun& run, uint32_t m, uint32_t k) const {
  r.set_workgroups(run.gemv, kNone);
  if (multi_rows > 1) r.set_workgroups(run.gemv_multi, kNone);
  const bool big = gemm.family_takes(m, run.rows);
  r.set_workgroups(run.gemm, big ? kNone : r.fold(gpu::div_up(run.rows, kTileN) * gpu::div_up(m, kTileM)));
  const bool use_large =
      gemm.has_large && big && gemm_use_large(gemm.large.tile, m, run.rows, k, gemm.large_min, gemm.large_min_k);
  if (gemm.family) {
    const bool use_family = big && !use_large;
    r.set_workgroups(run.family_gemm, use_family ? r.fold(gemm_workgroups(gemm.choice.tile, m, run.rows)) : kNone);
  }
  if (gemm.has_large) {
    r.set_workgroups(run.large_gemm, use_large ? r.fold(gemm_workgroups(gemm.large.tile, m, run.rows)) : kNone);
  }
}

// The epilogue passes serve prefill only, after the old tiles (SwiGLU) or
// any GEMM (RoPE); the GEMV applies both itself.
void LinearSteps::run_epilogues(ResizeContext& r, uint32_t m) const {
  const bool decode = m <= gemv_rows;
  if (c.rope) {
    r.write_uniform(epilogues.rope_u, RopeParams{m, c.split1, c.split2 - c.split1, c.head_dim});
    r.set_workgroups(epilogues.rope_pairs,
                     decode ? kNone : r.fold(gpu::div_up(uint64_t(m) * c.split2 / 2, kWorkgroup)));
  }
  if (c.swiglu) {
    const bool big = gemm.family_takes(m, c.n);
    r.write_uniform(epilogues.swiglu_u, PairParams{m * (c.n / 2)});
    r.set_workgroups(epilogues.swiglu_pairs,
                     decode || big ? kNone : r.fold(gpu::div_up(uint64_t(m) * (c.n / 2), kWorkgroup)));
  }
}

void lower_with(OpContext& ctx, const LinearForm& s) {
  LinearSteps steps;
  steps.c = read_call(ctx, s);
  const LinearCall& c = steps.c;
  const gpu::OverrideConstants constants = linear_constants(c, ctx.args().tensor(1));
  const GemvChoice gemv =
      choose_gemv(ctx.tuning(), {c.k, c.n, c.planar, c.swiglu, c.rope, ctx.device().cpu_adapter(), c.x_dq8}, constants);
  steps.rows_per_group = gemv.rows_per_group;
  steps.row_blocks = gemv.row_blocks;
  const LinearKernels kern = choose_kernels(ctx, c, gemv, constants);
  steps.multi_rows = kern.multi_rows;
  steps.gemv_rows = ctx.tuning().gemv_batch_rows;
  steps.gemm = kern.gemm;
  if (c.x_rows()) std::tie(steps.x_rows, steps.x_rows_u) = record_x_rows(ctx, c, kern);
  const std::vector<TensorSegment> segments = weight_runs(ctx, c);
  for (const TensorSegment& seg : segments) steps.runs.push_back(record_run(ctx, c, kern, seg, segments.size() > 1));
  steps.epilogues = record_epilogues(ctx, c, kern, steps.runs.front());
  const ValueId x = c.x;
  ctx.on_resize({x}, std::move(steps));
}

}  // namespace

void register_linear_ggml(OpRegistry& registry) {
  const std::pair<const LinearForm*, const char*> forms[] = {
      {&kLinearPlain, "f32 (GGML-quantized weights)"},
      {&kLinearFused, "f32 (GGML-quantized weights; RMSNorm before, residual after)"},
      {&kLinearSplit, "f32 (GGML-quantized weights; RMSNorm before, split outputs)"},
      {&kLinearSplitRope, "f32 (GGML-quantized weights; RMSNorm before, split outputs, RoPE on Q and K)"},
      {&kLinearSwiglu, "f32 (GGML-quantized weights; RMSNorm before, SwiGLU of gate/up after)"}};
  for (const auto& entry : forms) {
    const LinearForm* form = entry.first;  // a lambda may not capture a structured binding (clang 15)
    const char* dtypes = entry.second;
    OpDef def;
    def.check = [form](const OpArgs& a) { check_linear_ggml(a, *form); };
    def.lower = [form](OpContext& c) { lower_with(c, *form); };
    def.prepare = prepare;
    def.dtypes = dtypes;
    registry.add(std::string(form->name), std::move(def));
  }
}

}  // namespace wgrt::ops
