// The dynamic quantization parameter ops, one scale and zero point per
// contiguous block of x (choose_qparams.wgsl has the math):
//   torchao.choose_qparams_affine.default
//     (x f32, mapping_type "ASYMMETRIC" | "SYMMETRIC", block_size, target_dtype,
//      quant_min, quant_max, eps or None, scale_dtype, zero_point_dtype, keepdim,
//      [scale f32, zero_point int8 | int32])
//     as the 8da4w flow emits it before et_vk.linear_dq8ca_q4gsw; blocks must
//     be contiguous (per token, per tensor);
//   quantized_decomposed.choose_qparams.tensor
//     (x, quant_min, quant_max, eps, dtype, [scale, zero_point]): one block;
//   quantized_decomposed.choose_qparams_per_token_asymmetric.default
//     (x, dtype, [scale, zero_point]): one block per row of the last dim.
// The last two return float64 scales and int64 zero points; VulkanPartitioner
// serializes them as f32 (exact: the reference computes them in f32) and
// int32 (wgrt's I64 when they are program outputs).
#include <algorithm>
#include <cmath>
#include <tuple>
#include <limits>
#include <string>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/qparams.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;  // WG in qdq/choose_qparams.wgsl (a power of two)

struct ChooseParams {
  uint32_t blocks = 0, block_len = 0;
  int32_t qmin = 0, qmax = 0;
  float eps = 0;
  uint32_t pad[3] = {};
};
static_assert(sizeof(ChooseParams) == 32, "must match Params in choose_qparams.wgsl");

// How each op names its arguments and which rule of choose_qparams.wgsl it uses.
enum class Kind { Affine, Tensor, PerToken };
enum Mode : uint32_t { kAsymmetric = 0, kSymmetric = 1, kPerTokenXnnpack = 2 };

size_t out_arg(Kind k) { return k == Kind::Affine ? 10 : k == Kind::Tensor ? 5 : 2; }

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

std::pair<ValueId, ValueId> outputs(const OpArgs& args, Kind k) {
  const size_t out = out_arg(k);
  const ValueList& list = args.value_list(out);
  if (list.items.size() != 2) args.fail(out, "expected [scale, zero_point]");
  for (ValueId id : list.items) {
    if (id >= args.graph().values.size() || !args.graph().is_tensor(id)) {
      args.fail(out, "expected [scale, zero_point] tensors, got a " +
                         std::string(id < args.graph().values.size() ? value_kind_name(args.graph().values[id])
                                                                     : "missing value"));
    }
  }
  return {list.items[0], list.items[1]};
}

float eps_of(const OpArgs& args, Kind k) {
  switch (k) {
    // None: torch.finfo(float32).smallest_normal, as torchao.
    case Kind::Affine: return args.is_null(6) ? std::numeric_limits<float>::min() : static_cast<float>(args.number(6));
    // torch.Tensor([eps]): the argument rounded to f32.
    case Kind::Tensor: return static_cast<float>(args.number(3));
    // torch.finfo(float32).eps.
    case Kind::PerToken: return std::numeric_limits<float>::epsilon();
  }
  return 0;
}

uint32_t mode_of(const OpArgs& args, Kind k) {
  if (k == Kind::PerToken) return kPerTokenXnnpack;
  return k == Kind::Affine && symmetric(args) ? kSymmetric : kAsymmetric;
}

// Elements per block at the given dims of x.
int64_t block_len_of(const OpArgs& args, Kind k, const Dims& dims) {
  switch (k) {
    case Kind::Affine: return block_len(args, dims);
    case Kind::Tensor: return std::max<int64_t>(numel(dims), 1);
    case Kind::PerToken: return dims.empty() ? 1 : std::max<int64_t>(dims.back(), 1);
  }
  return 1;
}

// {qmin, qmax} the math uses: the arguments, or XNNPACK's fixed int8 range.
std::pair<int32_t, int32_t> qrange_of(const OpArgs& args, Kind k) {
  if (k == Kind::PerToken) return {-128, 127};
  const size_t at = k == Kind::Affine ? 4 : 1;
  return {static_cast<int32_t>(args.whole_number(at)), static_cast<int32_t>(args.whole_number(at + 1))};
}

void check(const OpArgs& args, Kind k) {
  const size_t out = out_arg(k);
  args.expect_count(out + 1);
  const Tensor& x = args.tensor(0, {DType::F32});
  if (k == Kind::Affine) symmetric(args);
  if (k == Kind::PerToken && x.max_dims.empty()) args.fail(0, "expected at least one dim (the token's values)");
  const int64_t blocks = numel(x.max_dims) / block_len_of(args, k, x.max_dims);
  // Not a structured binding: clang 15 (the sanitizer build) cannot capture one.
  const auto scale_zp = outputs(args, k);
  const ValueId scale = std::get<0>(scale_zp), zp = std::get<1>(scale_zp);
  const Tensor& s = args.graph().tensor(scale);
  const Tensor& z = args.graph().tensor(zp);
  if (s.dtype != DType::F32 || numel(s.max_dims) != blocks) {
    args.fail(out, "expected an f32 scale of " + std::to_string(blocks) + " elements, got " +
                       std::string(dtype_name(s.dtype)) + " " + dims_string(s.max_dims));
  }
  if ((z.dtype != DType::I8 && z.dtype != DType::I32 && z.dtype != DType::I64) || numel(z.max_dims) != blocks) {
    args.fail(out, "expected an int8, int32 or int64 zero point of " + std::to_string(blocks) + " elements, got " +
                       std::string(dtype_name(z.dtype)) + " " + dims_string(z.max_dims));
  }
  if (k == Kind::Affine) check_qrange(args, 4, 5, z.dtype == DType::I8 ? DType::I8 : DType::I32);
  // choose_qparams.tensor's dtype argument is serialized as None: the range
  // is only checked to fit the zero point and be ordered.
  if (k == Kind::Tensor) check_qrange(args, 1, 2, z.dtype == DType::I8 ? DType::I8 : DType::I32);
  const float eps = eps_of(args, k);
  if (!(eps > 0) || !std::isfinite(eps)) {
    args.fail(k == Kind::Affine ? 6 : 3, "eps must be positive and finite (as f32), got " + std::to_string(eps));
  }
}

void lower(OpContext& ctx, Kind k) {
  const OpArgs& args = ctx.args();
  const ValueId x = ctx.arg(0);
  // Not a structured binding: clang 15 (the sanitizer build) cannot capture one.
  const auto scale_zp = outputs(args, k);
  const ValueId scale = std::get<0>(scale_zp), zp = std::get<1>(scale_zp);
  const bool zp_int8 = ctx.tensor_info(zp).dtype == DType::I8;
  const auto& pipeline =
      ctx.pipeline("qdq/choose_qparams.wgsl", "main",
                   {{"WG", kWorkgroup}, {"MODE", double(mode_of(args, k))}, {"ZP_INT8", zp_int8 ? 1.0 : 0.0}});
  const UniformId u = ctx.uniform(sizeof(ChooseParams));
  const DispatchId d =
      ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(scale), ctx.tensor(zp), ctx.uniform_binding(u)});
  ChooseParams base;
  std::tie(base.qmin, base.qmax) = qrange_of(args, k);
  base.eps = eps_of(args, k);
  // Affine blocks are fixed by block_size; the others follow x's live dims.
  const int64_t fixed_len = k == Kind::Affine ? block_len(args, ctx.max_dims(x)) : 0;
  const Dims scale_max = ctx.max_dims(scale), zp_max = ctx.max_dims(zp);
  ctx.on_resize({x}, [=](ResizeContext& r) {
    ChooseParams p = base;
    const Dims& dims = r.dims(x);
    const int64_t len = k == Kind::Affine ? fixed_len
                        : k == Kind::Tensor ? std::max<int64_t>(numel(dims), 1)
                                            : std::max<int64_t>(dims.back(), 1);
    p.block_len = static_cast<uint32_t>(len);
    p.blocks = static_cast<uint32_t>(numel(dims) / len);
    r.set_dims(scale, live_dims(scale_max, p.blocks));
    r.set_dims(zp, live_dims(zp_max, p.blocks));
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.blocks, 4)));
  });
}

template <Kind K>
void check_kind(const OpArgs& args) {
  check(args, K);
}
template <Kind K>
void lower_kind(OpContext& ctx) {
  lower(ctx, K);
}

}  // namespace

void register_choose_qparams(OpRegistry& registry) {
  registry.add("torchao.choose_qparams_affine.default", {check_kind<Kind::Affine>, lower_kind<Kind::Affine>, false,
                                                         nullptr, "f32 -> f32 scales, int8/int32 zero points"});
  registry.add("quantized_decomposed.choose_qparams.tensor",
               {check_kind<Kind::Tensor>, lower_kind<Kind::Tensor>, false, nullptr,
                "f32 -> one f32 scale, int32/int64 zero point"});
  registry.add("quantized_decomposed.choose_qparams_per_token_asymmetric.default",
               {check_kind<Kind::PerToken>, lower_kind<Kind::PerToken>, false, nullptr,
                "f32 -> per-row f32 scales, int32/int64 zero points"});
}

}  // namespace wgrt::ops
