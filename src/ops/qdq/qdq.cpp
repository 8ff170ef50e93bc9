// quantized_decomposed.{quantize,dequantize}_per_{tensor,channel,token}:
// ExecuTorch's quantize / dequantize ops (qdq.wgsl has the numerics). Their
// argument lists (outputs last):
//   quantize_per_tensor.default   (x, scale, zp, qmin, qmax, dtype, out)          scale/zp scalars
//   quantize_per_tensor.tensor    (x, scale, zp, qmin, qmax, dtype, out)          one-element tensors
//   dequantize_per_tensor.*       (q, scale, zp, qmin, qmax, dtype, out_dtype, out)
//   quantize_per_channel          (x, scales, zps, axis, qmin, qmax, dtype, out)
//   dequantize_per_channel        (q, scales, zps or None, axis, qmin, qmax, dtype, out_dtype, out)
//   quantize_per_token            (x, scales, zps, qmin, qmax, dtype, out)        one scale per row
//   dequantize_per_token          (q, scales, zps, qmin, qmax, dtype, output_dtype, out)
//   torchao.quantize_affine       (x, block_size, scales, zps or None, dtype, qmin, qmax, out)
//   torchao.dequantize_affine     (q, block_size, scales, zps or None, dtype, qmin, qmax, output_dtype, out)
// The integer type is the quantized tensor's own (the dtype argument is
// serialized as None). Every dim may change at run time.
#include <cmath>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/qparams.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;  // WG in qdq/qdq.wgsl

enum class Per { Tensor, TensorArgs, Channel, Token, Block };

struct Form {
  bool quant;
  Per per;
  size_t count;  // number of arguments
  size_t qmin;   // index of quant_min (quant_max follows)
  size_t axis;   // per channel: the axis; per block: the block_size list
  size_t scale = 1;  // the zero point follows
};

struct QdqParams {
  uint32_t count = 0, inner = 1, channels = 1;
  int32_t qmin = 0, qmax = 0, zp = 0;
  float inv_scale = 0, scale = 0;
};
static_assert(sizeof(QdqParams) == 32, "must match Params in qdq.wgsl");

uint32_t int_type(DType t) { return t == DType::I8 ? 0 : t == DType::U8 ? 1 : 2; }

// The quantized tensor: the output of quantize, the input of dequantize.
size_t int_arg(const Form& f) { return f.quant ? f.count - 1 : 0; }

// torchao's block_size: blocks must be contiguous runs (1 for the leading
// dims, then at most one dim split, then whole dims), so that the block of
// element i is i / block_len. Returns block_len.
int64_t block_len(const OpArgs& args, const Form& f, const Dims& dims) {
  const IntList& block = args.int_list(f.axis);
  if (block.size() != dims.size()) {
    args.fail(f.axis, "block_size has " + std::to_string(block.size()) + " dims, the input " + std::to_string(dims.size()));
  }
  int64_t len = 1;
  bool split = false;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (block[d] < 1 || dims[d] % block[d] != 0) {
      args.fail(f.axis, "block size " + std::to_string(block[d]) + " does not divide dim " + std::to_string(d) + " (" +
                            std::to_string(dims[d]) + ")");
    }
    if (split && block[d] != dims[d]) {
      args.unsupported(f.axis, "blocks that are not contiguous (block_size " + std::to_string(block[d]) + " after a split dim)");
    }
    if (block[d] != 1) split = true;
    len *= block[d];
  }
  return len;
}

int64_t axis_of(const OpArgs& args, const Form& f, size_t rank) {
  int64_t axis = args.integer(f.axis);
  if (axis < 0) axis += static_cast<int64_t>(rank);
  if (axis < 0 || axis >= static_cast<int64_t>(rank)) {
    args.fail(f.axis, "axis " + std::to_string(args.integer(f.axis)) + " is out of range for rank " + std::to_string(rank));
  }
  return axis;
}

// Number of scales the op reads for a tensor of max dims `dims`.
int64_t param_count(const OpArgs& args, const Form& f, const Dims& dims) {
  switch (f.per) {
    case Per::Tensor:
    case Per::TensorArgs: return 1;
    case Per::Channel: return dims[axis_of(args, f, dims.size())];
    case Per::Token: return numel(dims) / (dims.empty() ? 1 : dims.back());
    case Per::Block: return numel(dims) / block_len(args, f, dims);
  }
  return 1;
}

void check_form(const OpArgs& args, const Form& f) {
  args.expect_count(f.count);
  const size_t in = 0, out = f.count - 1;
  const Tensor& x = f.quant ? args.tensor(in, {DType::F32}) : args.tensor(in, {DType::I8, DType::U8, DType::I32});
  const Tensor& y = f.quant ? args.tensor(out, {DType::I8, DType::U8, DType::I32}) : args.tensor(out, {DType::F32});
  if (y.max_dims != x.max_dims) {
    args.fail(out, "expected shape " + dims_string(x.max_dims) + ", got " + dims_string(y.max_dims));
  }
  const IntRange range = check_qrange(args, f.qmin, f.qmin + 1, args.tensor(int_arg(f)).dtype);
  if (f.per == Per::Tensor) {
    check_scale(args, 1);
    check_zero_point(args, 2, range);
    return;
  }
  if (f.per == Per::Token && x.max_dims.empty()) args.fail(in, "per-token quantization needs rank >= 1");
  const int64_t n = param_count(args, f, x.max_dims);
  check_scale_tensor(args, f.scale, n);
  if (!args.is_null(f.scale + 1)) check_zero_point_tensor(args, f.scale + 1, n, range);
}

void lower_form(OpContext& ctx, const Form& f) {
  const OpArgs& args = ctx.args();
  const ValueId in = ctx.arg(0), out = ctx.arg(f.count - 1);
  const bool tensor_params = f.per != Per::Tensor;
  const bool has_zp = !(tensor_params && args.is_null(f.scale + 1));
  const double ty = int_type(args.tensor(int_arg(f)).dtype);
  const auto& pipeline = ctx.pipeline("qdq/qdq.wgsl", "main",
                                      {{"WG", kWorkgroup}, {"QUANT", f.quant ? 1.0 : 0.0},
                                       {"INT_TYPE", ty},
                                       {"ZP_FIRST", f.per == Per::Token ? 1.0 : 0.0},
                                       {"TENSOR_PARAMS", tensor_params ? 1.0 : 0.0},
                                       {"HAS_ZP", has_zp ? 1.0 : 0.0},
                                       {"ZP_INT8", has_zp && tensor_params && args.tensor(f.scale + 1).dtype == DType::I8 ? 1.0 : 0.0}});
  const UniformId u = ctx.uniform(sizeof(QdqParams));
  // Placeholders for parameters held in Params (never read): the input itself.
  const gpu::BufferBinding scales = ctx.tensor(tensor_params ? ctx.arg(f.scale) : in);
  const gpu::BufferBinding zps = ctx.tensor(tensor_params && has_zp ? ctx.arg(f.scale + 1) : in);
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(in), scales, zps, ctx.tensor(out), ctx.uniform_binding(u)});

  QdqParams base;
  base.qmin = static_cast<int32_t>(args.whole_number(f.qmin));
  base.qmax = static_cast<int32_t>(args.whole_number(f.qmin + 1));
  if (f.per == Per::Tensor) {
    const double scale = args.number(1);
    base.scale = static_cast<float>(scale);
    base.inv_scale = static_cast<float>(1.0 / scale);  // torch: 1.0 / scale in double, used as f32
    base.zp = static_cast<int32_t>(zero_point_value(args, 2));
  }
  const int64_t axis = f.per == Per::Channel ? axis_of(args, f, ctx.max_dims(in).size()) : 0;
  const int64_t block = f.per == Per::Block ? block_len(args, f, ctx.max_dims(in)) : 1;
  const Per per = f.per;
  ctx.on_resize({in}, [=](ResizeContext& r) {
    const Dims& dims = r.dims(in);
    r.set_dims(out, dims);
    QdqParams p = base;
    p.count = static_cast<uint32_t>(numel(dims));
    if (per == Per::Channel) {
      p.channels = static_cast<uint32_t>(dims[axis]);
      p.inner = static_cast<uint32_t>(numel(Dims(dims.begin() + axis + 1, dims.end())));
    } else if (per == Per::Block) {
      p.inner = static_cast<uint32_t>(block);
      p.channels = static_cast<uint32_t>(numel(dims) / block);
    } else if (per == Per::Token) {
      p.inner = static_cast<uint32_t>(dims.back());
      p.channels = static_cast<uint32_t>(numel(dims) / std::max<int64_t>(dims.back(), 1));
    }
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(gpu::div_up(p.count, 4), kWorkgroup)));
  });
}

void add(OpRegistry& registry, const char* name, Form f) {
  registry.add(name, {[f](const OpArgs& a) { check_form(a, f); }, [f](OpContext& c) { lower_form(c, f); }, false,
                      nullptr, f.quant ? "f32 -> int8, uint8, int32" : "int8, uint8, int32 -> f32"});
}

}  // namespace

void register_qdq_ops(OpRegistry& registry) {
  add(registry, "quantized_decomposed.quantize_per_tensor.default", {true, Per::Tensor, 7, 3, 0});
  add(registry, "quantized_decomposed.quantize_per_tensor.tensor", {true, Per::TensorArgs, 7, 3, 0});
  add(registry, "quantized_decomposed.dequantize_per_tensor.default", {false, Per::Tensor, 8, 3, 0});
  add(registry, "quantized_decomposed.dequantize_per_tensor.tensor", {false, Per::TensorArgs, 8, 3, 0});
  add(registry, "quantized_decomposed.quantize_per_channel.default", {true, Per::Channel, 8, 4, 3});
  add(registry, "quantized_decomposed.dequantize_per_channel.default", {false, Per::Channel, 9, 4, 3});
  add(registry, "quantized_decomposed.quantize_per_token.default", {true, Per::Token, 7, 3, 0});
  add(registry, "quantized_decomposed.dequantize_per_token.default", {false, Per::Token, 8, 3, 0});
  // torchao: (x, block_size, scale, zp or None, dtype, qmin, qmax, out) and
  // (q, block_size, scale, zp or None, dtype, qmin, qmax, output_dtype, out)
  add(registry, "torchao.quantize_affine.default", {true, Per::Block, 8, 5, 1, 2});
  add(registry, "torchao.dequantize_affine.default", {false, Per::Block, 9, 5, 1, 2});
}

}  // namespace wgrt::ops
