// sdpa_with_kv_cache.default (q, k, v, k_cache, v_cache, start_pos, seq_len,
// attn_mask, dropout_p, is_causal, scale, out): writes k and v into the caches
// at start_pos, then causal grouped-query attention of q [1, S, H, D] over
// cache positions [0, start_pos + S). One graph serves prefill (S > 1) and
// decode (S = 1): the hook reads the live S from q and start_pos (an Int or a
// SymInt) and rewrites every pass's uniforms and workgroup counts. Attention
// is always causal with the query block at start_pos (Llama's use; attn_mask
// must be Null). A decode step (S = 1) runs sdpa_decode.wgsl instead, where
// the head shape allows (decode_fits): the cache write and the attention in
// one dispatch of (KV head, split of the positions) workgroups, plus a
// combine dispatch once the context is long enough for several splits; the
// three passes and the cache write then get no workgroups.
//
// Prefill (S > 1) runs flash attention (online softmax, no score buffer:
// flash_attention_tiled.wgsl for head dims up to 64, flash_attention.wgsl up
// to 128) when the device has the workgroup memory; the three-pass path (scores, softmax, weighted
// sum through a scratch score matrix) then serves only S = 1, so its scratch
// is one row per head. WGRT_FLASH_ATTENTION=0 keeps the three-pass path for
// every S (A/B and tests).
//
// wgrt.sdpa_with_kv_cache_window: the same arguments and one more, `window`
// (an Int): a query at position p sees only keys at positions > p - window
// (sliding-window layers of Gemma 3; the cache still holds every position).
#include "ops/attention/sdpa.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gpu/device.h"
#include "gpu/workgroups.h"
#include "ops/attention/kv_cache.h"
#include "ops/common/reduce.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

// Mirrors `Params` in sdpa.wgsl.
struct SdpaParams {
  uint32_t seq = 0;
  uint32_t start = 0;
  uint32_t heads = 0;
  uint32_t head_begin = 0;
  uint32_t q_heads = 0;
  uint32_t group = 0;
  uint32_t cache_heads = 0;
  uint32_t dim4 = 0;
  uint32_t row_stride = 0;
  float scale = 0;
  uint32_t window = 0;  // 0: no sliding window
  uint32_t kv_head0 = 0;
};
static_assert(sizeof(SdpaParams) == 48, "must match Params in sdpa.wgsl");

// Mirrors `Params` in sdpa_decode.wgsl.
struct DecodeParams {
  uint32_t start = 0;
  uint32_t cache_heads = 0;
  uint32_t first = 0;
  uint32_t split_len = 0;
  uint32_t splits = 0;
  float scale = 0;
  uint32_t q_heads = 0;
  uint32_t kv_head0 = 0;
};
static_assert(sizeof(DecodeParams) == 32, "must match Params in sdpa_decode.wgsl");

// The shapes sdpa_decode.wgsl handles: up to 8 query heads per KV head, and
// teams of D / 4 lanes (a power of two up to 64) in its 256 invocations.
bool decode_fits(uint32_t group, int64_t head_dim) {
  const int64_t dim4 = head_dim / 4;
  return group >= 1 && group <= 8 && dim4 > 0 && dim4 <= 64 && (dim4 & (dim4 - 1)) == 0;
}

// How the decode kernel splits the attended positions over workgroups: about
// P positions per split (P = 128; WGRT_SDPA_SPLIT for A/B runs), at most
// kDecodeMaxSplits splits and as many as the scratch holds (longer contexts
// take longer splits). Measured on the H200 (bench/RESULTS.md, session 9),
// llama1b tg64 after 2,048 cached tokens: P = 64 872.5 tok/s, 128 917.4, 256
// 887.3, 512 783.4; at tg128 from position 0, 64 and 128 did not differ.
constexpr uint32_t kDecodeMaxSplits = 128;

struct DecodeSplits {
  uint32_t splits, split_len;
};

DecodeSplits decode_splits(uint32_t positions, uint32_t per_split, uint32_t max_splits) {
  const uint64_t want = std::clamp<uint64_t>(gpu::div_up(positions, per_split), 1, max_splits);
  const auto split_len = static_cast<uint32_t>(gpu::div_up(positions, want));
  return {static_cast<uint32_t>(gpu::div_up(positions, split_len)), split_len};  // no empty last split
}

// Mirrors `Params` in flash_io.wgsl.
struct FlashParams {
  uint32_t seq = 0, start = 0, q_heads = 0, group = 0, cache_heads = 0;
  float scale = 0;
  uint32_t window = 0, head0 = 0, heads = 0, pad[3] = {};
};
static_assert(sizeof(FlashParams) == 48, "must match Params in flash_io.wgsl");
constexpr uint32_t kFlashRows = 16, kFlashKeys = 32;  // BQ, BKV in flash_attention.wgsl
constexpr int64_t kFlashMaxHeadDim = 128;             // MAX_SLICE * 4 lanes * 4

// Workgroup memory of flash_attention.wgsl: q rows, one K/V tile, scores.
uint64_t flash_workgroup_bytes(int64_t head_dim) {
  return (kFlashRows * head_dim + kFlashKeys * (head_dim + 4)) * 4 + kFlashRows * kFlashKeys * 4;
}

bool flash_fits(const gpu::Device& device, int64_t head_dim) {
  return head_dim <= kFlashMaxHeadDim &&
         flash_workgroup_bytes(head_dim) <= device.limits().max_compute_workgroup_storage_size;
}

// flash_attention_tiled.wgsl (both products register-tiled; 128 threads per
// 32 query rows): head dims up to 64, and its workgroup memory (Q^T, K^T and
// V tiles, 32 x 32 probabilities, row state).
constexpr uint32_t kTiledRows = 32, kTiledKeys = 32, kTiledThreads = 128;  // BQ, BKV, THREADS there
constexpr int64_t kTiledMaxHeadDim = 64;
uint64_t tiled_workgroup_bytes(int64_t head_dim) {
  // f32 words: Q^T, K^T and V, the probabilities, the score threads' maxima
  // (one per 4 keys and row), the sums' parts, the rows' corrections.
  return (3 * kTiledRows * head_dim + kTiledKeys * kTiledRows + kTiledKeys / 4 * kTiledRows + kTiledThreads +
          kTiledRows) *
         4;
}

// Whether prefill attention runs the tiled kernel: where it fits, unless
// Tuning::flash_kernel Rows asks for flash_attention.wgsl (A/B; Tiled is
// the default). Measured on the H200: bench/RESULTS.md, 2026-12-02 seventh run.
bool flash_tiled(const gpu::Device& device, const Tuning& tuning, int64_t head_dim) {
  if (tuning.flash_kernel == FlashKernel::Rows) return false;
  return head_dim <= kTiledMaxHeadDim &&
         tiled_workgroup_bytes(head_dim) <= device.limits().max_compute_workgroup_storage_size;
}

// Flash attention for every S > 1 by default: on the H200 (bench/RESULTS.md,
// 2026-12-01, shaders without wgpu's runtime checks) it is faster than the
// three passes (pp512: llama1b 11,622 vs 10,868 tok/s, SmolLM2 41,158 vs
// 37,447), and its scratch does not grow with S x context. (With the checks
// the three passes had been faster: SmolLM2 21,400 vs 15,400.)
// LoadOptions::flash_attention (WGRT_FLASH_ATTENTION=1 or 0) forces it on or
// off; off keeps the three passes for every S.
bool flash_wanted(FlashAttention setting) { return setting != FlashAttention::Off; }

enum Arg { kQ, kK, kV, kKCache, kVCache, kStartPos, kSeqLen, kMask, kDropout, kCausal, kScale, kOut, kArgCount };
constexpr size_t kWindow = kArgCount;  // the windowed variant's extra argument

void expect_dims(const OpArgs& args, size_t i, const Dims& want) {
  if (args.tensor(i).max_dims != want) {
    args.fail(i, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(i).max_dims));
  }
}

template <bool kWindowed>
void check(const OpArgs& args) {
  args.expect_count(kWindowed ? kArgCount + 1 : kArgCount);
  if (kWindowed && args.integer(kWindow) < 1) {
    args.fail(kWindow, "window must be at least 1, got " + std::to_string(args.integer(kWindow)));
  }
  for (size_t i : {kQ, kK, kV, kOut}) {
    args.tensor(i, {DType::F32});
    args.expect_rank(i, 4);
  }
  // Caches: f32, or f16 (the opt-in f16 KV cache, read by flash attention and the decode kernel).
  const DType cache_type = args.tensor(kKCache, {DType::F32, DType::F16}).dtype;
  args.tensor(kVCache, {cache_type});
  args.expect_rank(kKCache, 4);
  args.expect_rank(kVCache, 4);
  if (cache_type == DType::F16 && args.tensor(kQ).max_dims[3] > kFlashMaxHeadDim) {
    args.unsupported(kKCache, "an f16 KV cache needs head dim <= " + std::to_string(kFlashMaxHeadDim) + ", got " +
                                  std::to_string(args.tensor(kQ).max_dims[3]));
  }
  const Dims& q = args.tensor(kQ).max_dims;
  const Dims& k = args.tensor(kK).max_dims;
  const Dims& kc = args.tensor(kKCache).max_dims;
  if (q[0] != 1) args.fail(kQ, "only batch 1 is supported, got " + dims_string(q));
  if (q[3] % 4 != 0) args.fail(kQ, "head dim " + std::to_string(q[3]) + " is not a multiple of 4");
  expect_dims(args, kK, {1, q[1], k[2], q[3]});
  if (k[2] == 0 || q[2] % k[2] != 0) {
    args.fail(kK, std::to_string(q[2]) + " query heads are not a multiple of " + std::to_string(k[2]) + " kv heads");
  }
  expect_dims(args, kV, k);
  if (kc[1] < q[1]) args.fail(kKCache, "cache " + dims_string(kc) + " holds fewer positions than S");
  expect_dims(args, kKCache, {1, kc[1], k[2], q[3]});
  expect_dims(args, kVCache, kc);
  expect_dims(args, kOut, q);
  args.integer(kStartPos);
  if (!args.is_null(kSeqLen)) args.integer(kSeqLen);
  if (!args.is_null(kMask)) args.fail(kMask, "attention masks are not supported (causal attention only)");
  if (!args.is_null(kDropout) && args.number(kDropout) != 0.0) args.fail(kDropout, "dropout must be 0");
  if (!args.is_null(kCausal)) args.boolean(kCausal);
  if (!args.is_null(kScale)) args.number(kScale);
}

template <bool kWindowed>
void lower(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const uint32_t window = kWindowed ? static_cast<uint32_t>(std::min<int64_t>(args.integer(kWindow), 0xffffffff)) : 0;
  const ValueId q = ctx.arg(kQ), k = ctx.arg(kK), v = ctx.arg(kV), start_pos = ctx.arg(kStartPos), out = ctx.arg(kOut);
  const Dims qmax = ctx.max_dims(q);
  const uint32_t heads = static_cast<uint32_t>(qmax[2]), kv_heads = static_cast<uint32_t>(ctx.max_dims(k)[2]);
  const int64_t head_dim = qmax[3], max_seq = qmax[1], cache_max = ctx.max_dims(ctx.arg(kKCache))[1];
  const float scale = args.is_null(kScale) ? static_cast<float>(1.0 / std::sqrt(double(head_dim)))
                                           : static_cast<float>(args.number(kScale));

  const CacheWrite cache_write = record_cache_write(ctx, {{k, ctx.arg(kKCache)}, {v, ctx.arg(kVCache)}});

  const bool f16_cache = ctx.tensor_info(ctx.arg(kKCache)).dtype == DType::F16;
  const bool fits = flash_fits(ctx.device(), head_dim);
  if (f16_cache && !fits) {
    throw Error(ErrorCode::NotSupported, "sdpa_with_kv_cache: an f16 KV cache needs flash attention, which needs " +
                                             std::to_string(flash_workgroup_bytes(head_dim)) +
                                             " bytes of workgroup memory; the device has " +
                                             std::to_string(ctx.device().limits().max_compute_workgroup_storage_size));
  }
  // f16 caches: flash attention for every S the decode kernel does not take (the three passes read f32 rows).
  const bool flash = f16_cache || (max_seq > 1 && fits && flash_wanted(ctx.tuning().flash_attention));
  const int64_t pass_seq = flash ? 1 : max_seq;  // the largest S the three passes see
  const uint32_t group = heads / kv_heads;
  const bool has_decode = decode_fits(group, head_dim);
  // Caches above the binding limit come in parts by KV heads (memory_plan.h):
  // every kernel reading them runs once per part, over that part's heads.
  const std::vector<CachePart> parts = cache_parts(ctx, {ctx.arg(kKCache), ctx.arg(kVCache)});
  struct PartDispatch {
    UniformId uniform = 0;
    DispatchId dispatch = 0;
    uint32_t kv_head0 = 0, kv_heads = 0;
  };
  std::vector<PartDispatch> decode;
  DispatchId decode_combine = 0;
  // The splits' partials (D + 4 floats per head each) take no more scratch
  // than one score per head and cached position would.
  const auto max_splits = static_cast<uint32_t>(
      std::clamp<uint64_t>(uint64_t(cache_max) / uint64_t(head_dim + 4), 1, kDecodeMaxSplits));
  // P (Tuning::sdpa_split), read once when the op is lowered (not per decode step).
  const uint32_t split_positions = has_decode ? ctx.tuning().sdpa_split : 0;
  if (has_decode) {
    const auto split_parts =
        ctx.scratch(uint64_t(max_splits) * heads * (head_dim + 4) * sizeof(float), "sdpa decode splits");
    const gpu::OverrideConstants constants = {{"GROUP", group}, {"DIM4", double(head_dim / 4)}};
    const std::string_view reduce = reduce_shader(ctx.device());
    const char* cache = f16_cache ? "attention/cache_f16.wgsl" : "attention/cache_f32.wgsl";
    const auto& pipeline =
        ctx.pipeline({"common/prelude.wgsl", reduce, cache, "attention/sdpa_decode.wgsl"}, "main", constants);
    for (const CachePart& part : parts) {
      PartDispatch d{ctx.uniform(sizeof(DecodeParams)), 0, static_cast<uint32_t>(part.first_head),
                     static_cast<uint32_t>(part.heads)};
      d.dispatch = ctx.dispatch(pipeline,
                                {ctx.uniform_binding(d.uniform), ctx.tensor(q), part.buffers[0], part.buffers[1],
                                 ctx.tensor(k), ctx.tensor(v), split_parts, ctx.tensor(out)},
                                "sdpa decode");
      decode.push_back(d);
    }
    const auto& combine =
        ctx.pipeline({"common/prelude.wgsl", reduce, cache, "attention/sdpa_decode.wgsl"}, "combine", constants);
    // The combine reads only q_heads and splits, alike in every part's uniform.
    decode_combine = ctx.dispatch(combine, {ctx.uniform_binding(decode.front().uniform), split_parts, ctx.tensor(out)},
                                  "sdpa decode combine");
  }

  const uint32_t chunk = sdpa_heads_per_chunk(heads, pass_seq, cache_max,
                                              ctx.device().limits().max_storage_buffer_binding_size);
  gpu::BufferBinding scores{};
  if (!f16_cache) scores = ctx.scratch(uint64_t(chunk) * pass_seq * cache_max * sizeof(float), "sdpa scores");
  const gpu::OverrideConstants wg = {{"WG", kSdpaWorkgroup}};
  const auto& qk = ctx.pipeline("attention/sdpa.wgsl", "scores", wg);
  const auto& softmax = ctx.pipeline("attention/sdpa.wgsl", "softmax", wg);
  const auto& av = ctx.pipeline("attention/sdpa.wgsl", "weighted_sum", wg);
  struct Chunk {
    UniformId uniform;
    DispatchId qk, softmax, av;
    uint32_t head_begin, heads;
    uint32_t kv_head0, kv_heads;  // the cache part read
  };
  std::vector<Chunk> chunks;
  for (const CachePart& part : parts) {
    const auto part_begin = static_cast<uint32_t>(part.first_head) * group;
    const auto part_end = part_begin + static_cast<uint32_t>(part.heads) * group;
    for (uint32_t begin = part_begin; begin < part_end && !f16_cache; begin += chunk) {
      Chunk c;
      c.head_begin = begin;
      c.heads = std::min(chunk, part_end - begin);
      c.kv_head0 = static_cast<uint32_t>(part.first_head);
      c.kv_heads = static_cast<uint32_t>(part.heads);
      c.uniform = ctx.uniform(sizeof(SdpaParams));
      const auto params = ctx.uniform_binding(c.uniform);
      c.qk = ctx.dispatch(qk, {params, ctx.tensor(q), part.buffers[0], scores}, "sdpa scores");
      c.softmax = ctx.dispatch(softmax, {params, scores}, "sdpa softmax");
      c.av = ctx.dispatch(av, {params, scores, part.buffers[1], ctx.tensor(out)}, "sdpa weighted sum");
      chunks.push_back(c);
    }
  }
  std::vector<PartDispatch> flash_parts;
  const bool tiled = flash && flash_tiled(ctx.device(), ctx.tuning(), head_dim);
  const uint32_t flash_rows = tiled ? kTiledRows : kFlashRows;  // query rows per workgroup
  if (flash) {
    const char* cache = f16_cache ? "attention/cache_f16.wgsl" : "attention/cache_f32.wgsl";
    const auto& pipeline =
        tiled ? ctx.pipeline({cache, "attention/flash_io.wgsl", "attention/flash_attention_tiled.wgsl"}, "flash_tiled",
                             {{"D4", double(head_dim / 4)}, {"TILE_LEN", double(head_dim * 8)}})
              : ctx.pipeline({cache, "attention/flash_io.wgsl", "attention/flash_attention.wgsl"}, "flash",
                             {{"D4", double(head_dim / 4)},
                              {"KS", double(head_dim / 4 + 1)},
                              {"Q_LEN", double(kFlashRows * head_dim / 4)},
                              {"KV_LEN", double(kFlashKeys * (head_dim / 4 + 1))}});
    for (const CachePart& part : parts) {
      PartDispatch d{ctx.uniform(sizeof(FlashParams)), 0, static_cast<uint32_t>(part.first_head),
                     static_cast<uint32_t>(part.heads)};
      d.dispatch = ctx.dispatch(pipeline,
                                {ctx.uniform_binding(d.uniform), ctx.tensor(q), part.buffers[0], part.buffers[1],
                                 ctx.tensor(out)},
                                tiled ? "flash attention tiled" : "flash attention");
      flash_parts.push_back(d);
    }
  }

  ctx.on_resize({q, k, v, start_pos}, [=](ResizeContext& r) {
    const Dims& live = r.dims(q);
    const int64_t s = live[1];
    if (r.dims(k)[1] != s || r.dims(v)[1] != s) {
      throw Error(ErrorCode::InvalidArgument, "sdpa_with_kv_cache: live q " + dims_string(live) + ", k " +
                                                  dims_string(r.dims(k)) + " and v " + dims_string(r.dims(v)) +
                                                  " disagree on S");
    }
    const int64_t start = r.integer(start_pos);
    plan_cache_write(r, cache_write, r.dims(k), start, cache_max, "sdpa_with_kv_cache");
    r.set_dims(out, live);
    const uint64_t context = uint64_t(start + s);
    const bool one_step = has_decode && s == 1;
    if (has_decode && !one_step) {
      for (const PartDispatch& d : decode) r.set_workgroups(d.dispatch, gpu::WorkgroupCount{0, 1, 1});
      r.set_workgroups(decode_combine, gpu::WorkgroupCount{0, 1, 1});
    }
    if (one_step) {
      DecodeParams dp;
      dp.start = static_cast<uint32_t>(start);
      dp.first = window > 0 && start + 1 > int64_t(window) ? static_cast<uint32_t>(start + 1 - window) : 0;
      const DecodeSplits split = decode_splits(static_cast<uint32_t>(start) + 1 - dp.first, split_positions, max_splits);
      dp.split_len = split.split_len;
      dp.splits = split.splits;
      dp.scale = scale;
      dp.q_heads = heads;
      for (const PartDispatch& d : decode) {
        dp.cache_heads = d.kv_heads;
        dp.kv_head0 = d.kv_head0;
        r.write_uniform(d.uniform, dp);
        r.set_workgroups(d.dispatch, r.fold(uint64_t(d.kv_heads) * split.splits));
      }
      const uint64_t combine_groups = split.splits > 1 ? gpu::div_up(uint64_t(heads) * (head_dim / 4), 256) : 0;
      r.set_workgroups(decode_combine, gpu::WorkgroupCount{static_cast<uint32_t>(combine_groups), 1, 1});
      // The decode kernel writes the cache itself.
      for (const PartDispatch& d : flash_parts) r.set_workgroups(d.dispatch, gpu::WorkgroupCount{0, 1, 1});
      for (const CacheWrite::Part& part : cache_write.parts) {
        for (DispatchId d : part.dispatches) r.set_workgroups(d, gpu::WorkgroupCount{0, 1, 1});
      }
      for (const Chunk& c : chunks) {
        for (DispatchId d : {c.qk, c.softmax, c.av}) r.set_workgroups(d, gpu::WorkgroupCount{0, 1, 1});
      }
      return;
    }
    const bool use_flash = flash && (s > 1 || f16_cache);  // one_step returned above
    for (const PartDispatch& d : flash_parts) {
      FlashParams p;
      p.seq = static_cast<uint32_t>(s);
      p.start = static_cast<uint32_t>(start);
      p.q_heads = heads;
      p.group = group;
      p.cache_heads = d.kv_heads;
      p.scale = scale;
      p.window = window;
      p.head0 = d.kv_head0 * group;
      p.heads = d.kv_heads * group;
      r.write_uniform(d.uniform, p);
      r.set_workgroups(d.dispatch, use_flash ? r.fold(uint64_t(p.heads) * gpu::div_up(s, flash_rows))
                                             : gpu::WorkgroupCount{0, 1, 1});
    }
    for (const Chunk& c : chunks) {
      SdpaParams p;
      p.seq = static_cast<uint32_t>(s);
      p.start = static_cast<uint32_t>(start);
      p.heads = c.heads;
      p.head_begin = c.head_begin;
      p.q_heads = heads;
      p.group = group;
      p.cache_heads = c.kv_heads;
      p.kv_head0 = c.kv_head0;
      p.dim4 = static_cast<uint32_t>(head_dim / 4);
      p.row_stride = static_cast<uint32_t>(cache_max);
      p.scale = scale;
      p.window = window;
      r.write_uniform(c.uniform, p);
      if (use_flash) {
        for (DispatchId d : {c.qk, c.softmax, c.av}) r.set_workgroups(d, gpu::WorkgroupCount{0, 1, 1});
        continue;
      }
      const uint64_t rows = uint64_t(c.heads) * s;
      r.set_workgroups(c.qk, r.fold(gpu::div_up(rows * context, kSdpaWorkgroup)));
      r.set_workgroups(c.softmax, r.fold(rows));
      r.set_workgroups(c.av, r.fold(gpu::div_up(rows * p.dim4, kSdpaWorkgroup)));
    }
  });
}

}  // namespace

uint32_t sdpa_heads_per_chunk(uint32_t heads, int64_t max_seq, int64_t max_context, uint64_t max_binding_bytes) {
  const uint64_t per_head = uint64_t(max_seq) * max_context * sizeof(float);
  const uint64_t fit = per_head == 0 ? heads : max_binding_bytes / per_head;
  if (fit == 0) {
    throw Error(ErrorCode::NotSupported, "sdpa_with_kv_cache: one head's scores (" + std::to_string(per_head) +
                                             " bytes) exceed the largest storage binding (" +
                                             std::to_string(max_binding_bytes) + ")");
  }
  // Even chunks: as few as fit, then spread the heads evenly over them.
  const uint64_t n = gpu::div_up(heads, std::min<uint64_t>(fit, heads));
  return static_cast<uint32_t>(gpu::div_up(heads, n));
}

void register_sdpa(OpRegistry& registry) {
  for (auto [name, def] : {std::pair{"sdpa_with_kv_cache.default", OpDef{check<false>, lower<false>}},
                           std::pair{"wgrt.sdpa_with_kv_cache_window", OpDef{check<true>, lower<true>}}}) {
    def.parts_args = {{kKCache, kCacheHeadsDim}, {kVCache, kCacheHeadsDim}};
    registry.add(name, std::move(def));
  }
}

}  // namespace wgrt::ops
