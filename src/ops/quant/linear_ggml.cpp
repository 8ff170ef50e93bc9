// wgrt.linear_ggml (x [..., K] f32, weight u8 [N, row bytes] in a ggml block
// format laid out by quant_layout.h, ggml type id, bias [N] or Null, out
// [..., N]): the linear layers of GGUF models with weights as stored.
//
// Two dispatches are recorded: a GEMV for decode (M = 1: lanes of a
// workgroup share weight rows and reduce) and a tiled GEMM for prefill (32 x 64
// output tiles through workgroup memory); the hook gives the one that fits
// the live M its workgroups and the other none.
#include <algorithm>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/quant/weight_prep.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;
constexpr uint32_t kTileM = 32, kTileN = 64;  // TILE_M, TILE_N in linear.wgsl

// Threads per weight row: about one 32-element unit each, at most 32 (short
// rows would leave lanes idle), a power of two for the tree reduction. 64
// lanes measured 6% slower than 32 on the H200 for K = 2048
// (bench/RESULTS.md), so 32 is the cap.
uint32_t lanes_for(uint32_t k) {
  const uint32_t units = k / 32;
  return units >= 32 ? 32 : units >= 16 ? 16 : 8;
}

struct LinearParams {
  uint32_t m = 0, n = 0, k = 0, row_words = 0;
};
static_assert(sizeof(LinearParams) == 16, "must match Params in linear.wgsl");

void check(const OpArgs& args) {
  args.expect_count(5);
  const Tensor& x = args.tensor(0, {DType::F32});
  args.expect_rank_at_least(0, 1);
  const Tensor& w = args.tensor(1, {DType::U8});
  args.expect_rank(1, 2);
  const int64_t type = args.integer(2);
  const QuantLayout* layout = find_quant_layout(static_cast<uint32_t>(type));
  if (layout == nullptr) args.unsupported(2, "ggml type " + std::to_string(type) + " has no GPU kernel");
  const int64_t k = x.max_dims.back();
  if (k % layout->block_elems != 0 || k % 32 != 0) {
    args.fail(0, "last dim " + std::to_string(k) + " is not a whole number of " + std::to_string(layout->block_elems) +
                     "-element blocks");
  }
  if (!ggml_rows_fit(*layout, w, k)) {
    args.fail(1, "expected rows of " + std::to_string(gpu_row_bytes(*layout, k)) + " bytes for K = " +
                     std::to_string(k) + ", got " + std::to_string(w.max_dims[1]));
  }
  const int64_t n = w.max_dims[0];
  if (!args.is_null(3)) {
    const Tensor& b = args.tensor(3, {DType::F32});
    if (b.max_dims != Dims{n}) args.fail(3, "expected bias shape [" + std::to_string(n) + "], got " + dims_string(b.max_dims));
  }
  const Tensor& out = args.tensor(4, {DType::F32});
  Dims want = x.max_dims;
  want.back() = n;
  if (out.max_dims != want) args.fail(4, "expected shape " + dims_string(want) + ", got " + dims_string(out.max_dims));
}

void prepare(ConstantPrep& prep) {
  prepare_ggml_weight(prep, 1, 2, prep.args().tensor(0).max_dims.back());
}

void lower(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId x = ctx.arg(0), w = ctx.arg(1), out = ctx.arg(4);
  const bool has_bias = !args.is_null(3);
  const ValueId bias = has_bias ? ctx.arg(3) : x;  // any buffer fills an unused binding
  const QuantLayout& layout = *find_quant_layout(static_cast<uint32_t>(args.integer(2)));
  const uint32_t n = static_cast<uint32_t>(ctx.max_dims(w)[0]);
  const uint32_t row_words = static_cast<uint32_t>(ctx.max_dims(w)[1] / 4);
  const uint32_t lanes = lanes_for(static_cast<uint32_t>(ctx.max_dims(x).back()));
  const uint32_t rows_per_group = kWorkgroup / lanes;

  gpu::OverrideConstants constants = decode_constants(layout);
  constants.insert(constants.end(), {{"LANES", lanes}, {"ROWS", rows_per_group}, {"HAS_BIAS", has_bias ? 1.0 : 0.0}});
  auto make = [&](const char* entry) -> const gpu::ComputePipeline& {
    return ctx.pipeline({"quant/dequant.wgsl", "quant/linear.wgsl"}, entry, constants);
  };
  const UniformId u = ctx.uniform(sizeof(LinearParams));
  const auto bindings = {ctx.tensor(x), ctx.tensor(w), ctx.tensor(bias), ctx.tensor(out), ctx.uniform_binding(u)};
  const DispatchId gemv = ctx.dispatch(make("main"), bindings, "linear_ggml gemv");
  const DispatchId gemm = ctx.dispatch(make("main_tiled"), bindings, "linear_ggml gemm");
  ctx.on_resize({x}, [=](ResizeContext& r) {
    Dims dims = r.dims(x);
    const uint32_t k = static_cast<uint32_t>(dims.back());
    const uint32_t m = static_cast<uint32_t>(k == 0 ? 0 : numel(dims) / k);
    dims.back() = n;
    r.set_dims(out, dims);
    r.write_uniform(u, LinearParams{m, n, k, row_words});
    const uint64_t row_groups = gpu::div_up(n, rows_per_group);
    const bool decode = m <= 1;
    r.set_workgroups(gemv, decode ? r.fold(row_groups * m) : gpu::WorkgroupCount{0, 1, 1});
    r.set_workgroups(gemm, decode ? gpu::WorkgroupCount{0, 1, 1}
                                  : r.fold(gpu::div_up(n, kTileN) * gpu::div_up(m, kTileM)));
  });
}

}  // namespace

void register_linear_ggml(OpRegistry& registry) {
  registry.add("wgrt.linear_ggml", {check, lower, false, prepare, "f32 (GGML-quantized weights)"});
}

}  // namespace wgrt::ops
