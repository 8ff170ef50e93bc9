// update_cache.default (value, cache, start_pos, out) and the cache write it
// shares with SDPA. `out` is a placeholder (torch's op returns a dummy
// one-element tensor); the cache is written in place and keeps its shape.
#include "ops/attention/kv_cache.h"

#include "gpu/workgroups.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;

struct CacheParams {
  uint32_t count = 0;
  uint32_t dst_offset = 0;
  uint32_t part_row = 0;
  uint32_t value_row = 0;
  uint32_t value_offset = 0;
  uint32_t pad[3] = {};
};
static_assert(sizeof(CacheParams) == 32, "must match Params in update_cache.wgsl");

void check_update_cache(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& value = args.tensor(0, {DType::F32});
  const Tensor& cache = args.tensor(1, {DType::F32, DType::F16});
  args.expect_rank(0, 4);
  args.expect_rank(1, 4);
  const Dims& v = value.max_dims;
  const Dims& c = cache.max_dims;
  if (cache.dtype == DType::F16 && v[3] % 2 != 0) args.fail(1, "an f16 cache needs an even row size, got " + dims_string(c));
  if (v[0] != 1 || c[0] != 1 || v[2] != c[2] || v[3] != c[3] || v[1] > c[1]) {
    args.fail(1, "expected a cache [1, >= " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ", " +
                     std::to_string(v[3]) + "] for value " + dims_string(v) + ", got " + dims_string(c));
  }
  args.integer(2);
  args.tensor(3);
}

void lower_update_cache(OpContext& ctx) {
  const ValueId value = ctx.arg(0), cache = ctx.arg(1), start = ctx.arg(2);
  const CacheWrite w = record_cache_write(ctx, {{value, cache}});
  const int64_t cache_max = ctx.max_dims(cache)[1];
  ctx.on_resize({value, start}, [=](ResizeContext& r) {
    plan_cache_write(r, w, r.dims(value), r.integer(start), cache_max, "update_cache");
  });
}

}  // namespace

std::vector<CachePart> cache_parts(OpContext& ctx, const std::vector<ValueId>& caches) {
  std::vector<CachePart> parts;
  for (ValueId cache : caches) {
    const std::vector<TensorSegment> segs = ctx.segments(cache, kCacheHeadsDim);
    if (parts.empty()) {
      for (const TensorSegment& s : segs) parts.push_back({s.first_row, s.rows, {}});
    }
    if (segs.size() != parts.size()) {
      throw Error(ErrorCode::Internal, ctx.call().name + ": KV caches of one shape stored in different parts");
    }
    for (size_t i = 0; i < segs.size(); ++i) parts[i].buffers.push_back(gpu::BufferBinding{segs[i].buffer});
  }
  return parts;
}

CacheWrite record_cache_write(OpContext& ctx, std::initializer_list<std::pair<ValueId, ValueId>> pairs) {
  CacheWrite w;
  std::vector<ValueId> caches;
  for (const auto& pair : pairs) caches.push_back(pair.second);
  // f16 caches (the opt-in f16 KV cache) are written two values per invocation.
  w.f16 = ctx.tensor_info(caches.front()).dtype == DType::F16;
  const auto& pipeline = ctx.pipeline(w.f16 ? "attention/update_cache_f16.wgsl" : "attention/update_cache.wgsl", "main",
                                      {{"WG", kWorkgroup}});
  for (const CachePart& cp : cache_parts(ctx, caches)) {
    CacheWrite::Part part{ctx.uniform(sizeof(CacheParams)), {}, cp.first_head, cp.heads};
    size_t c = 0;
    for (const auto& pair : pairs) {
      part.dispatches.push_back(ctx.dispatch(
          pipeline, {ctx.tensor(pair.first), cp.buffers[c++], ctx.uniform_binding(part.uniform)},
          ctx.call().name + " cache write"));
    }
    w.parts.push_back(std::move(part));
  }
  return w;
}

void plan_cache_write(ResizeContext& r, const CacheWrite& w, const Dims& value_dims, int64_t start_pos,
                      int64_t cache_max, const char* op) {
  const int64_t s = value_dims[1];
  if (start_pos < 0 || start_pos > cache_max - s) {  // not start_pos + s: a hostile start near INT64_MAX wraps
    throw Error(ErrorCode::InvalidArgument, std::string(op) + ": positions [" + std::to_string(start_pos) + ", " +
                                                std::to_string(start_pos + s) + ") do not fit a cache of " +
                                                std::to_string(cache_max));
  }
  const int64_t head_dim = value_dims[3];
  const uint64_t per_invocation = w.f16 ? 2 : 1;
  for (const CacheWrite::Part& part : w.parts) {
    const int64_t part_row = part.heads * head_dim;
    CacheParams p;
    p.count = static_cast<uint32_t>(s * part_row);
    p.dst_offset = static_cast<uint32_t>(start_pos * part_row);
    p.part_row = static_cast<uint32_t>(part_row);
    p.value_row = static_cast<uint32_t>(value_dims[2] * head_dim);
    p.value_offset = static_cast<uint32_t>(part.first_head * head_dim);
    r.write_uniform(part.uniform, p);
    for (DispatchId d : part.dispatches) r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup * per_invocation)));
  }
}

void idle_cache_write(ResizeContext& r, const CacheWrite& w) {
  for (const CacheWrite::Part& part : w.parts) {
    for (DispatchId d : part.dispatches) r.set_workgroups(d, gpu::WorkgroupCount{0, 1, 1});
  }
}

void register_update_cache(OpRegistry& registry) {
  OpDef def;
  def.check = check_update_cache;
  def.lower = lower_update_cache;
  def.parts_args = {{1, kCacheHeadsDim}};
  registry.add("update_cache.default", std::move(def));
}

}  // namespace wgrt::ops
