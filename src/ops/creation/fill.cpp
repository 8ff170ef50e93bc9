#include "ops/creation/fill.h"

#include <cstring>

#include "gpu/workgroups.h"

namespace wgrt::ops {

bool fillable(DType t) { return t == DType::F32 || t == DType::I32 || t == DType::I64 || t == DType::Bool; }

Fill record_fill(OpContext& ctx, ValueId out, double value) {
  Fill f;
  f.dtype = ctx.tensor_info(out).dtype;
  if (f.dtype == DType::F32) {
    const float v = static_cast<float>(value);
    std::memcpy(&f.bits, &v, 4);
  } else if (f.dtype == DType::Bool) {
    f.bits = value != 0 ? 0x01010101u : 0u;
  } else {
    f.bits = static_cast<uint32_t>(static_cast<int32_t>(value));
  }
  f.uniform = ctx.uniform(sizeof(FillParams));
  f.dispatch = ctx.dispatch(ctx.pipeline("creation/fill.wgsl", "main", {{"WG", kFillWorkgroup}, {"MODE", 0}}),
                            {ctx.tensor(out), ctx.uniform_binding(f.uniform)});
  return f;
}

void write_fill(ResizeContext& r, const Fill& fill, const Dims& dims) {
  FillParams p;
  const uint64_t bytes = uint64_t(numel(dims)) * device_size(fill.dtype);
  p.words = static_cast<uint32_t>(gpu::div_up(bytes, 4));
  p.bits = fill.bits;
  r.write_uniform(fill.uniform, p);
  r.set_workgroups(fill.dispatch, r.fold(gpu::div_up(p.words, kFillWorkgroup)));
}

}  // namespace wgrt::ops
