// aten.grid_sampler_2d.default (x, grid, interpolation_mode, padding_mode,
// align_corners, out): f32, x [N, C, H, W], grid [N, OH, OW, 2]. Every mode
// torch has but bicubic: interpolation 0 bilinear / 1 nearest, padding
// 0 zeros / 1 border / 2 reflection, either align_corners. (VulkanPartitioner
// 1.5.1 delegates only bilinear + border + align_corners; the others come
// from hand-built graphs.) Every dim may change at run time.
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;  // WG in sample/grid_sampler.wgsl

struct GridSamplerParams {
  uint32_t count, c, h, w, oh, ow, pad0, pad1;
};
static_assert(sizeof(GridSamplerParams) == 32, "must match Params in grid_sampler.wgsl");

struct GridSamplerArgs {
  int64_t mode = 0, padding = 0;
  bool align_corners = false;
};

Dims out_dims(const Dims& x, const Dims& grid) { return {x[0], x[1], grid[1], grid[2]}; }

GridSamplerArgs read_args(const OpArgs& args) {
  args.expect_count(6);
  args.tensor(0, {DType::F32});
  args.expect_rank(0, 4);
  const Tensor& grid = args.tensor(1, {DType::F32});
  args.expect_rank(1, 4);
  const Dims& xd = args.tensor(0).max_dims;
  if (grid.max_dims[0] != xd[0] || grid.max_dims[3] != 2) {
    args.fail(1, "grid " + dims_string(grid.max_dims) + ": expected [" + std::to_string(xd[0]) + ", H, W, 2]");
  }
  GridSamplerArgs a;
  a.mode = args.integer(2);
  if (a.mode == 2) args.unsupported(2, "interpolation_mode 2 (bicubic) is not supported");
  if (a.mode != 0 && a.mode != 1) args.fail(2, "interpolation_mode " + std::to_string(a.mode) + ": expected 0 or 1");
  a.padding = args.integer(3);
  if (a.padding < 0 || a.padding > 2) args.fail(3, "padding_mode " + std::to_string(a.padding) + ": expected 0, 1 or 2");
  a.align_corners = args.boolean(4);
  args.tensor(5, {DType::F32});
  const Dims want = out_dims(xd, grid.max_dims);
  if (args.tensor(5).max_dims != want) args.fail(5, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(5).max_dims));
  return a;
}

void lower(OpContext& ctx) {
  const GridSamplerArgs a = read_args(ctx.args());
  const ValueId x = ctx.arg(0), grid = ctx.arg(1), out = ctx.arg(5);
  const auto& pipeline = ctx.pipeline("sample/grid_sampler.wgsl", "main",
                                      {{"WG", kWorkgroup}, {"MODE", double(a.mode)}, {"PADDING", double(a.padding)},
                                       {"ALIGN_CORNERS", a.align_corners ? 1.0 : 0.0}});
  const UniformId u = ctx.uniform(sizeof(GridSamplerParams));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(grid), ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({x, grid}, [=](ResizeContext& r) {
    const Dims& xd = r.dims(x);
    const Dims& gd = r.dims(grid);
    if (gd[0] != xd[0]) throw Error(ErrorCode::InvalidArgument, "aten.grid_sampler_2d: grid batch " + std::to_string(gd[0]) +
                                                                  " differs from the input's " + std::to_string(xd[0]));
    const Dims od = out_dims(xd, gd);
    r.set_dims(out, od);
    GridSamplerParams p{};
    p.count = uint32_t(numel(od));
    p.c = uint32_t(xd[1]), p.h = uint32_t(xd[2]), p.w = uint32_t(xd[3]);
    p.oh = uint32_t(od[2]), p.ow = uint32_t(od[3]);
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup)));
  });
}

}  // namespace

void register_grid_sampler(OpRegistry& registry) {
  registry.add("aten.grid_sampler_2d.default", {[](const OpArgs& a) { read_args(a); }, lower});
}

}  // namespace wgrt::ops
