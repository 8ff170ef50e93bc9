// GPU buffers for a graph's tensors (seed 000): intermediates with the same
// mem_obj_id share one buffer sized to the largest of them; inputs, outputs,
// constants and intermediates without an id get their own. Each buffer has
// exactly one owner here and is released once.
//
// A constant larger than the device's binding limit
// (gpu::Device::split_bytes()) is stored in several buffers, each a
// run of whole rows (its first dim), so that every segment can be bound: the
// ops that read such weights (embeddings, GGUF linears and the output head)
// record one dispatch per segment (OpContext::segments). Nothing is held
// twice: the segments together are the tensor's bytes. Any other tensor
// above the device's limits is refused at load, naming it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gpu/buffer.h"
#include "graph/graph.h"
#include "wgrt/memory_stats.h"

namespace wgrt {

namespace gpu {
class Device;
}

// One run of rows of a constant stored in several buffers.
struct TensorSegment {
  const gpu::Buffer* buffer = nullptr;
  int64_t first_row = 0;
  int64_t rows = 0;
};

class MemoryPlan {
 public:
  // Pass 1 sizes each shared object, pass 2 creates the buffers and uploads
  // constants. Throws Error(OutOfMemory) naming the tensor; what was created
  // so far is released.
  static MemoryPlan create(gpu::Device& device, const Graph& graph,
                           const std::function<void(uint64_t, uint64_t)>& on_upload = {});

  // The buffer behind a tensor value (shared or its own).
  const gpu::Buffer& buffer(ValueId id) const;
  bool has_buffer(ValueId id) const { return id < by_value_.size() && by_value_[id] != nullptr; }
  // Whether a constant is stored in several buffers (and so has no buffer()).
  bool is_segmented(ValueId id) const { return id < segment_index_.size() && segment_index_[id] >= 0; }
  // The buffers of a tensor by runs of rows: one covering every row for a
  // tensor in one buffer, several for a segmented constant.
  std::vector<TensorSegment> segments(ValueId id, const Tensor& t) const;

  // Fills the tensor, constant and sharing figures of `stats`.
  void add_to(MemoryStats& stats) const;

 private:
  std::vector<gpu::Buffer> shared_;     // index = mem_obj_id
  std::vector<gpu::Buffer> dedicated_;  // inputs, outputs, unshared intermediates
  std::vector<gpu::Buffer> constants_;
  std::vector<const gpu::Buffer*> by_value_;
  // Segmented constants: segment_index_[id] indexes segmented_ (-1: not one).
  struct Segmented {
    std::vector<gpu::Buffer> buffers;
    int64_t rows_per_buffer = 0;
    int64_t rows = 0;
  };
  std::vector<Segmented> segmented_;
  void add_segmented(gpu::Device& device, ValueId id, const Tensor& t, const std::string& what);
  std::vector<int32_t> segment_index_;
  uint64_t unaliased_tensor_bytes_ = 0;
  uint64_t state_bytes_ = 0;  // StorageKind::State buffers (KV caches)
};

// Converts one tensor's host bytes to its device layout (I64 -> I32) and back.
std::vector<uint8_t> to_device_layout(DType dtype, std::span<const uint8_t> host, const std::string& what);
// Takes the bytes by value: every dtype but I64 returns them as they are.
std::vector<uint8_t> to_host_layout(DType dtype, std::vector<uint8_t> device);

}  // namespace wgrt
