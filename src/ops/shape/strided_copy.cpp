#include "ops/shape/strided_copy.h"

#include "gpu/workgroups.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;

// Mirrors `Params` in strided_index.wgsl.
struct CopyParams {
  uint32_t count = 0;
  uint32_t rank = 0;
  uint32_t in_base = 0;
  uint32_t out_base = 0;
  uint32_t dims[kMaxCopyRank] = {};
  uint32_t in_strides[kMaxCopyRank] = {};
  uint32_t out_strides[kMaxCopyRank] = {};
};
static_assert(sizeof(CopyParams) == 112, "must match Params in strided_index.wgsl");

}  // namespace

CopyPlan CopyPlan::flat(int64_t count) { return {{count}, {1}, {1}, 0, 0}; }

bool copyable(DType t) {
  return t == DType::F32 || t == DType::I32 || t == DType::I64 || one_byte(t);
}

bool one_byte(DType t) { return t == DType::Bool || t == DType::I8 || t == DType::U8; }

StridedCopy record_strided_copy(OpContext& ctx, ValueId in, ValueId out, bool words) {
  StridedCopy c;
  c.uniform = ctx.uniform(sizeof(CopyParams));
  const bool bytes = !words && one_byte(ctx.tensor_info(in).dtype);
  const char* kernel = bytes ? "shape/strided_copy_bytes.wgsl" : "shape/strided_copy.wgsl";
  c.dispatch = ctx.dispatch(ctx.pipeline(kernel, "main", {{"WG", kWorkgroup}}),
                            {ctx.tensor(in), ctx.tensor(out), ctx.uniform_binding(c.uniform)});
  return c;
}

void write_plan(ResizeContext& r, const StridedCopy& copy, const CopyPlan& plan) {
  const size_t rank = plan.dims.size();
  if (rank > kMaxCopyRank || plan.in_strides.size() != rank || plan.out_strides.size() != rank) {
    throw Error(ErrorCode::Internal, "strided copy plan of rank " + std::to_string(rank) + " is malformed");
  }
  CopyParams p;
  p.count = static_cast<uint32_t>(numel(plan.dims));
  p.rank = static_cast<uint32_t>(rank);
  p.in_base = static_cast<uint32_t>(plan.in_base);
  p.out_base = static_cast<uint32_t>(plan.out_base);
  for (size_t d = 0; d < rank; ++d) {
    p.dims[d] = static_cast<uint32_t>(plan.dims[d]);
    p.in_strides[d] = static_cast<uint32_t>(plan.in_strides[d]);
    p.out_strides[d] = static_cast<uint32_t>(plan.out_strides[d]);
  }
  r.write_uniform(copy.uniform, p);
  r.set_workgroups(copy.dispatch, r.fold(gpu::div_up(p.count, kWorkgroup)));
}

}  // namespace wgrt::ops
