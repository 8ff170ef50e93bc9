// torchao.choose_qparams_affine.default
//   (x f32, mapping_type "ASYMMETRIC" | "SYMMETRIC", block_size, target_dtype,
//    quant_min, quant_max, eps or None, scale_dtype, zero_point_dtype, keepdim,
//    [scale f32, zero_point int8 | int32])
// as the 8da4w flow (Int8DynamicActivationIntxWeightConfig) emits it before
// et_vk.linear_dq8ca_q4gsw: one scale and zero point per block of x. Blocks
// must be contiguous (per token, per tensor). choose_qparams.wgsl has the math.
#include <algorithm>
#include <limits>
#include <string>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/qparams.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

struct ChooseParams {
  uint32_t blocks = 0, block_len = 0;
  int32_t qmin = 0, qmax = 0;
  float eps = 0;
  uint32_t pad[3] = {};
};
static_assert(sizeof(ChooseParams) == 32, "must match Params in choose_qparams.wgsl");

constexpr size_t kOut = 10;

bool symmetric(const OpArgs& args) {
  const auto* s = std::get_if<std::string>(&args.value(1));
  if (!s || (*s != "ASYMMETRIC" && *s != "SYMMETRIC")) {
    args.unsupported(1, "mapping type must be ASYMMETRIC or SYMMETRIC");
  }
  return *s == "SYMMETRIC";
}

// Elements per block; the block of element i is i / block_len.
int64_t block_len(const OpArgs& args, const Dims& dims) {
  const IntList& block = args.int_list(2);
  if (block.size() != dims.size()) args.fail(2, "block_size must have one entry per dim of x");
  int64_t len = 1;
  bool split = false;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (block[d] < 1 || dims[d] % block[d] != 0) {
      args.fail(2, "block size " + std::to_string(block[d]) + " does not divide dim " + std::to_string(d) + " (" +
                       std::to_string(dims[d]) + ")");
    }
    if (split && block[d] != dims[d]) args.unsupported(2, "blocks that are not contiguous");
    if (block[d] != 1) split = true;
    len *= block[d];
  }
  return len;
}

// The parameters' live dims for `blocks` blocks: the first dim above 1
// shrinks with x's leading (token) dims.
Dims live_dims(Dims dims, int64_t blocks) {
  const int64_t total = numel(dims);
  for (auto& d : dims) {
    if (d > 1) {
      d = d * blocks / std::max<int64_t>(total, 1);
      break;
    }
  }
  return dims;
}

std::pair<ValueId, ValueId> outputs(const OpArgs& args) {
  const ValueList& list = args.value_list(kOut);
  if (list.items.size() != 2) args.fail(kOut, "expected [scale, zero_point]");
  return {list.items[0], list.items[1]};
}

float eps_of(const OpArgs& args) {
  // None: torch.finfo(float32).smallest_normal, as torchao.
  return args.is_null(6) ? std::numeric_limits<float>::min() : static_cast<float>(args.number(6));
}

void check(const OpArgs& args) {
  args.expect_count(kOut + 1);
  const Tensor& x = args.tensor(0, {DType::F32});
  symmetric(args);
  const int64_t blocks = numel(x.max_dims) / block_len(args, x.max_dims);
  // Not a structured binding: clang 15 (the sanitizer build) cannot capture one.
  const auto scale_zp = outputs(args);
  const ValueId scale = std::get<0>(scale_zp), zp = std::get<1>(scale_zp);
  const Tensor& s = args.graph().tensor(scale);
  const Tensor& z = args.graph().tensor(zp);
  if (s.dtype != DType::F32 || numel(s.max_dims) != blocks) {
    args.fail(kOut, "expected an f32 scale of " + std::to_string(blocks) + " elements, got " +
                        std::string(dtype_name(s.dtype)) + " " + dims_string(s.max_dims));
  }
  if ((z.dtype != DType::I8 && z.dtype != DType::I32) || numel(z.max_dims) != blocks) {
    args.fail(kOut, "expected an int8 or int32 zero point of " + std::to_string(blocks) + " elements, got " +
                        std::string(dtype_name(z.dtype)) + " " + dims_string(z.max_dims));
  }
  check_qrange(args, 4, 5, z.dtype == DType::I8 ? DType::I8 : DType::I32);
  if (!(eps_of(args) > 0)) args.fail(6, "eps must be positive");
}

void lower(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId x = ctx.arg(0);
  // Not a structured binding: clang 15 (the sanitizer build) cannot capture one.
  const auto scale_zp = outputs(args);
  const ValueId scale = std::get<0>(scale_zp), zp = std::get<1>(scale_zp);
  const bool zp_int8 = ctx.tensor_info(zp).dtype == DType::I8;
  const auto& pipeline = ctx.pipeline("qdq/choose_qparams.wgsl", "main",
                                      {{"SYMMETRIC", symmetric(args) ? 1.0 : 0.0}, {"ZP_INT8", zp_int8 ? 1.0 : 0.0}});
  const UniformId u = ctx.uniform(sizeof(ChooseParams));
  const DispatchId d =
      ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(scale), ctx.tensor(zp), ctx.uniform_binding(u)});
  ChooseParams base;
  base.block_len = static_cast<uint32_t>(block_len(args, ctx.max_dims(x)));
  base.qmin = static_cast<int32_t>(args.integer(4));
  base.qmax = static_cast<int32_t>(args.integer(5));
  base.eps = eps_of(args);
  const Dims scale_max = ctx.max_dims(scale), zp_max = ctx.max_dims(zp);
  ctx.on_resize({x}, [=](ResizeContext& r) {
    ChooseParams p = base;
    p.blocks = static_cast<uint32_t>(numel(r.dims(x)) / p.block_len);
    r.set_dims(scale, live_dims(scale_max, p.blocks));
    r.set_dims(zp, live_dims(zp_max, p.blocks));
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.blocks, 4)));
  });
}

}  // namespace

void register_choose_qparams(OpRegistry& registry) {
  registry.add("torchao.choose_qparams_affine.default", {check, lower, false, nullptr, "f32 -> f32 scales, int8/int32 zero points"});
}

}  // namespace wgrt::ops
