// wgrt.linear_ggml (x [..., K] f32, weight u8 [N, row bytes] in a ggml block
// format laid out by quant_layout.h, ggml type id, bias [N] or Null, out
// [..., N]): the linear layers of GGUF models with weights as stored.
//
// wgrt.linear_ggml_fused (x, weight, type, bias or Null, norm weight [K] or
// Null, eps, residual [..., N] or Null, out): the same with an RMSNorm of x
// (by norm weight, eps) before it and a residual added after it; made by the
// fusion pass (ops/passes/fuse_linear.h) from rms_norm -> linear_ggml ->
// add, never by importers.
//
// wgrt.linear_ggml_split (x, weight, type, bias or Null, norm weight or Null,
// eps, out0, out1, out2 or Null): linears that share x and prologue merged
// by the fusion pass into one matrix (weight rows and bias concatenated at
// load); output i takes its block of columns ([..., N_i] each).
//
// wgrt.linear_ggml_swiglu (x, weight, type, bias or Null, norm weight or
// Null, eps, out [..., N / 2]): gate and up projections merged by the fusion
// pass with their rows interleaved (row 2i gate i, row 2i + 1 up i; bias
// likewise), out = silu(gate) * up. The GEMV applies it in its epilogue; for
// prefill the GEMM writes the interleaved columns to scratch and
// swiglu_pairs.wgsl combines them.
//
// wgrt.linear_ggml_split_rope (x, weight, type, bias or Null, norm weight or
// Null, eps, cos [S, D / 2], sin [S, D / 2], q out [..., H, D], k out [..., Hk,
// D], v out [..., Nv] or Null): a split linear (Q, K, V) whose query and key
// outputs get RoPE (adjacent pairs, as et_vk.apply_rotary_emb) by the cos/sin
// rows of x's positions: in the GEMV's epilogue for decode, by
// rope_pairs.wgsl in place after the GEMM for prefill. Made by the fusion pass.
//
// Dispatches recorded: the GEMV of the quantized family for decode (gemv.wgsl,
// M = 1) and two GEMMs for prefill: the GEMM family of linear/gemm.h (its
// tile, the graph's matmul precision; with the same RMSNorm prologue,
// residual epilogue and split outputs) and linear.wgsl's 32 x 64 f32 tiles,
// which serve where the family would have fewer than
// gemm_family_min_workgroups() workgroups (small N or M: too few to fill a
// large GPU; SmolLM2's matrices at 512 rows), where the device lacks its
// workgroup memory, and while the family is not the default (Auto precision).
// The hook gives the one that fits the live shape its workgroups and the
// others none.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/linear/gemm.h"
#include "ops/quant/linear_forms.h"
#include "ops/quant/weight_prep.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;
constexpr uint32_t kTileM = 32, kTileN = 64;  // TILE_M, TILE_N in linear.wgsl

// Threads per weight row: about four 32-element units each (loads of several
// units in flight per thread), 8 to 32, a power of two. (64 lanes measured
// 6% slower than 32 on the H200 for K = 2048 with the previous kernel,
// bench/RESULTS.md, so 32 is the cap.)
uint32_t lanes_for(uint32_t k) {
  const uint32_t units = k / 32;
  return units >= 128 ? 32 : units >= 64 ? 16 : 8;
}

// The same for gemv_planar.wgsl (4 blocks per lane staged at a time, at most
// 32 lanes), by the matrix's rows n as measured on the H200
// (bench/RESULTS.md, issue 13 variants): few rows (n <= 2048) get 32 lanes,
// so 8 rows per workgroup and more workgroups in flight (o, down: -10 %);
// many rows of short K (n >= 8192, K <= 2048) get 8, so 32 rows share one
// staging of x (head, gate/up: -15 %); otherwise 8 to 32 by K.
// Tuning::gemv_lanes (8, 16 or 32) overrides it for A/B runs.
uint32_t planar_lanes_for(const Tuning& tuning, uint32_t k, uint32_t n) {
  if (tuning.gemv_lanes != 0) return tuning.gemv_lanes;
  const uint32_t units = k / 32;
  if (n <= 2048) return 32;
  if (n >= 8192 && units <= 64) return 8;
  return units >= 128 ? 32 : units >= 48 ? 16 : 8;
}

// Row blocks per workgroup for the planar GEMVs (ROW_BLOCKS): for matrices
// of at least 2048 row groups (output heads) whose whole x row fits one
// staging (K <= 4096) and that have no paired-row epilogue, 4 (f32 x) or 8
// (int8 x), else 1. Measured on the H200 (bench/RESULTS.md): llama1b's head
// with f32 x 121.3 -> 110.6 us at 4 (2 blocks 109.1, 8 111.4; 2026-12-01);
// with int8 x (session 9) 84.1 -> 68.5 / 65.0 / 61.4 us at 2 / 4 / 8 (each
// workgroup's quantization of x then serves 8 x 32 rows), tg128 +2.0 % at
// 4. On matrices of 2048 rows or fewer more blocks were slower (fewer
// workgroups: 2048x2048 8.8 -> 10.9 us at 2); SmolLM2's head (1,536 row
// groups) gained nothing consistent (29.2 -> 30.9 / 27.6 / 34.5).
// Tuning::gemv_row_blocks (1 to 8) overrides it where the kernel allows (A/B).
uint32_t planar_row_blocks(const Tuning& tuning, uint32_t k, uint64_t row_groups, bool paired_rows, bool int8_x) {
  constexpr uint32_t kMaxUnits = 128;  // CHUNK_UNITS in gemv_planar.wgsl, XQ_UNITS in gemv_planar_q8.wgsl
  if (k / 32 > kMaxUnits || paired_rows) return 1;
  if (tuning.gemv_row_blocks != 0) return tuning.gemv_row_blocks;
  return row_groups >= 2048 ? (int8_x ? 8 : 4) : 1;
}

// How many int8 roundings of x the planar GEMV multiplies the weights with
// (gemv_planar_q8.wgsl's XQ_LEVELS: packed integer dot products), or 0 for
// the weights decoded to f32 (gemv_planar.wgsl). By default two for
// matrices of at least 8,192 rows, where the f32 kernel's nibble decoding
// bounds it; one rounding alone moved SmolLM2's logits by 0.2
// (tests/e2e/test_smollm2_reference.py allows 1e-3), the second's error is
// 254 times smaller. Measured on the H200 (bench/RESULTS.md, 2026-12-02,
// profiled us, f32 / one / two roundings): llama1b gate/up 23.7 / 15.4 /
// 17.6, head 110.6 / 74.6 / 83.7, QKV (3,072 rows) 12.8 / 11.5 / 13.6,
// 2048x2048 8.7 / 9.1 / 10.2; SmolLM2's head 33.5 / 24.8 / 29.6, its gate/up
// (3,072 x 576) 9.8 / 9.5 / 10.7. Below 8,192 rows each workgroup's
// quantization of x costs more than two roundings save.
// Tuning::gemv_activation F32, Q8 (one rounding) or Q8x2 forces one for every matrix (A/B).
uint32_t gemv_int8_levels(const Tuning& tuning, uint32_t n) {
  constexpr uint32_t kMinRows = 8192;
  switch (tuning.gemv_activation) {
    case GemvActivation::F32: return 0;
    case GemvActivation::Q8: return 1;
    case GemvActivation::Q8x2: return 2;
    case GemvActivation::Auto: break;
  }
  return n >= kMinRows ? 2 : 0;
}


struct RopeParams {
  uint32_t m = 0, q_width = 0, k_width = 0, head_dim = 0;
};

// An output's width and its dims with the width replaced by n; RoPE outputs
// [..., heads, head_dim] count heads * head_dim.
std::pair<int64_t, Dims> output_width(const LinearForm& s, size_t slot, const Dims& dims, int64_t n) {
  Dims lead = dims;
  if (s.cos != kNoArg && slot != s.out2 && lead.size() >= 2) {
    const int64_t width = lead[lead.size() - 2] * lead.back();
    lead.pop_back();
    lead.back() = n;
    return {width, lead};
  }
  const int64_t width = lead.back();
  lead.back() = n;
  return {width, lead};
}

struct PairParams {
  uint32_t count = 0, pad0 = 0, pad1 = 0, pad2 = 0;
};

bool present(const OpArgs& args, size_t slot) { return slot != kNoArg && !args.is_null(slot); }

void check_with(const OpArgs& args, const LinearForm& s) {
  args.expect_count(s.arg_count());
  const Tensor& x = args.tensor(0, {DType::F32});
  args.expect_rank_at_least(0, 1);
  const Tensor& w = args.tensor(1, {DType::U8});
  if (w.max_dims.size() != 3) args.expect_rank(1, 2);  // rank 3: the planar layout
  const int64_t type = args.integer(2);
  const QuantLayout* layout = find_quant_layout(static_cast<uint32_t>(type));
  if (layout == nullptr) args.unsupported(2, "ggml type " + std::to_string(type) + " has no GPU kernel");
  const int64_t k = x.max_dims.back();
  if (k % layout->block_elems != 0 || k % 32 != 0) {
    args.fail(0, "last dim " + std::to_string(k) + " is not a whole number of " + std::to_string(layout->block_elems) +
                     "-element blocks");
  }
  if (!ggml_rows_fit(*layout, w, k)) {
    if (is_planar_weight(w)) {
      args.fail(1, "expected planar-layout rows [" + std::to_string(planar_row_bytes(layout->ggml_type, k) / 16) +
                       ", 16] for K = " + std::to_string(k) + " and ggml type " + std::to_string(type) + ", got " +
                       dims_string(w.max_dims));
    }
    args.fail(1, "expected rows of " + std::to_string(gpu_row_bytes(*layout, k)) + " bytes for K = " +
                     std::to_string(k) + ", got " + std::to_string(w.max_dims[1]));
  }
  const int64_t n = w.max_dims[0];
  if (present(args, s.bias)) {
    const Tensor& b = args.tensor(s.bias, {DType::F32});
    if (b.max_dims != Dims{n}) args.fail(s.bias, "expected bias shape [" + std::to_string(n) + "], got " + dims_string(b.max_dims));
  }
  if (present(args, s.norm)) {
    const Tensor& g = args.tensor(s.norm, {DType::F32});
    if (numel(g.max_dims) != k) args.fail(s.norm, "expected " + std::to_string(k) + " norm weights, got " + dims_string(g.max_dims));
    args.number(s.eps);
  }
  Dims want = x.max_dims;
  want.back() = n;
  if (s.swiglu) {
    if (n % 2 != 0) args.fail(1, "expected an even number of interleaved gate/up rows, got " + std::to_string(n));
    want.back() = n / 2;
  }
  if (s.out1 == kNoArg) {
    const Tensor& out = args.tensor(s.out, {DType::F32});
    if (out.max_dims != want) args.fail(s.out, "expected shape " + dims_string(want) + ", got " + dims_string(out.max_dims));
  } else {  // the outputs' widths add up to N; each has x's leading dims
    int64_t total = 0;
    for (size_t i : {s.out, s.out1, s.out2}) {
      if (i == s.out2 && args.is_null(i)) continue;
      const Tensor& o = args.tensor(i, {DType::F32});
      const auto [width, lead] = output_width(s, i, o.max_dims, n);
      if (lead != want) args.fail(i, "expected shape " + dims_string(x.max_dims) + " but the last dim, got " + dims_string(o.max_dims));
      total += width;
    }
    if (total != n) args.fail(s.out, "output widths add up to " + std::to_string(total) + ", the weight has " + std::to_string(n) + " rows");
  }
  if (s.cos != kNoArg) {
    const int64_t head_dim = args.tensor(s.out).max_dims.back();
    if (head_dim % 2 != 0 || args.tensor(s.out1).max_dims.back() != head_dim) {
      args.fail(s.out1, "expected query and key heads of one even size, got " + dims_string(args.tensor(s.out).max_dims) +
                            " and " + dims_string(args.tensor(s.out1).max_dims));
    }
    const int64_t rows = numel(x.max_dims) / std::max<int64_t>(1, k);
    for (size_t i : {s.cos, s.sin}) {
      const Tensor& t = args.tensor(i, {DType::F32});
      if (numel(t.max_dims) != rows * head_dim / 2) {
        args.fail(i, "expected " + std::to_string(rows) + " x " + std::to_string(head_dim / 2) + " RoPE values, got " +
                         dims_string(t.max_dims));
      }
    }
  }
  if (present(args, s.residual)) {
    const Tensor& r = args.tensor(s.residual, {DType::F32});
    if (r.max_dims != want) args.fail(s.residual, "expected shape " + dims_string(want) + ", got " + dims_string(r.max_dims));
  }
}

void prepare(ConstantPrep& prep) {
  prepare_ggml_weight(prep, 1, 2, prep.args().tensor(0).max_dims.back());
}

void lower_with(OpContext& ctx, const LinearForm& s) {
  const OpArgs& args = ctx.args();
  const ValueId x = ctx.arg(0), w = ctx.arg(1), out = ctx.arg(s.out);
  const bool has_out1 = s.out1 != kNoArg, has_out2 = has_out1 && !args.is_null(s.out2);
  const bool has_bias = present(args, s.bias), has_norm = present(args, s.norm);
  const bool has_residual = present(args, s.residual);
  // Any buffer fills an unused binding.
  const ValueId bias = has_bias ? ctx.arg(s.bias) : x;
  const ValueId norm = has_norm ? ctx.arg(s.norm) : x;
  const ValueId residual = has_residual ? ctx.arg(s.residual) : x;
  const float eps = has_norm ? static_cast<float>(args.number(s.eps)) : 0.0f;
  const QuantLayout& layout = *find_quant_layout(static_cast<uint32_t>(args.integer(2)));
  const uint32_t n = static_cast<uint32_t>(ctx.max_dims(w)[0]);
  const ValueId out1 = has_out1 ? ctx.arg(s.out1) : out, out2 = has_out2 ? ctx.arg(s.out2) : out;
  const bool rope = s.cos != kNoArg;
  const uint32_t width0 = static_cast<uint32_t>(output_width(s, s.out, ctx.max_dims(out), n).first);
  const uint32_t width1 = has_out1 ? static_cast<uint32_t>(output_width(s, s.out1, ctx.max_dims(out1), n).first) : 0;
  const uint32_t split1 = has_out1 ? width0 : n;
  const uint32_t split2 = has_out2 ? split1 + width1 : n;
  const uint32_t head_dim = rope ? static_cast<uint32_t>(ctx.max_dims(out).back()) : 0;
  const ValueId cos = rope ? ctx.arg(s.cos) : x, sin = rope ? ctx.arg(s.sin) : x;
  const Tensor& wt = args.tensor(1);
  const bool planar = is_planar_weight(wt);
  const uint32_t row_words = weight_row_words(wt);
  const uint32_t k = static_cast<uint32_t>(ctx.max_dims(x).back());
  const Tuning& tuning = ctx.tuning();
  const uint32_t lanes = planar ? planar_lanes_for(tuning, k, n) : lanes_for(k);
  const uint32_t rows_per_group = kWorkgroup / lanes;

  gpu::OverrideConstants constants = weight_decode_constants(layout, wt, k);
  constants.insert(constants.end(), {{"HAS_BIAS", has_bias ? 1.0 : 0.0},
                                     {"HAS_NORM", has_norm ? 1.0 : 0.0},
                                     {"HAS_RESIDUAL", has_residual ? 1.0 : 0.0}});
  gpu::OverrideConstants gemv_constants = constants;
  // gemv_planar.wgsl decodes by itself (no dequant.wgsl, so no ROW_UNITS).
  if (planar) std::erase_if(gemv_constants, [](const auto& c) { return c.first == "ROW_UNITS"; });
  gemv_constants.insert(gemv_constants.end(),
                        {{"LANES", lanes},
                         {"ROWS", rows_per_group},
                         {"HAS_SWIGLU", s.swiglu ? 1.0 : 0.0},
                         {"HAS_ROPE", rope ? 1.0 : 0.0}});
  const uint32_t xq_levels = planar ? gemv_int8_levels(tuning, n) : 0;
  const bool q8 = xq_levels > 0;
  if (q8) gemv_constants.push_back({"XQ_LEVELS", double(xq_levels)});
  const uint32_t row_blocks =
      planar ? planar_row_blocks(tuning, k, gpu::div_up(n, rows_per_group), s.swiglu || rope, q8) : 1;
  // Blocks each lane loads together (UPL), and a timing probe that removes
  // one cost (gemv_planar_weights.wgsl's PROBE: wrong results; A/B only).
  if (planar) gemv_constants.push_back({"UPL", double(tuning.gemv_blocks_per_lane)});
  if (const uint32_t probe = planar ? uint32_t(tuning.gemv_probe) : 0; probe != 0) {
    gemv_constants.push_back({"PROBE", double(probe)});
  }
  if (row_blocks > 1) gemv_constants.push_back({"ROW_BLOCKS", double(row_blocks)});
  // The RoPE GEMV alone binds the tables (10 storage buffers); the others
  // stay within WebGPU's default 8 (quant/gemv_rope_none.wgsl).
  const gpu::ShaderSlot rope_slot = {"rope", rope ? "rope" : "rope_none"};
  const char* gemv_shader =
      !planar ? "quant/gemv.wgsl" : q8 ? "quant/gemv_planar_q8.wgsl" : "quant/gemv_planar.wgsl";
  const auto& gemv_pipeline = ctx.pipeline(gemv_shader, "main", gemv_constants, {rope_slot});
  const auto& tiled_pipeline =
      ctx.pipeline("quant/linear.wgsl", "main_tiled", constants);
  // Unused output bindings get a scratch word: the same buffer bound twice as
  // read_write would alias.
  const gpu::BufferBinding none1 = has_out1 ? ctx.tensor(out1) : ctx.scratch(4, "linear unused output");
  const gpu::BufferBinding none2 = has_out2 ? ctx.tensor(out2) : ctx.scratch(4, "linear unused output");
  // The family's tiles where their grid is large enough (gemm.h), else the
  // old tiled GEMM (linear.wgsl).
  GemmChoice choice, large;
  const bool family = gemm_choose(ctx.device(), ctx.tuning(), choice);
  // Below this many family workgroups the old tiles: 0 by default (the
  // family measured faster at every size on the H200, also for SmolLM2's
  // 72-workgroup matrices).
  const uint64_t min_workgroups = ctx.tuning().gemm_min_workgroups;
  // SwiGLU: the GEMM family stores silu(gate) * up itself (gemm.wgsl's
  // store4); the old tiled GEMM writes the interleaved gate/up columns to
  // scratch ([M, N]), which swiglu_pairs.wgsl turns into out. The scratch
  // holds only the rows the old GEMM can get (none for llama1b's gate/up,
  // whose 256 column tiles always fill the family's grid: 32 MiB less at
  // 512-token chunks).
  const uint32_t max_m = static_cast<uint32_t>(numel(ctx.max_dims(x)) / std::max<int64_t>(1, k));
  uint32_t old_rows = max_m;
  if (family) {
    old_rows = 0;
    while (old_rows < max_m && gemm_workgroups(choice.tile, old_rows + 1, n) < min_workgroups) ++old_rows;
  }
  const gpu::BufferBinding gemm_out =
      s.swiglu ? ctx.scratch(uint64_t(std::max(old_rows, 1u)) * n * 4, "linear swiglu gate/up") : ctx.tensor(out);
  // A weight above the binding limit comes in runs of rows (memory_plan.h):
  // each run gets its own GEMV and GEMMs, writing its columns of out. Only
  // the plain and norm/residual forms split; the fusion pass merges no
  // weights past the limit, so the others never meet one.
  const std::vector<TensorSegment> segments = ctx.segments(w);
  const bool split_weight = segments.size() > 1;
  if (split_weight && (has_out1 || s.swiglu || rope)) {
    throw Error(ErrorCode::NotSupported, "its weight (" + std::to_string(n) + " rows) is above the device's binding "
                                         "limit, which only the plain and norm/residual linears can read in parts");
  }
  // The profile groups by label: format and shape let it tell the matrices apart (bytes per token).
  const std::string shape = std::string(" ") + layout.name + " " + std::to_string(n) + "x" + std::to_string(k);
  gpu::OverrideConstants family_constants = constants;
  family_constants.push_back({"HAS_SWIGLU", s.swiglu ? 1.0 : 0.0});
  const std::string suffix = std::string(has_out1 ? " split" : "") + (s.swiglu ? " +swiglu" : "") + (rope ? " +rope" : "") +
                             (has_norm ? " +norm" : "") +
                             (has_residual ? " +residual" : "") + (planar ? " [planar layout]" : "");
  const bool has_large = family && gemm_choose_large(ctx.device(), ctx.tuning(), choice, large);
  // The family has the same bindings, Params (GemmParams) and optional parts.
  struct Part {
    UniformId u;
    DispatchId gemv, gemm, family_gemm, large_gemm;
    uint32_t col0, rows;
  };
  std::vector<Part> parts;
  for (const TensorSegment& seg : segments) {
    const std::string rows = split_weight ? " rows " + std::to_string(seg.first_row) + "+" + std::to_string(seg.rows) : "";
    Part part{ctx.uniform(sizeof(GemmParams)), 0, 0, 0, 0, static_cast<uint32_t>(seg.first_row),
              static_cast<uint32_t>(seg.rows)};
    const gpu::BufferBinding bindings[] = {ctx.tensor(x),          {seg.buffer},     ctx.tensor(bias),     ctx.tensor(out),
                                           ctx.uniform_binding(part.u), ctx.tensor(norm), ctx.tensor(residual), none1,
                                           none2,                  ctx.tensor(cos),  ctx.tensor(sin)};
    // The GEMMs do not read the RoPE tables (bindings 9, 10): rope_pairs.wgsl rotates after them.
    const std::span<const gpu::BufferBinding> family_bindings(bindings, 9);
    // The old tiled GEMM's result (binding 3) is SwiGLU's scratch when it has one.
    std::array<gpu::BufferBinding, 9> tiled_bindings;
    std::copy(family_bindings.begin(), family_bindings.end(), tiled_bindings.begin());
    tiled_bindings[3] = gemm_out;
    const std::span<const gpu::BufferBinding> gemv_bindings(bindings, rope ? 11 : 9);
    part.gemv = ctx.dispatch(gemv_pipeline, gemv_bindings, std::string("linear_ggml gemv") + shape + suffix + rows);
    part.gemm = ctx.dispatch(tiled_pipeline, tiled_bindings, std::string("linear_ggml gemm") + suffix + rows);
    part.family_gemm =
        family ? ctx.dispatch(gemm_pipeline(ctx, choice, "quant/dequant.wgsl", family_constants), family_bindings,
                              std::string(kGemmLabel) + shape + suffix + rows)
               : part.gemm;
    // The large tile, for live shapes that give it enough workgroups (gemm.h).
    part.large_gemm =
        has_large ? ctx.dispatch(gemm_pipeline(ctx, large, "quant/dequant.wgsl", family_constants), family_bindings,
                                 std::string(kGemmLabel) + " " + large.tile.name + shape + suffix + rows)
                  : part.gemm;
    parts.push_back(part);
  }
  // Placeholders where an op has no pairs or RoPE pass (never given workgroups).
  const DispatchId gemm = parts.front().gemm;
  const UniformId u = parts.front().u;
  const uint64_t large_min = ctx.tuning().gemm_large_min_workgroups, large_min_k = ctx.tuning().gemm_large_min_k;
  // After the old tiled GEMM (dispatches run in recording order).
  DispatchId pairs = gemm;
  const UniformId pair_u = s.swiglu ? ctx.uniform(sizeof(PairParams)) : u;
  if (s.swiglu) {
    pairs = ctx.dispatch(ctx.pipeline("quant/swiglu_pairs.wgsl", "main"),
                         {gemm_out, ctx.tensor(out), ctx.uniform_binding(pair_u)}, "linear_ggml swiglu pairs");
  }
  DispatchId rope_pairs = gemm;
  const UniformId rope_u = rope ? ctx.uniform(sizeof(RopeParams)) : u;
  if (rope) {
    rope_pairs = ctx.dispatch(ctx.pipeline("quant/rope_pairs.wgsl", "main"),
                              {ctx.tensor(out), ctx.tensor(out1), ctx.tensor(cos), ctx.tensor(sin),
                               ctx.uniform_binding(rope_u)},
                              "linear_ggml rope pairs");
  }
  ctx.on_resize({x}, [=](ResizeContext& r) {
    Dims dims = r.dims(x);
    const uint32_t k = static_cast<uint32_t>(dims.back());
    const uint32_t m = static_cast<uint32_t>(k == 0 ? 0 : numel(dims) / k);
    // RoPE outputs keep their [heads, head_dim] split of the width.
    auto with_width = [&](Dims d, uint32_t width) {
      if (rope) {
        d.back() = width / head_dim;
        d.push_back(head_dim);
      } else {
        d.back() = width;
      }
      return d;
    };
    r.set_dims(out, with_width(dims, s.swiglu ? n / 2 : split1));
    if (has_out1) r.set_dims(out1, with_width(dims, split2 - split1));
    if (has_out2) {
      dims.back() = n - split2;
      r.set_dims(out2, dims);
    }
    const gpu::WorkgroupCount none{0, 1, 1};
    const bool decode = m <= 1;
    for (const Part& p : parts) {
      // A run's rows all go to out (a split weight has no out1, out2: then
      // split1 = split2 = n >= rows), into its columns col0.. of split1.
      const uint32_t rows = p.rows;
      r.write_uniform(p.u, GemmParams{m, rows, k, row_words, eps, std::min(split1, rows), std::min(split2, rows),
                                      head_dim, p.col0, split1});
      const uint64_t row_groups = gpu::div_up(gpu::div_up(rows, rows_per_group), row_blocks);  // workgroups per x row
      r.set_workgroups(p.gemv, decode ? r.fold(row_groups * m) : gpu::WorkgroupCount{0, 1, 1});
      const bool big = family && gemm_workgroups(choice.tile, m, rows) >= min_workgroups;
      r.set_workgroups(p.gemm, decode || big ? none : r.fold(gpu::div_up(rows, kTileN) * gpu::div_up(m, kTileM)));
      const bool use_large =
          has_large && !decode && big && gemm_use_large(large.tile, m, rows, k, large_min, large_min_k);
      if (family) {
        r.set_workgroups(p.family_gemm,
                         !decode && big && !use_large ? r.fold(gemm_workgroups(choice.tile, m, rows)) : none);
      }
      if (has_large) r.set_workgroups(p.large_gemm, use_large ? r.fold(gemm_workgroups(large.tile, m, rows)) : none);
    }
    const bool big = family && gemm_workgroups(choice.tile, m, n) >= min_workgroups;
    if (rope) {
      r.write_uniform(rope_u, RopeParams{m, split1, split2 - split1, head_dim});
      r.set_workgroups(rope_pairs, decode ? none : r.fold(gpu::div_up(uint64_t(m) * split2 / 2, kWorkgroup)));
    }
    if (s.swiglu) {
      r.write_uniform(pair_u, PairParams{m * (n / 2)});
      r.set_workgroups(pairs, decode || big ? none : r.fold(gpu::div_up(uint64_t(m) * (n / 2), kWorkgroup)));
    }
  });
}

}  // namespace

void register_linear_ggml(OpRegistry& registry) {
  const std::pair<const LinearForm*, const char*> forms[] = {
      {&kLinearPlain, "f32 (GGML-quantized weights)"},
      {&kLinearFused, "f32 (GGML-quantized weights; RMSNorm before, residual after)"},
      {&kLinearSplit, "f32 (GGML-quantized weights; RMSNorm before, split outputs)"},
      {&kLinearSplitRope, "f32 (GGML-quantized weights; RMSNorm before, split outputs, RoPE on Q and K)"},
      {&kLinearSwiglu, "f32 (GGML-quantized weights; RMSNorm before, SwiGLU of gate/up after)"}};
  for (const auto& [form, dtypes] : forms) {
    OpDef def;
    def.check = [form](const OpArgs& a) { check_with(a, *form); };
    def.lower = [form](OpContext& c) { lower_with(c, *form); };
    def.prepare = prepare;
    def.dtypes = dtypes;
    registry.add(std::string(form->name), std::move(def));
  }
}

}  // namespace wgrt::ops
