#include "graph/resize_context.h"

#include "gpu/device.h"
#include "wgrt/error.h"

namespace wgrt {

int64_t ResizeContext::integer(ValueId id) const {
  const Value& v = state_.graph.values.at(id);
  if (const auto* x = std::get_if<int64_t>(&v)) return *x;
  if (const auto* s = std::get_if<SymInt>(&v)) return s->value;
  throw Error(ErrorCode::Internal, "value " + std::to_string(id) + " is a " + std::string(value_kind_name(v)) +
                                       ", not an int");
}

std::span<const uint8_t> ResizeContext::host_input(ValueId id) const {
  if (id >= state_.host_inputs.size()) return {};
  return state_.host_inputs[id];
}

void ResizeContext::set_dims(ValueId id, const Dims& dims) {
  Tensor& t = state_.graph.tensor(id);
  if (dims.size() != t.max_dims.size()) {
    throw Error(ErrorCode::Internal, "resize of tensor " + std::to_string(id) + " to " + dims_string(dims) +
                                         " changes its rank (max " + dims_string(t.max_dims) + ")");
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] > t.max_dims[i]) {
      throw Error(ErrorCode::Internal, "resize of tensor " + std::to_string(id) + " to " + dims_string(dims) +
                                           " exceeds its maximum " + dims_string(t.max_dims));
    }
  }
  if (t.cur_dims != dims) {
    t.cur_dims = dims;
    state_.changed[id] = 1;
  }
}

void ResizeContext::set_symint(ValueId id, int64_t value) {
  auto* s = std::get_if<SymInt>(&state_.graph.values.at(id));
  if (s == nullptr) throw Error(ErrorCode::Internal, "value " + std::to_string(id) + " is not a SymInt");
  if (s->value != value) {
    s->value = value;
    state_.changed[id] = 1;
  }
}

void ResizeContext::set_workgroups(DispatchId d, gpu::WorkgroupCount count) { state_.dispatches.at(d).count = count; }

gpu::WorkgroupCount ResizeContext::fold(uint64_t workgroups) const {
  return gpu::fold_workgroups(workgroups, device_.limits().max_compute_workgroups_per_dimension);
}

void ResizeContext::write_uniform(UniformId u, const void* data, size_t bytes) {
  state_.uniforms.write(u, data, bytes);
}

}  // namespace wgrt
