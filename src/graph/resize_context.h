// The run-time view a resize hook gets: live shapes and symbolic ints to
// read, and the outputs, workgroup counts and uniforms it may rewrite.
// Buffers and bind groups never change here (seed 004): a hook that would
// need a bigger buffer is a bug, reported as Error(Internal).
#pragma once

#include <cstdint>

#include "graph/graph_state.h"

namespace wgrt {

namespace gpu {
class Device;
}

class ResizeContext {
 public:
  ResizeContext(gpu::Device& device, GraphState& state) : device_(device), state_(state) {}

  const Dims& dims(ValueId id) const { return state_.graph.tensor(id).cur_dims; }
  const Dims& max_dims(ValueId id) const { return state_.graph.tensor(id).max_dims; }
  // An Int or SymInt value (a SymInt's current value).
  int64_t integer(ValueId id) const;

  // The host bytes (host layout) of a graph input during execute; empty when
  // the input came from a device buffer. Only for inputs passed to
  // OpContext::watch_input_data.
  std::span<const uint8_t> host_input(ValueId id) const;

  // Sets a tensor's live shape (rank fixed, each dim <= its maximum) and
  // marks it changed when it differs, so hooks depending on it fire.
  void set_dims(ValueId id, const Dims& dims);
  void set_symint(ValueId id, int64_t value);
  void set_workgroups(DispatchId d, gpu::WorkgroupCount count);
  // Folds a linear workgroup count into {x, y} within the device's limit.
  gpu::WorkgroupCount fold(uint64_t workgroups) const;
  void write_uniform(UniformId u, const void* data, size_t bytes);
  template <typename T>
  void write_uniform(UniformId u, const T& params) {
    write_uniform(u, &params, sizeof(T));
  }

 protected:
  gpu::Device& device_;
  GraphState& state_;
};

}  // namespace wgrt
