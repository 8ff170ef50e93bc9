// sdpa_with_kv_cache.default (q, k, v, k_cache, v_cache, start_pos, seq_len,
// attn_mask, dropout_p, is_causal, scale, out): writes k and v into the caches
// at start_pos, then causal grouped-query attention of q [1, S, H, D] over
// cache positions [0, start_pos + S). One graph serves prefill (S > 1) and
// decode (S = 1): the hook reads the live S from q and start_pos (an Int or a
// SymInt) and rewrites every pass's uniforms and workgroup counts. Attention
// is always causal with the query block at start_pos (Llama's use; attn_mask
// must be Null). A decode step (S = 1) runs sdpa_decode.wgsl instead, where
// the head shape allows (DecodeAttention::fits): the cache write and the attention in
// one dispatch of (KV head, split of the positions) workgroups, plus a
// combine dispatch once the context is long enough for several splits; the
// three passes and the cache write then get no workgroups.
//
// Prefill (S > 1) runs flash attention (online softmax, no score buffer)
// when the device has the workgroup memory; the three-pass path (scores,
// softmax, weighted sum through a scratch score matrix) then serves only
// S = 1, so its scratch is one row per head. Tuning::flash_attention Off
// keeps the three-pass path for every S (A/B and tests). The paths are
// attention_paths.h; KV caches above the binding limit come in parts by
// heads (kv_cache.h), and every path runs once per part.
//
// wgrt.sdpa_with_kv_cache_window: the same arguments and one more, `window`
// (an Int): a query at position p sees only keys at positions > p - window
// (sliding-window layers of Gemma 3; the cache still holds every position).
#include "ops/attention/sdpa.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "gpu/device.h"
#include "ops/attention/attention_paths.h"
#include "ops/attention/kv_cache.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

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
  const int64_t head_dim = args.tensor(kQ).max_dims[3];
  if (cache_type == DType::F16 && args.device() != nullptr && head_dim <= FlashAttentionPath::kMaxHeadDim &&
      !FlashAttentionPath::fits(*args.device(), head_dim)) {
    args.unsupported(kKCache, "an f16 KV cache needs flash attention, which needs " +
                                  std::to_string(FlashAttentionPath::workgroup_bytes(head_dim)) +
                                  " bytes of workgroup memory; the device has " +
                                  std::to_string(args.device()->limits().max_compute_workgroup_storage_size));
  }
  if (cache_type == DType::F16 && args.tensor(kQ).max_dims[3] > FlashAttentionPath::kMaxHeadDim) {
    args.unsupported(kKCache, "an f16 KV cache needs head dim <= " + std::to_string(FlashAttentionPath::kMaxHeadDim) + ", got " +
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
  const ValueId q = ctx.arg(kQ), k = ctx.arg(kK), v = ctx.arg(kV), start_pos = ctx.arg(kStartPos), out = ctx.arg(kOut);
  const ValueId k_cache = ctx.arg(kKCache), v_cache = ctx.arg(kVCache);
  const Dims qmax = ctx.max_dims(q);
  AttentionShape shape;
  shape.heads = static_cast<uint32_t>(qmax[2]);
  shape.kv_heads = static_cast<uint32_t>(ctx.max_dims(k)[2]);
  shape.group = shape.heads / shape.kv_heads;
  shape.head_dim = qmax[3];
  shape.max_seq = qmax[1];
  shape.cache_max = ctx.max_dims(k_cache)[1];
  shape.scale = args.is_null(kScale) ? static_cast<float>(1.0 / std::sqrt(double(shape.head_dim)))
                                     : static_cast<float>(args.number(kScale));
  shape.window = kWindowed ? static_cast<uint32_t>(std::min<int64_t>(args.integer(kWindow), 0xffffffff)) : 0;
  shape.f16_cache = ctx.tensor_info(k_cache).dtype == DType::F16;

  const bool fits = FlashAttentionPath::fits(ctx.device(), shape.head_dim);
  // (check() refused an f16 cache where flash attention does not fit.)
  // f16 caches: flash attention for every S the decode kernel does not take (the three passes read f32 rows).
  const bool flash = shape.f16_cache || (shape.max_seq > 1 && fits && flash_wanted(ctx.tuning().flash_attention));
  const AttentionIo io{ctx.tensor(q), ctx.tensor(k), ctx.tensor(v), ctx.tensor(out)};
  const std::vector<CachePart> parts = cache_parts(ctx, {k_cache, v_cache});
  const CacheWrite cache_write = record_cache_write(ctx, {{k, k_cache}, {v, v_cache}});
  const DecodeAttention decode = DecodeAttention::record(ctx, shape, io, parts);
  const std::optional<FlashAttentionPath> flash_path =
      flash ? std::optional(FlashAttentionPath::record(ctx, shape, io, parts)) : std::nullopt;
  const std::optional<ThreePassAttention> passes =
      shape.f16_cache ? std::nullopt
                      : std::optional(ThreePassAttention::record(ctx, shape, io, parts, flash ? 1 : shape.max_seq));

  ctx.on_resize({q, k, v, start_pos}, [=](ResizeContext& r) {
    const Dims& live = r.dims(q);
    const AttentionStep step{r.integer(start_pos), live[1]};
    if (r.dims(k)[1] != step.s || r.dims(v)[1] != step.s) {
      throw Error(ErrorCode::InvalidArgument, "sdpa_with_kv_cache: live q " + dims_string(live) + ", k " +
                                                  dims_string(r.dims(k)) + " and v " + dims_string(r.dims(v)) +
                                                  " disagree on S");
    }
    plan_cache_write(r, cache_write, r.dims(k), step.start, shape.cache_max, "sdpa_with_kv_cache");
    r.set_dims(out, live);
    // One path runs; the others get no workgroups.
    const bool one_step = decode.recorded() && step.s == 1;  // the decode kernel writes the cache itself
    const bool use_flash = !one_step && flash_path.has_value() && (step.s > 1 || shape.f16_cache);
    if (one_step) {
      decode.run(r, step);
      idle_cache_write(r, cache_write);
    } else {
      decode.idle(r);
    }
    if (flash_path) use_flash ? flash_path->run(r, step) : flash_path->idle(r);
    if (passes) !one_step && !use_flash ? passes->run(r, step) : passes->idle(r);
  });
}

}  // namespace

void register_sdpa(OpRegistry& registry) {
  const auto add = [&](const char* name, auto check_fn, auto lower_fn) {
    OpDef def;
    def.check = check_fn;
    def.lower = lower_fn;
    def.parts_args = {{kKCache, kCacheHeadsDim}, {kVCache, kCacheHeadsDim}};
    registry.add(name, std::move(def));
  };
  add("sdpa_with_kv_cache.default", check<false>, lower<false>);
  add("wgrt.sdpa_with_kv_cache_window", check<true>, lower<true>);
}

}  // namespace wgrt::ops
