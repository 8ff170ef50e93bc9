// aten.max_pool2d.default (x, kernel, stride, padding, dilation, ceil_mode, out),
// aten.max_pool2d_with_indices.default (the same, then [out, indices]) and
// aten.avg_pool2d.default (x, kernel, stride, padding, ceil_mode,
// count_include_pad, divisor_override or Null, out): f32 on [C, H, W] or
// [N, C, H, W]; an empty stride means the kernel size. Indices are int64
// (i32 on the GPU). The leading dims and H, W may change at run time.
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/conv/window.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;  // WG in pool/pool2d.wgsl

// Mirrors `Params` in pool2d.wgsl.
struct PoolParams {
  uint32_t planes, h, w, oh;
  uint32_t ow, kh, kw;
  float divisor;
  int32_t stride_h, stride_w, pad_h, pad_w;
  int32_t dil_h, dil_w;
  uint32_t count, pad;
};
static_assert(sizeof(PoolParams) == 64, "must match Params in pool2d.wgsl");

enum class Pool { Max, MaxWithIndices, Avg };

struct PoolArgs {
  std::array<int64_t, 2> k{}, stride{}, pad{}, dil{1, 1};
  bool ceil_mode = false;
  uint32_t mode = 0;  // MODE in pool2d.wgsl
  float divisor = 0;
  ValueId out = 0, indices = 0;
  bool has_indices = false;
};

PoolArgs read_args(const Graph& graph, const OpArgs& args, Pool pool) {
  PoolArgs a;
  const bool is_max = pool != Pool::Avg;
  args.expect_count(is_max ? 7 : 8);
  const Tensor& x = args.tensor(0, {DType::F32});
  if (x.max_dims.size() != 3 && x.max_dims.size() != 4) args.fail(0, "expected [C, H, W] or [N, C, H, W], got " + dims_string(x.max_dims));
  a.k = window_pair(args, 1, 2, 1, 1, "kernel_size");
  a.stride = args.int_list(2).empty() ? a.k : window_pair(args, 2, 2, 1, 1, "stride");
  a.pad = window_pair(args, 3, 2, 0, 0, "padding");
  for (int d = 0; d < 2; ++d) {
    if (a.pad[d] * 2 > a.k[d]) args.fail(3, "padding " + std::to_string(a.pad[d]) + " is more than half the kernel " + std::to_string(a.k[d]));
  }
  if (is_max) {
    a.dil = window_pair(args, 4, 2, 1, 1, "dilation");
    a.ceil_mode = args.boolean(5);
    if (pool == Pool::MaxWithIndices) {
      const ValueList& list = args.value_list(6);
      if (list.items.size() != 2 || !graph.is_tensor(list.items[0]) || !graph.is_tensor(list.items[1])) {
        args.fail(6, "expected [out, indices] tensors");
      }
      a.out = list.items[0];
      a.indices = list.items[1];
      a.has_indices = true;
      const DType t = graph.tensor(a.indices).dtype;
      if (t != DType::I64 && t != DType::I32) args.fail(6, "indices: expected i64 or i32, got " + std::string(dtype_name(t)));
    } else {
      a.out = args.id(6);
      args.tensor(6, {DType::F32});
    }
  } else {
    a.ceil_mode = args.boolean(4);
    const bool include_pad = args.boolean(5);
    a.mode = include_pad ? 2 : 1;
    if (!args.is_null(6)) {
      const int64_t div = args.integer(6);
      if (div == 0) args.fail(6, "divisor_override 0");
      a.mode = 3;
      a.divisor = static_cast<float>(div);
    }
    a.out = args.id(7);
    args.tensor(7, {DType::F32});
  }
  return a;
}

Dims out_dims(const PoolArgs& a, Dims d) {
  const size_t r = d.size();
  d[r - 2] = window_out_size(d[r - 2], a.k[0], a.stride[0], a.pad[0], a.dil[0], a.ceil_mode);
  d[r - 1] = window_out_size(d[r - 1], a.k[1], a.stride[1], a.pad[1], a.dil[1], a.ceil_mode);
  return d;
}

void check(const OpArgs& args, Pool pool, const Graph& graph) {
  const PoolArgs a = read_args(graph, args, pool);
  const Dims want = out_dims(a, args.tensor(0).max_dims);
  const size_t out_arg = pool == Pool::Avg ? 7 : 6;
  if (want[want.size() - 1] < 1 || want[want.size() - 2] < 1) args.fail(out_arg, "the window does not fit the input");
  if (graph.tensor(a.out).max_dims != want ||
      (a.has_indices && graph.tensor(a.indices).max_dims != want)) {
    args.fail(out_arg, "expected output shape " + dims_string(want) + ", got " + dims_string(graph.tensor(a.out).max_dims));
  }
}

void lower(OpContext& ctx, Pool pool) {
  const OpArgs& args = ctx.args();
  const PoolArgs a = read_args(ctx.graph(), args, pool);
  check(args, pool, ctx.graph());
  const ValueId x = ctx.arg(0);
  const auto& pipeline = ctx.pipeline("pool/pool2d.wgsl", "main",
                                      {{"WG", kWorkgroup}, {"MODE", double(a.mode)}, {"WITH_INDICES", a.has_indices ? 1.0 : 0.0}});
  const UniformId u = ctx.uniform(sizeof(PoolParams));
  // Without indices the output stands in for them (never written).
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(a.out), ctx.tensor(a.has_indices ? a.indices : a.out),
                                               ctx.uniform_binding(u)});
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& xd = r.dims(x);
    const Dims od = out_dims(a, xd);
    r.set_dims(a.out, od);
    if (a.has_indices) r.set_dims(a.indices, od);
    const size_t rank = xd.size();
    PoolParams p{};
    p.h = uint32_t(xd[rank - 2]), p.w = uint32_t(xd[rank - 1]);
    p.oh = uint32_t(od[rank - 2]), p.ow = uint32_t(od[rank - 1]);
    p.planes = uint32_t(numel(xd) / std::max<int64_t>(1, int64_t(p.h) * p.w));
    p.kh = uint32_t(a.k[0]), p.kw = uint32_t(a.k[1]);
    p.divisor = a.divisor;
    p.stride_h = int32_t(a.stride[0]), p.stride_w = int32_t(a.stride[1]);
    p.pad_h = int32_t(a.pad[0]), p.pad_w = int32_t(a.pad[1]);
    p.dil_h = int32_t(a.dil[0]), p.dil_w = int32_t(a.dil[1]);
    p.count = uint32_t(numel(od));
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup)));
  });
}

}  // namespace

void register_pool(OpRegistry& registry) {
  const std::pair<const char*, Pool> ops[] = {{"aten.max_pool2d.default", Pool::Max},
                                              {"aten.max_pool2d_with_indices.default", Pool::MaxWithIndices},
                                              {"aten.avg_pool2d.default", Pool::Avg}};
  for (const auto& [name, pool] : ops) {
    // check gets no graph; the ValueList outputs are checked again at lowering.
    registry.add(name, {[pool = pool](const OpArgs& a) { check(a, pool, a.graph()); },
                        [pool = pool](OpContext& c) { lower(c, pool); }, false, nullptr,
                        pool == Pool::MaxWithIndices ? "f32 (indices i64)" : "f32"});
  }
}

}  // namespace wgrt::ops
