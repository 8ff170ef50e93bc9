// aten.convolution.default (x, weight, bias or Null, stride, padding,
// dilation, transposed, output_padding, groups, out) and
// et_vk.conv_with_clamp.default (the same, then output_min, output_max, out)
// and wgrt.conv2d_fused (the same, then a residual of the output's shape
// added before the clamp, then out: made by the fusion pass from a
// convolution, the add of its result and a following relu or hardtanh):
// f32, 2D on [N, C, H, W] or 1D on [N, C, L] (run as height 1), regular or
// transposed, grouped. Depthwise convolutions (one input channel per group,
// not transposed) take conv2d.wgsl's main_depthwise. The others take
// conv_igemm.wgsl's implicit GEMM when their weight is a constant (prepacked
// at load, see pack_weight), else conv2d.wgsl's main_gemm; WGRT_CONV=direct
// keeps every convolution on the kernels before conv_igemm (main_gemm, and
// main_depthwise's loop over the window) for A/B; WGRT_CONV=nosplit runs
// conv_igemm without split-K; WGRT_CONV=dwloop keeps only the depthwise loop.
// N, H and W may change at run time; channels may not.
// A constant weight above the binding limit (graph/memory_plan.h) comes in
// runs of output channels: it is left unpacked (conv_igemm reads only whole
// weights) and main_gemm / main_depthwise record a dispatch per run (main_gemm:
// per run's part in one group where a run starts or ends mid-group, else the
// run's whole groups), each writing its channels. A transposed convolution's
// weight rows are input channels, its reduction: refused (NotSupported).
#include "gpu/device.h"
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/conv/window.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>

namespace wgrt::ops {
namespace {

// Mirrors `Params` in conv_params.wgsl (every convolution kernel's).
struct ConvParams {
  uint32_t n, cin, h, w;
  uint32_t cout, oh, ow, groups;
  uint32_t kh, kw;
  int32_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
  uint32_t cin_g, cout_g, k_total, m_total;
  float out_min, out_max;
  uint32_t row_tiles, chunks;  // main_depthwise's 4-pixel tiles a row; main_igemm's 16-channel chunks
  uint32_t splits, slices_per_split, cout_g4, pad;  // main_igemm only
  uint32_t g0, co0, co_count, w_row0;               // the dispatch's output channels (conv_params.wgsl)
};
static_assert(sizeof(ConvParams) == 128, "must match Params in conv_params.wgsl");

constexpr uint32_t kDepthwiseWorkgroup = 64;  // WG of conv2d.wgsl's main_depthwise
constexpr uint32_t kReduceWorkgroup = 256;    // WG of conv_igemm.wgsl's main_reduce
constexpr uint32_t kTile = 64;    // main_gemm's and main_igemm's output tile edge (pixels and channels)
constexpr int64_t kChunk = 16;    // main_igemm's input channels per reduction slice
// Split-K until about `fill` workgroups run, keeping each split at least
// `min_slices` slices deep (Tuning::conv_split_fill, conv_split_min_slices).
// On the H200 (bench/RESULTS.md, third run) 512,4 gave the best wall time on
// both vision programs: MobileNet V2 0.89 ms and ResNet-18 0.97 ms, against
// 0.97 / 1.02 with 256,8 and 0.89 / 1.01 with 1024,4.
struct SplitPolicy {
  uint64_t fill = 512;
  uint32_t min_slices = 4;
};

SplitPolicy split_policy(const Tuning& tuning) { return {tuning.conv_split_fill, tuning.conv_split_min_slices}; }

// Which of the three ops: they differ only in their trailing arguments.
enum class ConvOp { Plain, Clamp, Fused };

struct ConvArgs {
  size_t spatial = 2;  // 1 for conv1d
  std::array<int64_t, 2> stride{}, pad{}, dil{}, out_pad{};
  bool transposed = false;
  int64_t groups = 1;
  float out_min = -std::numeric_limits<float>::infinity();
  float out_max = std::numeric_limits<float>::infinity();
  size_t out_arg = 9;
  int residual_arg = -1;  // wgrt.conv2d_fused's
  // The weight's geometry, whichever layout it is in.
  int64_t cout = 0, cin_g = 0, kh = 1, kw = 1;
  bool packed = false;  // the weight is pack_weight's layout
};

// The packed weight: [groups, kh, kw, cin_g padded to kChunk, cout_g padded
// to 4], as conv_igemm.wgsl reads it (rank 5, which no NCHW weight has).
constexpr size_t kPackedRank = 5;

// 1x1, stride 1, no padding, not transposed: the im2col matrix is the input.
bool pointwise(const ConvArgs& c) {
  return c.kh == 1 && c.kw == 1 && !c.transposed && c.stride == std::array<int64_t, 2>{1, 1} &&
         c.pad == std::array<int64_t, 2>{0, 0};
}

bool depthwise(const ConvArgs& c) { return !c.transposed && c.cin_g == 1; }

// main_depthwise's ROW3 form: 3 wide, undilated, stride 1 or 2 across (not
// under Tuning::conv_kernel Direct or DepthwiseLoop, which keep the loop
// over the window).
bool row3(const ConvArgs& c, ConvKernel k) {
  return c.kw == 3 && c.dil[1] == 1 && (c.stride[1] == 1 || c.stride[1] == 2) && k != ConvKernel::Direct &&
         k != ConvKernel::DepthwiseLoop;
}

// Whether conv_igemm runs this convolution (given a packed weight). Below 8
// input channels a group (an RGB stem) most of each 16-channel slice would be
// padding: on the H200 ResNet-18's 7x7 stem took 122 us there, 43 us on main_gemm.
constexpr int64_t kMinIgemmChannels = 8;
bool igemm_eligible(const ConvArgs& c) { return !c.transposed && !depthwise(c) && c.cin_g >= kMinIgemmChannels; }

// Reads and checks everything but the output shape; shared by check, prepare and lower.
ConvArgs read_args(const OpArgs& args, ConvOp op) {
  ConvArgs c;
  c.out_arg = op == ConvOp::Plain ? 9 : op == ConvOp::Clamp ? 11 : 12;
  args.expect_count(c.out_arg + 1);
  const Tensor& x = args.tensor(0, {DType::F32});
  if (x.max_dims.size() != 3 && x.max_dims.size() != 4) {
    args.fail(0, "expected a 3D (conv1d) or 4D (conv2d) input, got " + dims_string(x.max_dims));
  }
  c.spatial = x.max_dims.size() - 2;
  const Tensor& w = args.tensor(1, {DType::F32});
  c.packed = w.max_dims.size() == kPackedRank;
  if (w.max_dims.size() != x.max_dims.size() && !c.packed) {
    args.fail(1, "expected a weight of rank " + std::to_string(x.max_dims.size()) + ", got " + dims_string(w.max_dims));
  }
  c.stride = window_pair(args, 3, c.spatial, 1, 1, "stride");
  c.pad = window_pair(args, 4, c.spatial, 0, 0, "padding");
  c.dil = window_pair(args, 5, c.spatial, 1, 1, "dilation");
  c.transposed = args.boolean(6);
  c.out_pad = window_pair(args, 7, c.spatial, 0, 0, "output_padding");
  c.groups = args.integer(8);
  if (c.groups < 1) args.fail(8, "groups " + std::to_string(c.groups) + " is below 1");
  if (!c.transposed && (c.out_pad[0] != 0 || c.out_pad[1] != 0)) {
    args.fail(7, "output_padding " + dims_string(args.int_list(7)) + " on a convolution that is not transposed");
  }
  const int64_t cin = x.max_dims[1];
  if (cin % c.groups != 0) args.fail(8, "groups " + std::to_string(c.groups) + " does not divide " + std::to_string(cin) + " input channels");
  const Dims& wd = w.max_dims;
  if (c.packed) {
    // Only pack_weight makes this layout; the output tensor keeps cout.
    const Tensor& out = args.tensor(c.out_arg, {DType::F32});
    c.cin_g = cin / c.groups;
    c.kh = wd[1], c.kw = wd[2];
    c.cout = out.max_dims.size() > 1 ? out.max_dims[1] : 0;
    if (c.transposed || wd[0] != c.groups || wd[3] != (c.cin_g + kChunk - 1) / kChunk * kChunk ||
        c.cout % c.groups != 0 || wd[4] != (c.cout / c.groups + 3) / 4 * 4 || (c.spatial == 1 && c.kh != 1)) {
      args.fail(1, "packed weight " + dims_string(wd) + " does not fit this convolution");
    }
  } else {
    c.kh = c.spatial == 2 ? wd[2] : 1;
    c.kw = wd.back();
    c.cout = c.transposed ? wd[1] * c.groups : wd[0];
    c.cin_g = c.transposed ? wd[0] / c.groups : wd[1];
    if ((c.transposed ? wd[0] : wd[1] * c.groups) != cin || c.cin_g * c.groups != cin) {
      args.fail(1, "weight " + dims_string(wd) + " does not fit " + std::to_string(cin) + " input channels in " +
                       std::to_string(c.groups) + " groups");
    }
    if (!c.transposed && wd[0] % c.groups != 0) {
      args.fail(1, "weight " + dims_string(wd) + ": output channels not divisible by groups " + std::to_string(c.groups));
    }
  }
  if (!args.is_null(2)) {
    const Tensor& b = args.tensor(2, {DType::F32});
    if (b.max_dims != Dims{c.cout}) args.fail(2, "expected bias shape [" + std::to_string(c.cout) + "], got " + dims_string(b.max_dims));
  }
  if (op != ConvOp::Plain) {
    if (!args.is_null(9)) c.out_min = static_cast<float>(args.number(9));
    if (!args.is_null(10)) c.out_max = static_cast<float>(args.number(10));
  }
  const Tensor& out = args.tensor(c.out_arg, {DType::F32});
  if (op == ConvOp::Fused) {
    c.residual_arg = 11;
    const Tensor& r = args.tensor(11, {DType::F32});
    if (r.max_dims != out.max_dims) {
      args.fail(11, "residual shape " + dims_string(r.max_dims) + " is not the output's " + dims_string(out.max_dims));
    }
  }
  return c;
}

// The output shape for an input of shape `x`.
Dims out_dims(const ConvArgs& c, const Dims& x) {
  const size_t s = c.spatial;
  const int64_t h = s == 2 ? x[2] : 1, wd = x.back();
  auto size = [&](int64_t in, int64_t k, int d) {
    return c.transposed ? transposed_out_size(in, k, c.stride[d], c.pad[d], c.dil[d], c.out_pad[d])
                        : window_out_size(in, k, c.stride[d], c.pad[d], c.dil[d], false);
  };
  Dims out = {x[0], c.cout};
  if (s == 2) out.push_back(size(h, c.kh, 0));
  out.push_back(size(wd, c.kw, 1));
  return out;
}

void check(const OpArgs& args, ConvOp op) {
  const ConvArgs c = read_args(args, op);
  const Dims want = out_dims(c, args.tensor(0).max_dims);
  for (int64_t d : want) {
    if (d < 1) args.fail(c.out_arg, "the window does not fit the input " + dims_string(args.tensor(0).max_dims));
  }
  if (args.tensor(c.out_arg).max_dims != want) {
    args.fail(c.out_arg, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(c.out_arg).max_dims));
  }
}

// Re-lays a constant [cout, cin_g, kh, kw] weight out as [groups, kh, kw,
// cin_g padded to kChunk, cout_g padded to 4] (zeros in the padding), so a
// slice of conv_igemm reads whole vec4s of output channels.
void pack_weight(ConstantPrep& prep, ConvOp op) {
  const ConvArgs c = read_args(prep.args(), op);
  if (c.packed || !igemm_eligible(c) || prep.tuning().conv_kernel == ConvKernel::Direct) return;
  if (prep.args().tensor(1).storage != StorageKind::Constant) return;  // main_gemm reads it as it is
  const Tensor& w = prep.constant(1);
  const int64_t cout_g = c.cout / c.groups, cin_p = (c.cin_g + kChunk - 1) / kChunk * kChunk;
  const int64_t cout_p = (cout_g + 3) / 4 * 4, window = c.kh * c.kw;
  const Dims packed = {c.groups, c.kh, c.kw, cin_p, cout_p};
  // Above the binding limit the weight is stored in runs of its first dim:
  // main_gemm reads [cout, ...] runs of output channels; the packed layout's
  // first dim (groups) cannot be cut so.
  if (uint64_t(numel(packed)) * sizeof(float) > prep.max_binding_bytes()) return;
  std::vector<float> dst(size_t(numel(packed)), 0.0f);
  const auto* src = reinterpret_cast<const float*>(w.bytes.data());
  for (int64_t g = 0; g < c.groups; ++g) {
    for (int64_t co = 0; co < cout_g; ++co) {
      for (int64_t ci = 0; ci < c.cin_g; ++ci) {
        for (int64_t k = 0; k < window; ++k) {
          dst[size_t(((g * window + k) * cin_p + ci) * cout_p + co)] = src[((g * cout_g + co) * c.cin_g + ci) * window + k];
        }
      }
    }
  }
  std::vector<uint8_t> bytes(dst.size() * sizeof(float));
  std::memcpy(bytes.data(), dst.data(), bytes.size());
  prep.replace_constant(1, packed, std::move(bytes));
}

ConvParams params_for(const ConvArgs& c, const Dims& xd, const Dims& od) {
  ConvParams p{};
  p.n = uint32_t(xd[0]);
  p.cin = uint32_t(xd[1]);
  p.h = uint32_t(c.spatial == 2 ? xd[2] : 1);
  p.w = uint32_t(xd.back());
  p.cout = uint32_t(od[1]);
  p.oh = uint32_t(c.spatial == 2 ? od[2] : 1);
  p.ow = uint32_t(od.back());
  p.groups = uint32_t(c.groups);
  p.kh = uint32_t(c.kh);
  p.kw = uint32_t(c.kw);
  p.stride_h = int32_t(c.stride[0]), p.stride_w = int32_t(c.stride[1]);
  p.pad_h = int32_t(c.pad[0]), p.pad_w = int32_t(c.pad[1]);
  p.dil_h = int32_t(c.dil[0]), p.dil_w = int32_t(c.dil[1]);
  p.cin_g = uint32_t(c.cin_g);
  p.cout_g = p.cout / p.groups;
  p.k_total = p.cin_g * p.kh * p.kw;
  p.m_total = p.n * p.oh * p.ow;
  p.out_min = c.out_min, p.out_max = c.out_max;
  p.co_count = p.cout_g;  // every channel of every group (main_depthwise's: see lower)
  return p;
}

// A fused residual must have the output's live shape (the add it replaces
// did not broadcast at the maximum shapes, and must not at live ones).
void check_residual(const Dims* residual, const Dims& out) {
  if (residual != nullptr && *residual != out) {
    throw Error(ErrorCode::InvalidArgument, "wgrt.conv2d_fused: residual shape " + dims_string(*residual) +
                                                " is not the output's " + dims_string(out));
  }
}

// How many contiguous slice ranges split the reduction of a convolution whose
// tiles make `tiles` workgroups over `slices` slices (1: no split-K).
uint32_t split_count(const SplitPolicy& policy, uint64_t tiles, uint32_t slices) {
  if (tiles >= policy.fill / 2) return 1;
  const uint64_t want = gpu::div_up(policy.fill, tiles);
  return uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(want, slices / policy.min_slices)));
}

void lower_igemm(OpContext& ctx, const ConvArgs& c, bool has_bias) {
  const OpArgs& args = ctx.args();
  const ValueId x = ctx.arg(0), w = ctx.arg(1), out = ctx.arg(c.out_arg);
  const bool split_k = ctx.tuning().conv_kernel != ConvKernel::IgemmNoSplit;
  const gpu::OverrideConstants constants = {{"HAS_BIAS", has_bias ? 1.0 : 0.0},
                                            {"HAS_RESIDUAL", c.residual_arg >= 0 ? 1.0 : 0.0},
                                            {"POINTWISE", pointwise(c) ? 1.0 : 0.0}};
  const auto& gemm = ctx.pipeline("conv/conv_igemm.wgsl", "main_igemm", constants);
  gpu::OverrideConstants reduce_constants = constants;
  reduce_constants.emplace_back("WG", kReduceWorkgroup);
  const auto& reduce = ctx.pipeline("conv/conv_igemm.wgsl", "main_reduce", reduce_constants);
  const uint32_t chunks = uint32_t(gpu::div_up(uint64_t(c.cin_g), uint64_t(kChunk)));
  const uint32_t slices = uint32_t(c.kh * c.kw) * chunks;
  // Partial sums for the split count of the largest shape.
  const Dims max_out = out_dims(c, ctx.max_dims(x));
  const uint64_t max_m = uint64_t(numel(max_out)) / uint64_t(c.cout);
  const uint64_t max_tiles = gpu::div_up(max_m, kTile) * gpu::div_up(uint64_t(c.cout / c.groups), kTile) * uint64_t(c.groups);
  const SplitPolicy policy = split_policy(ctx.tuning());
  const uint32_t max_splits = split_k ? split_count(policy, max_tiles, slices) : 1;
  const uint64_t part_floats = max_splits > 1 ? uint64_t(max_splits) * uint64_t(c.cout) * max_m : 1;
  const gpu::BufferBinding part = ctx.scratch(part_floats * sizeof(float), "conv split-K partial sums");
  const UniformId u = ctx.uniform(sizeof(ConvParams));
  // The weight stands in for an absent bias (never read).
  const gpu::BufferBinding b = ctx.tensor(has_bias ? args.id(2) : w), o = ctx.tensor(out), pu = ctx.uniform_binding(u);
  // x stands in for an absent residual (never read).
  const ValueId res_id = c.residual_arg >= 0 ? ctx.arg(size_t(c.residual_arg)) : x;
  const gpu::BufferBinding res = ctx.tensor(res_id);
  const DispatchId d_gemm = ctx.dispatch(gemm, {b, o, part, pu, res, ctx.tensor(x), ctx.tensor(w)});
  const DispatchId d_reduce = ctx.dispatch(reduce, {b, o, part, pu, res}, "conv split-K reduce");
  ctx.on_resize({x, res_id}, [=](ResizeContext& r) {
    const Dims& xd = r.dims(x);
    const Dims od = out_dims(c, xd);
    check_residual(res_id != x ? &r.dims(res_id) : nullptr, od);
    r.set_dims(out, od);
    ConvParams p = params_for(c, xd, od);
    p.chunks = chunks;
    p.cout_g4 = uint32_t(gpu::div_up(p.cout_g, 4));
    const uint64_t tiles = gpu::div_up(p.m_total, kTile) * gpu::div_up(p.cout_g, kTile) * p.groups;
    uint32_t splits = split_k ? split_count(policy, tiles, slices) : 1;
    // Never more partial sums than the scratch holds (shapes below the maximum).
    while (splits > 1 && uint64_t(splits) * p.cout * p.m_total > part_floats) --splits;
    p.slices_per_split = uint32_t(gpu::div_up(slices, splits));
    p.splits = uint32_t(gpu::div_up(slices, p.slices_per_split));
    r.write_uniform(u, p);
    r.set_workgroups(d_gemm, {uint32_t(gpu::div_up(p.m_total, kTile)), uint32_t(gpu::div_up(p.cout_g, kTile)),
                              p.groups * p.splits});
    r.set_workgroups(d_reduce, p.splits > 1 ? r.fold(gpu::div_up(uint64_t(p.cout) * p.m_total, kReduceWorkgroup)) : gpu::WorkgroupCount{0, 0, 0});
  });
}

// One dispatch's output channels (ConvParams g0 .. w_row0): main_gemm's
// `groups` groups from g0, channels co0 .. co0 + co_count of each;
// main_depthwise's channels co0 .. co0 + co_count (groups unused). The
// weight binding starts at output channel w_row0.
struct ConvPiece {
  uint32_t g0 = 0, groups = 0, co0 = 0, co_count = 0, w_row0 = 0;
  UniformId u = 0;
  DispatchId d = 0;
};

// The pieces of a run of output channels [c0, end) of the weight: one per
// part of a group where the run starts or ends mid-group, one for the whole
// groups between (one piece of every group when the weight is whole).
std::vector<ConvPiece> gemm_pieces(uint32_t c0, uint32_t end, uint32_t cout_g) {
  std::vector<ConvPiece> pieces;
  for (uint32_t c = c0; c < end;) {
    ConvPiece piece;
    piece.g0 = c / cout_g;
    piece.w_row0 = c0;
    piece.co0 = c % cout_g;
    if (piece.co0 != 0 || end - c < cout_g) {
      piece.groups = 1;
      piece.co_count = std::min(cout_g - piece.co0, end - c);
      c += piece.co_count;
    } else {
      piece.groups = (end - c) / cout_g;
      piece.co_count = cout_g;
      c += piece.groups * cout_g;
    }
    pieces.push_back(piece);
  }
  return pieces;
}

void lower(OpContext& ctx, ConvOp op) {
  const OpArgs& args = ctx.args();
  const ConvArgs c = read_args(args, op);
  const bool has_bias = !args.is_null(2);
  if (c.packed) return lower_igemm(ctx, c, has_bias);
  const ValueId x = ctx.arg(0), w = ctx.arg(1), out = ctx.arg(c.out_arg);
  const bool dw = depthwise(c);
  const std::vector<TensorSegment> runs = ctx.segments(w);
  if (runs.size() > 1 && c.transposed) {
    const Tensor& t = ctx.tensor_info(w);
    throw Error(ErrorCode::NotSupported,
                ctx.call().name + ": argument 1 (transposed convolution weight " + dims_string(t.max_dims) + ", " +
                    std::to_string(t.max_device_bytes()) + " bytes) is above the device's binding limit of " +
                    std::to_string(ctx.device().split_bytes()) +
                    " bytes; its rows are input channels, a split of the reduction, which this op does not "
                    "accumulate across buffers");
  }
  const auto& pipeline =
      dw ? ctx.pipeline("conv/conv2d.wgsl", "main_depthwise",
                        {{"WG", kDepthwiseWorkgroup}, {"HAS_BIAS", has_bias ? 1.0 : 0.0}, {"ROW3", row3(c, ctx.tuning().conv_kernel) ? 1.0 : 0.0},
                         {"HAS_RESIDUAL", c.residual_arg >= 0 ? 1.0 : 0.0}})
         : ctx.pipeline("conv/conv2d.wgsl", "main_gemm",
                        {{"TRANSPOSED", c.transposed ? 1.0 : 0.0}, {"HAS_BIAS", has_bias ? 1.0 : 0.0},
                         {"HAS_RESIDUAL", c.residual_arg >= 0 ? 1.0 : 0.0},
                         {"POINTWISE", pointwise(c) ? 1.0 : 0.0}});
  // The weight stands in for an absent bias, x for an absent residual (never read).
  const ValueId res_id = c.residual_arg >= 0 ? ctx.arg(size_t(c.residual_arg)) : x;
  const gpu::BufferBinding bias = has_bias ? ctx.tensor(ctx.arg(2)) : gpu::BufferBinding{runs[0].buffer};
  const uint32_t cout_g = uint32_t(c.cout / c.groups);
  std::vector<ConvPiece> pieces;
  for (const TensorSegment& run : runs) {
    const uint32_t c0 = uint32_t(run.first_row), end = uint32_t(run.first_row + run.rows);
    std::vector<ConvPiece> part =
        dw ? std::vector<ConvPiece>{{0, 0, c0, end - c0, c0}} : gemm_pieces(c0, end, cout_g);
    for (ConvPiece& piece : part) {
      piece.u = ctx.uniform(sizeof(ConvParams));
      piece.d = ctx.dispatch(pipeline, {ctx.tensor(x), gpu::BufferBinding{run.buffer}, bias, ctx.tensor(out),
                                        ctx.uniform_binding(piece.u), ctx.tensor(res_id)});
      pieces.push_back(piece);
    }
  }
  ctx.on_resize({x, res_id}, [=](ResizeContext& r) {
    const Dims& xd = r.dims(x);
    const Dims od = out_dims(c, xd);
    check_residual(res_id != x ? &r.dims(res_id) : nullptr, od);
    r.set_dims(out, od);
    ConvParams p = params_for(c, xd, od);
    p.row_tiles = uint32_t(gpu::div_up(p.ow, 4));
    for (const ConvPiece& piece : pieces) {
      p.g0 = piece.g0, p.co0 = piece.co0, p.co_count = piece.co_count, p.w_row0 = piece.w_row0;
      r.write_uniform(piece.u, p);
      if (dw) {
        r.set_workgroups(piece.d,
                         r.fold(gpu::div_up(uint64_t(p.n) * p.co_count * p.oh * p.row_tiles, kDepthwiseWorkgroup)));
      } else {
        r.set_workgroups(piece.d, {uint32_t(gpu::div_up(p.m_total, kTile)), uint32_t(gpu::div_up(p.co_count, kTile)),
                                   piece.groups});
      }
    }
  });
}

}  // namespace

void register_conv(OpRegistry& registry) {
  for (const auto& [name, kind] : {std::pair{"aten.convolution.default", ConvOp::Plain},
                                   std::pair{"et_vk.conv_with_clamp.default", ConvOp::Clamp},
                                   std::pair{"wgrt.conv2d_fused", ConvOp::Fused}}) {
    const ConvOp op = kind;  // a copy: clang 15 cannot capture a structured binding
    OpDef def{[op](const OpArgs& a) { check(a, op); }, [op](OpContext& c) { lower(c, op); }};
    def.prepare = [op](ConstantPrep& p) { pack_weight(p, op); };
    registry.add(name, std::move(def));
  }
}

}  // namespace wgrt::ops
