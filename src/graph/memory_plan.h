// GPU buffers for a graph's tensors (seed 000): intermediates with the same
// mem_obj_id share one buffer sized to the largest of them; inputs, outputs,
// constants and intermediates without an id get their own. Each buffer has
// exactly one owner here and is released once.
//
// A tensor larger than the device's binding limit (gpu::Device::split_bytes())
// may be stored in parts, each its own buffer and small enough to bind:
// - a constant, in runs of whole rows (its first dim), as its bytes lie; the
//   ops that read such weights (embeddings, linears, the output head,
//   convolutions) record one dispatch per run (OpContext::segments);
// - a state or constant tensor (a KV cache) whose every user lists it in
//   OpDef::parts_args, along the dim they name (a cache's heads): each part
//   holds a range of that dim laid out as a tensor of its own (a constant's
//   bytes are rearranged so as they are uploaded).
// Nothing is held twice: the parts together are the tensor's bytes. Any
// other tensor above the device's limits is refused at load, naming it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gpu/buffer.h"
#include "graph/constant_upload.h"
#include "graph/graph.h"
#include "wgrt/memory_stats.h"

namespace wgrt {

namespace gpu {
class Device;
}

// One part of a tensor stored in several buffers: the range
// [first_row, first_row + rows) of dim `dim` (the first dim for constants;
// the name says rows for that common case).
struct TensorSegment {
  const gpu::Buffer* buffer = nullptr;
  int64_t first_row = 0;
  int64_t rows = 0;
  size_t dim = 0;
};

class MemoryPlan {
 public:
  // Pass 1 sizes each shared object, pass 2 creates the buffers and uploads
  // constants. `parts_dims[id]` is the dim a state or constant tensor is split
  // along when it must be, or -1: rows for a constant, none for a state
  // (OpRegistry::parts_dims; empty: all -1). Throws Error(OutOfMemory)
  // naming the tensor; what was created so far is released.
  // Constants stream to the GPU through `upload_chunk_bytes` of host memory
  // (ConstantUploader, with `upload_threads` as Tuning::upload_threads);
  // `on_upload(done, total)` in host bytes.
  static MemoryPlan create(gpu::Device& device, const Graph& graph, const std::vector<int>& parts_dims = {},
                           const std::function<void(uint64_t, uint64_t)>& on_upload = {},
                           uint64_t upload_chunk_bytes = kDefaultUploadChunkBytes, int upload_threads = -1);

  // The buffer behind a tensor value (shared or its own).
  const gpu::Buffer& buffer(ValueId id) const;
  bool has_buffer(ValueId id) const { return id < by_value_.size() && by_value_[id] != nullptr; }
  // Whether a tensor is stored in several buffers (and so has no buffer()).
  bool is_segmented(ValueId id) const { return id < segment_index_.size() && segment_index_[id] >= 0; }
  // The buffers of a tensor by ranges of `dim`: one covering the whole dim
  // for a tensor in one buffer, several for a tensor stored in parts (along
  // that dim: asking for another is an internal error).
  std::vector<TensorSegment> segments(ValueId id, const Tensor& t, size_t dim = 0) const;

  // Fills the tensor, constant and sharing figures of `stats`.
  void add_to(MemoryStats& stats) const;

 private:
  std::vector<gpu::Buffer> shared_;     // index = mem_obj_id
  std::vector<gpu::Buffer> dedicated_;  // inputs, outputs, unshared intermediates
  std::vector<gpu::Buffer> constants_;
  std::vector<const gpu::Buffer*> by_value_;
  // Tensors in parts: segment_index_[id] indexes segmented_ (-1: not one).
  struct Segmented {
    std::vector<gpu::Buffer> buffers;
    size_t dim = 0;
    int64_t per_buffer = 0;  // of dim `dim`; the last part may hold fewer
    int64_t count = 0;       // the dim's size
    bool state = false;
  };
  std::vector<Segmented> segmented_;
  // create()'s steps: the shared objects (each sized to its largest tensor),
  // then each tensor by its storage kind, then the values' buffer pointers.
  void add_shared_objects(gpu::Device& device, const Graph& graph);
  void add_tensor(gpu::Device& device, ValueId id, const Tensor& t, int parts_dim, const std::string& label);
  void add_constant(gpu::Device& device, ConstantUploader& up, ValueId id, const Tensor& t, int parts_dim,
                    const std::string& label);
  void bind_values(const Graph& graph);
  void add_segmented(gpu::Device& device, ConstantUploader& up, ValueId id, const Tensor& t, const std::string& what);
  void add_parts(gpu::Device& device, ValueId id, const Tensor& t, size_t dim, const std::string& what);
  std::vector<int32_t> segment_index_;
  uint64_t unaliased_tensor_bytes_ = 0;
  uint64_t state_bytes_ = 0;  // StorageKind::State buffers (KV caches)
};

// Converts one tensor's host bytes to its device layout (I64 -> I32) and back.
std::vector<uint8_t> to_device_layout(DType dtype, std::span<const uint8_t> host, const std::string& what);
// Takes the bytes by value: every dtype but I64 returns them as they are.
std::vector<uint8_t> to_host_layout(DType dtype, std::vector<uint8_t> device);

}  // namespace wgrt
