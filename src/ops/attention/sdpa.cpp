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
//
// wgrt.sdpa_slots (GGUF models): caches holding several sequences, one per
// slot, and a batched decode step over them (see lower_slots).
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

// What both ops ask of q, k, v, the caches and out (arguments 0-4 and `out`):
// f32 [1, S, H, D] queries, [1, S, Hkv, D] keys and values with H a multiple
// of Hkv and D of 4, caches [1, rows, Hkv, D] of one dtype (returned).
DType check_qkv_caches(const OpArgs& args, size_t out) {
  for (size_t i : {size_t(kQ), size_t(kK), size_t(kV), out}) {
    args.tensor(i, {DType::F32});
    args.expect_rank(i, 4);
  }
  const DType cache_type = args.tensor(kKCache, {DType::F32, DType::F16}).dtype;
  args.tensor(kVCache, {cache_type});
  const Dims& q = args.tensor(kQ).max_dims;
  const Dims& k = args.tensor(kK).max_dims;
  const Dims& kc = args.tensor(kKCache).max_dims;
  if (q[0] != 1) args.fail(kQ, "expected a batch dim of 1 (query rows are dim 1), got " + dims_string(q));
  if (q[3] % 4 != 0) args.fail(kQ, "head dim " + std::to_string(q[3]) + " is not a multiple of 4");
  expect_dims(args, kK, {1, q[1], k[2], q[3]});
  if (k[2] == 0 || q[2] % k[2] != 0) {
    args.fail(kK, std::to_string(q[2]) + " query heads are not a multiple of " + std::to_string(k[2]) + " kv heads");
  }
  expect_dims(args, kV, k);
  expect_dims(args, kKCache, {1, kc[1], k[2], q[3]});
  expect_dims(args, kVCache, kc);
  expect_dims(args, out, q);
  return cache_type;
}

template <bool kWindowed>
void check(const OpArgs& args) {
  args.expect_count(kWindowed ? kArgCount + 1 : kArgCount);
  if (kWindowed && args.integer(kWindow) < 1) {
    args.fail(kWindow, "window must be at least 1, got " + std::to_string(args.integer(kWindow)));
  }
  // Caches: f32, or f16 (the opt-in f16 KV cache, read by flash attention and the decode kernel).
  const DType cache_type = check_qkv_caches(args, kOut);
  const int64_t head_dim = args.tensor(kQ).max_dims[3];
  if (cache_type == DType::F16 && args.device() != nullptr && head_dim <= FlashAttentionPath::kMaxHeadDim &&
      !FlashAttentionPath::fits(*args.device(), head_dim)) {
    args.unsupported(kKCache, "an f16 KV cache needs flash attention, which needs " +
                                  std::to_string(FlashAttentionPath::workgroup_bytes(head_dim)) +
                                  " bytes of workgroup memory; the device has " +
                                  std::to_string(args.device()->limits().max_compute_workgroup_storage_size));
  }
  if (cache_type == DType::F16 && head_dim > FlashAttentionPath::kMaxHeadDim) {
    args.unsupported(kKCache, "an f16 KV cache needs head dim <= " + std::to_string(FlashAttentionPath::kMaxHeadDim) +
                                  ", got " + std::to_string(head_dim));
  }
  const Dims& q = args.tensor(kQ).max_dims;
  const Dims& kc = args.tensor(kKCache).max_dims;
  if (kc[1] < q[1]) args.fail(kKCache, "cache " + dims_string(kc) + " holds fewer positions than S");
  args.integer(kStartPos);
  if (!args.is_null(kSeqLen)) args.integer(kSeqLen);
  if (!args.is_null(kMask)) args.fail(kMask, "attention masks are not supported (causal attention only)");
  if (!args.is_null(kDropout) && args.number(kDropout) != 0.0) args.fail(kDropout, "dropout must be 0");
  if (!args.is_null(kCausal)) args.boolean(kCausal);
  if (!args.is_null(kScale)) args.number(kScale);
}

// Every path an attention op records, and which one runs for a step.
struct Paths {
  AttentionShape shape;
  CacheWrite cache_write;
  DecodeAttention decode;
  std::optional<FlashAttentionPath> flash;
  std::optional<ThreePassAttention> passes;

  static Paths record(OpContext& ctx, const AttentionShape& shape, const AttentionIo& io, ValueId k, ValueId v,
                      ValueId k_cache, ValueId v_cache) {
    Paths p;
    p.shape = shape;
    const bool fits = FlashAttentionPath::fits(ctx.device(), shape.head_dim);
    // (check() refused an f16 cache where flash attention does not fit.)
    // f16 caches: flash attention for every S the decode kernel does not take (the three passes read f32 rows).
    const bool flash = shape.f16_cache || (shape.max_seq > 1 && fits && flash_wanted(ctx.tuning().flash_attention));
    const std::vector<CachePart> parts = cache_parts(ctx, {k_cache, v_cache});
    p.cache_write = record_cache_write(ctx, {{k, k_cache}, {v, v_cache}});
    p.decode = DecodeAttention::record(ctx, shape, io, parts);
    if (flash) p.flash = FlashAttentionPath::record(ctx, shape, io, parts);
    if (!shape.f16_cache) p.passes = ThreePassAttention::record(ctx, shape, io, parts, flash ? 1 : shape.max_seq);
    return p;
  }

  // One sequence's S rows; `cache_end`: the first cache row past its slot.
  void run(ResizeContext& r, const Dims& k_dims, AttentionStep step, int64_t cache_end, const char* op) const {
    plan_cache_write(r, cache_write, k_dims, step.start, cache_end, op);
    // One path runs; the others get no workgroups.
    const bool one_step = decode.recorded() && step.s == 1;  // the decode kernel writes the cache itself
    const bool use_flash = !one_step && flash.has_value() && (step.s > 1 || shape.f16_cache);
    if (one_step) {
      decode.run(r, step);
      idle_cache_write(r, cache_write);
    } else {
      decode.idle(r);
    }
    if (flash) use_flash ? flash->run(r, step) : flash->idle(r);
    if (passes) !one_step && !use_flash ? passes->run(r, step) : passes->idle(r);
  }

  // One token of each of several sequences (the decode kernel writes the caches).
  void run_batch(ResizeContext& r, BatchStep step) const {
    decode.run_batch(r, step);
    idle_cache_write(r, cache_write);
    if (flash) flash->idle(r);
    if (passes) passes->idle(r);
  }
};

// The shapes; scale 1/sqrt(head dim).
AttentionShape shape_of(OpContext& ctx, ValueId q, ValueId k, ValueId k_cache) {
  const Dims qmax = ctx.max_dims(q);
  AttentionShape shape;
  shape.heads = static_cast<uint32_t>(qmax[2]);
  shape.kv_heads = static_cast<uint32_t>(ctx.max_dims(k)[2]);
  shape.group = shape.heads / shape.kv_heads;
  shape.head_dim = qmax[3];
  shape.max_seq = qmax[1];
  shape.cache_max = ctx.max_dims(k_cache)[1];
  shape.scale = static_cast<float>(1.0 / std::sqrt(double(shape.head_dim)));
  shape.f16_cache = ctx.tensor_info(k_cache).dtype == DType::F16;
  return shape;
}

void expect_same_s(ResizeContext& r, ValueId k, ValueId v, int64_t s, const Dims& live, const char* op) {
  if (r.dims(k)[1] != s || r.dims(v)[1] != s) {
    throw Error(ErrorCode::InvalidArgument, std::string(op) + ": live q " + dims_string(live) + ", k " +
                                                dims_string(r.dims(k)) + " and v " + dims_string(r.dims(v)) +
                                                " disagree on S");
  }
}

template <bool kWindowed>
void lower(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId q = ctx.arg(kQ), k = ctx.arg(kK), v = ctx.arg(kV), start_pos = ctx.arg(kStartPos), out = ctx.arg(kOut);
  AttentionShape shape = shape_of(ctx, q, k, ctx.arg(kKCache));
  if (!args.is_null(kScale)) shape.scale = static_cast<float>(args.number(kScale));
  shape.window = kWindowed ? static_cast<uint32_t>(std::min<int64_t>(args.integer(kWindow), 0xffffffff)) : 0;
  const AttentionIo io{ctx.tensor(q), ctx.tensor(k), ctx.tensor(v), ctx.tensor(out), {}};
  const Paths paths = Paths::record(ctx, shape, io, k, v, ctx.arg(kKCache), ctx.arg(kVCache));
  ctx.on_resize({q, k, v, start_pos}, [=](ResizeContext& r) {
    const Dims& live = r.dims(q);
    const AttentionStep step{r.integer(start_pos), live[1], 0};
    expect_same_s(r, k, v, step.s, live, "sdpa_with_kv_cache");
    r.set_dims(out, live);
    paths.run(r, r.dims(k), step, shape.cache_max, "sdpa_with_kv_cache");
  });
}

// wgrt.sdpa_slots (q, k, v, k_cache, v_cache, pos, slot, batch_rows,
// slot_len, window, out): KV caches holding several sequences, `slot_len`
// rows each (slot s: rows [s * slot_len, (s + 1) * slot_len)).
//   slot >= 0: the S rows of q are one sequence's, in slot `slot` at
//              positions [pos, pos + S): as sdpa_with_kv_cache in that slot.
//   slot < 0:  row r of q is one token of its own sequence, whose position
//              and slot are batch_rows[r] (i32 pairs; a negative position
//              skips the row: zeros out, nothing written); pos is then the
//              most positions any row attends (it sizes the splits).
// window: 0, or a sliding window's positions.
enum SlotArg { kSPos = 5, kSSlot, kSRows, kSSlotLen, kSWindow, kSOut, kSCount };

int64_t slots_of(const OpArgs& args) { return args.tensor(kKCache).max_dims[1] / args.integer(kSSlotLen); }

void check_slots(const OpArgs& args) {
  args.expect_count(kSCount);
  const DType cache_type = check_qkv_caches(args, kSOut);
  const Dims& q = args.tensor(kQ).max_dims;
  const Dims& k = args.tensor(kK).max_dims;
  const Dims& kc = args.tensor(kKCache).max_dims;
  const int64_t slot_len = args.integer(kSSlotLen);
  if (slot_len < q[1] || kc[1] % slot_len != 0) {
    args.fail(kSSlotLen, "slots of " + std::to_string(slot_len) + " rows must hold S = " + std::to_string(q[1]) +
                             " and divide the cache's " + std::to_string(kc[1]));
  }
  const Tensor& rows = args.tensor(kSRows, {DType::I32});
  if (rows.max_dims.size() != 2 || rows.max_dims[1] != 2 || rows.max_dims[0] > q[1]) {
    args.fail(kSRows, "expected (position, slot) rows [<= " + std::to_string(q[1]) + ", 2], got " +
                          dims_string(rows.max_dims));
  }
  args.integer(kSPos);
  args.integer(kSSlot);
  if (args.integer(kSWindow) < 0) args.fail(kSWindow, "window must be >= 0");
  const int64_t head_dim = q[3];
  const bool several = slots_of(args) > 1;
  if (args.device() != nullptr && (cache_type == DType::F16 || several) &&
      !FlashAttentionPath::fits(*args.device(), head_dim)) {
    args.unsupported(kKCache, std::string(several ? "caches of several sequences" : "an f16 KV cache") +
                                  " need flash attention, which needs head dim <= " +
                                  std::to_string(FlashAttentionPath::kMaxHeadDim) + " and " +
                                  std::to_string(FlashAttentionPath::workgroup_bytes(head_dim)) +
                                  " bytes of workgroup memory; the device has " +
                                  std::to_string(args.device()->limits().max_compute_workgroup_storage_size));
  }
  if (several && !DecodeAttention::fits(uint32_t(q[2] / k[2]), head_dim)) {
    args.unsupported(kKCache, "caches of several sequences need the decode kernel, which takes up to 8 query heads "
                              "per KV head and head dims 4 x a power of two up to 256; got " +
                                  std::to_string(q[2] / k[2]) + " and " + std::to_string(head_dim));
  }
}

void lower_slots(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId q = ctx.arg(kQ), k = ctx.arg(kK), v = ctx.arg(kV), out = ctx.arg(kSOut);
  const ValueId pos = ctx.arg(kSPos), slot = ctx.arg(kSSlot), rows = ctx.arg(kSRows);
  AttentionShape shape = shape_of(ctx, q, k, ctx.arg(kKCache));
  shape.window = static_cast<uint32_t>(std::min<int64_t>(args.integer(kSWindow), 0xffffffff));
  const int64_t slot_len = args.integer(kSSlotLen), slots = slots_of(args);
  shape.max_batch = slots > 1 ? std::min(slots, ctx.max_dims(rows)[0]) : 1;
  if (slots > 1 && ctx.tuning().flash_attention == FlashAttention::Off) {
    throw Error(ErrorCode::NotSupported, "wgrt.sdpa_slots: caches of several sequences need flash attention; "
                                         "it is turned off (LoadOptions::tuning.flash_attention)");
  }
  const AttentionIo io{ctx.tensor(q), ctx.tensor(k), ctx.tensor(v), ctx.tensor(out), ctx.tensor(rows)};
  const Paths paths = Paths::record(ctx, shape, io, k, v, ctx.arg(kKCache), ctx.arg(kVCache));
  ctx.on_resize({q, k, v, pos, slot, rows}, [=](ResizeContext& r) {
    const Dims& live = r.dims(q);
    const int64_t s = live[1], at = r.integer(pos), which = r.integer(slot);
    expect_same_s(r, k, v, s, live, "wgrt.sdpa_slots");
    r.set_dims(out, live);
    if (which >= 0) {
      if (which >= slots) {
        throw Error(ErrorCode::InvalidArgument, "wgrt.sdpa_slots: slot " + std::to_string(which) + " of " +
                                                    std::to_string(slots));
      }
      const int64_t base = which * slot_len;
      if (at < 0 || at > slot_len - s) {
        throw Error(ErrorCode::InvalidArgument, "wgrt.sdpa_slots: positions [" + std::to_string(at) + ", " +
                                                    std::to_string(at + s) + ") do not fit a slot of " +
                                                    std::to_string(slot_len));
      }
      paths.run(r, r.dims(k), AttentionStep{base + at, s, base}, base + slot_len, "wgrt.sdpa_slots");
      return;
    }
    if (r.dims(rows)[0] != s || s > shape.max_batch) {
      throw Error(ErrorCode::InvalidArgument, "wgrt.sdpa_slots: a batch of " + std::to_string(s) + " rows with " +
                                                  std::to_string(r.dims(rows)[0]) + " (position, slot) rows; at most " +
                                                  std::to_string(shape.max_batch));
    }
    paths.run_batch(r, BatchStep{static_cast<uint32_t>(s), std::clamp<int64_t>(at, 1, slot_len), slot_len});
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
  add("wgrt.sdpa_slots", check_slots, lower_slots);
}

}  // namespace wgrt::ops
