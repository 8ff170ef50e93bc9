#include "graph/memory_plan.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "gpu/device.h"
#include "graph/constant_upload.h"
#include "wgrt/error.h"

namespace wgrt {

std::vector<uint8_t> to_device_layout(DType dtype, std::span<const uint8_t> host, const std::string& what) {
  if (dtype != DType::I64) return {host.begin(), host.end()};
  const size_t n = host.size() / 8;
  std::vector<uint8_t> out(n * 4);
  for (size_t i = 0; i < n; ++i) {
    int64_t v;
    std::memcpy(&v, host.data() + 8 * i, 8);
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      throw Error(ErrorCode::InvalidArgument, what + ": element " + std::to_string(i) + " = " + std::to_string(v) +
                                                  " does not fit the GPU's 32-bit integers");
    }
    const int32_t narrow = static_cast<int32_t>(v);
    std::memcpy(out.data() + 4 * i, &narrow, 4);
  }
  return out;
}

std::vector<uint8_t> to_host_layout(DType dtype, std::vector<uint8_t> device) {
  if (dtype != DType::I64) return device;
  const size_t n = device.size() / 4;
  std::vector<uint8_t> out(n * 8);
  for (size_t i = 0; i < n; ++i) {
    int32_t v;
    std::memcpy(&v, device.data() + 4 * i, 4);
    const int64_t wide = v;
    std::memcpy(out.data() + 8 * i, &wide, 8);
  }
  return out;
}

namespace {

std::string describe(const std::string& label, const Tensor& t, uint64_t bytes) {
  return label + " (" + dims_string(t.max_dims) + " " + std::string(dtype_name(t.dtype)) + ", " +
         std::to_string(bytes) + " bytes)";
}

// A buffer above maxBufferSize cannot be made, one above
// maxStorageBufferBindingSize cannot be bound: refuse it at load, named,
// rather than as a WebGPU validation error while lowering.
void check_fits(const gpu::Device& device, const std::string& what, uint64_t bytes) {
  const gpu::DeviceLimits& l = device.limits();
  const bool buffer = bytes > l.max_buffer_size;
  if (!buffer && bytes <= l.max_storage_buffer_binding_size) return;
  throw Error(ErrorCode::NotSupported,
              what + " is above the device's " +
                  (buffer ? "maxBufferSize of " + std::to_string(l.max_buffer_size)
                          : "maxStorageBufferBindingSize of " + std::to_string(l.max_storage_buffer_binding_size)) +
                  " bytes (--limits " + gpu::limits_mode_name(device.limits_mode()) +
                  "); only constants (by rows) and KV caches (by heads) are stored in parts");
}

// Rows per buffer of a constant above the binding limit `cap`: as many whole
// rows as fit, rounded down to a multiple of 64 where at least 64 fit. Any
// count is correct (each run is its own dispatch, writing its columns at an
// offset the kernel adds); round counts keep the dispatch labels readable.
int64_t rows_per_segment(const std::string& what, const Tensor& t, uint64_t cap) {
  const int64_t rows = t.max_dims.empty() ? 1 : t.max_dims[0];
  const uint64_t row_bytes = rows > 0 ? t.max_device_bytes() / uint64_t(rows) : 0;
  if (rows <= 1 || row_bytes > cap) {
    throw Error(ErrorCode::NotSupported, what + ": one row (its first dim) of " + std::to_string(row_bytes) +
                                             " bytes is above the device's binding limit of " + std::to_string(cap) +
                                             " bytes, so it cannot be split into buffers that fit");
  }
  const int64_t fit = int64_t(cap / row_bytes);
  return fit >= 64 ? fit / 64 * 64 : fit;
}

}  // namespace

std::vector<TensorSegment> MemoryPlan::segments(ValueId id, const Tensor& t, size_t dim) const {
  if (!is_segmented(id)) return {{&buffer(id), 0, dim < t.max_dims.size() ? t.max_dims[dim] : 1, dim}};
  const Segmented& s = segmented_[size_t(segment_index_[id])];
  if (s.dim != dim) {
    throw Error(ErrorCode::Internal, "tensor " + std::to_string(id) + " is stored in parts along dim " +
                                         std::to_string(s.dim) + ", not " + std::to_string(dim));
  }
  std::vector<TensorSegment> out;
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    const int64_t first = int64_t(i) * s.per_buffer;
    out.push_back({&s.buffers[i], first, std::min(s.per_buffer, s.count - first), dim});
  }
  return out;
}

MemoryPlan MemoryPlan::create(gpu::Device& device, const Graph& graph, const std::vector<int>& parts_dims,
                              const std::function<void(uint64_t, uint64_t)>& on_upload, uint64_t upload_chunk_bytes,
                              int upload_threads) {
  MemoryPlan plan;
  const auto parts_dim = [&](ValueId id) { return id < parts_dims.size() ? parts_dims[id] : -1; };
  uint64_t upload_total = 0;
  for (const Value& v : graph.values) {
    const auto* t = std::get_if<Tensor>(&v);
    if (t != nullptr && t->storage == StorageKind::Constant) upload_total += t->constant_size();
  }
  ConstantUploader uploader(device, upload_chunk_bytes, upload_threads, upload_total, on_upload);
  plan.by_value_.assign(graph.values.size(), nullptr);
  plan.segment_index_.assign(graph.values.size(), -1);
  plan.add_shared_objects(device, graph);
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    const auto* t = std::get_if<Tensor>(&graph.values[id]);
    if (t == nullptr) continue;
    const std::string label = std::string(storage_name(t->storage)) + " tensor " + std::to_string(id);
    if (t->storage != StorageKind::Constant) {
      plan.add_tensor(device, id, *t, parts_dim(id), label);
      continue;
    }
    plan.add_constant(device, uploader, id, *t, parts_dim(id), label);
  }
  uploader.finish();
  plan.bind_values(graph);
  return plan;
}

void MemoryPlan::add_shared_objects(gpu::Device& device, const Graph& graph) {
  // Pass 1: the size of each shared object is its largest tensor.
  std::vector<uint64_t> shared_sizes;
  for (const Value& v : graph.values) {
    const auto* t = std::get_if<Tensor>(&v);
    if (t == nullptr || t->storage != StorageKind::Intermediate || t->mem_obj_id < 0) continue;
    if (size_t(t->mem_obj_id) >= shared_sizes.size()) shared_sizes.resize(t->mem_obj_id + 1, 0);
    shared_sizes[t->mem_obj_id] = std::max(shared_sizes[t->mem_obj_id], t->max_device_bytes());
  }

  // Pass 2: create buffers. Ids the exporter never used stay empty.
  shared_.resize(shared_sizes.size());
  for (size_t i = 0; i < shared_sizes.size(); ++i) {
    if (shared_sizes[i] == 0) continue;
    check_fits(device, "shared object " + std::to_string(i) + " (" + std::to_string(shared_sizes[i]) + " bytes)",
               shared_sizes[i]);
    shared_[i] = gpu::Buffer::create(device, shared_sizes[i], gpu::BufferKind::Storage,
                                     "shared object " + std::to_string(i));
  }
}

void MemoryPlan::add_tensor(gpu::Device& device, ValueId id, const Tensor& t, int parts_dim, const std::string& label) {
  const uint64_t bytes = t.max_device_bytes();
  unaliased_tensor_bytes_ += (bytes + 3) & ~uint64_t{3};
  if (t.storage == StorageKind::Intermediate && t.mem_obj_id >= 0) {
    by_value_[id] = &shared_[t.mem_obj_id];
    return;
  }
  if (t.storage == StorageKind::State && parts_dim >= 0 && bytes > device.split_bytes()) {
    add_parts(device, id, t, size_t(parts_dim), describe(label, t, bytes));
    return;
  }
  check_fits(device, describe(label, t, bytes), bytes);
  // WebGPU zero-fills new buffers (a state's first contents).
  dedicated_.push_back(gpu::Buffer::create(device, bytes, gpu::BufferKind::Storage, label));
  if (t.storage == StorageKind::State) state_bytes_ += dedicated_.back().size();
}

void MemoryPlan::add_constant(gpu::Device& device, ConstantUploader& up, ValueId id, const Tensor& t, int parts_dim,
                              const std::string& label) {
  if (t.max_device_bytes() > device.split_bytes()) {
    const std::string what = describe(label, t, t.max_device_bytes());
    if (parts_dim >= 0) {
      add_parts(device, id, t, size_t(parts_dim), what);
    } else {
      add_segmented(device, up, id, t, what);
    }
    return;
  }
  gpu::Buffer buf = gpu::Buffer::create(device, t.max_device_bytes(), gpu::BufferKind::Storage, label);
  const ConstantSourcePtr rows = constant_rows(t);
  up.upload(t, *rows, 0, rows->rows(), buf, 0, label);
  constants_.push_back(std::move(buf));
}

// Buffers are moved into vectors that may have reallocated: bind pointers last.
void MemoryPlan::bind_values(const Graph& graph) {
  size_t dedicated = 0, constant = 0;
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    const auto* t = std::get_if<Tensor>(&graph.values[id]);
    if (t == nullptr || by_value_[id] != nullptr || is_segmented(id)) continue;
    by_value_[id] = t->storage == StorageKind::Constant ? &constants_[constant++] : &dedicated_[dedicated++];
  }
}

void MemoryPlan::add_segmented(gpu::Device& device, ConstantUploader& up, ValueId id, const Tensor& t,
                               const std::string& what) {
  Segmented seg;
  seg.count = t.max_dims.empty() ? 1 : t.max_dims[0];
  seg.per_buffer = rows_per_segment(what, t, device.split_bytes());
  const ConstantSourcePtr rows = constant_rows(t);
  const uint64_t row_bytes = t.max_device_bytes() / uint64_t(seg.count);  // device layout
  for (int64_t first = 0; first < seg.count; first += seg.per_buffer) {
    const int64_t n = std::min(seg.per_buffer, seg.count - first);
    gpu::Buffer buf = gpu::Buffer::create(device, uint64_t(n) * row_bytes, gpu::BufferKind::Storage,
                                          what + " rows " + std::to_string(first) + "+" + std::to_string(n));
    up.upload(t, *rows, uint64_t(first), uint64_t(n), buf, 0, what);
    seg.buffers.push_back(std::move(buf));
  }
  segment_index_[id] = int32_t(segmented_.size());
  segmented_.push_back(std::move(seg));
}

void MemoryPlan::add_parts(gpu::Device& device, ValueId id, const Tensor& t, size_t dim, const std::string& what) {
  Segmented seg;
  seg.dim = dim;
  seg.state = t.storage == StorageKind::State;
  seg.count = dim < t.max_dims.size() ? t.max_dims[dim] : 1;
  const uint64_t slab = seg.count > 0 ? t.max_device_bytes() / uint64_t(seg.count) : 0;  // one index of `dim`
  const uint64_t cap = device.split_bytes();
  if (seg.count <= 1 || slab > cap) {
    throw Error(ErrorCode::NotSupported, what + ": one index of dim " + std::to_string(dim) + " takes " +
                                             std::to_string(slab) + " bytes, above the device's binding limit of " +
                                             std::to_string(cap) + " bytes, so it cannot be split into buffers that fit");
  }
  // As few parts as fit, then the dim spread evenly over them.
  const int64_t parts = (seg.count + int64_t(cap / slab) - 1) / int64_t(cap / slab);
  seg.per_buffer = (seg.count + parts - 1) / parts;
  // A constant's bytes, rearranged: part p holds, for each index of the dims
  // before `dim`, its `n` consecutive slices of the dims after it.
  std::vector<uint8_t> bytes;
  if (!seg.state) bytes = to_device_layout(t.dtype, constant_rows(t)->read_all(), what);
  uint64_t outer = 1;
  for (size_t i = 0; i < dim; ++i) outer *= uint64_t(t.max_dims[i]);
  const uint64_t inner = outer > 0 ? slab / outer : 0;  // bytes of one index of `dim` under one outer index
  for (int64_t first = 0; first < seg.count; first += seg.per_buffer) {
    const int64_t n = std::min(seg.per_buffer, seg.count - first);
    gpu::Buffer buf = gpu::Buffer::create(device, uint64_t(n) * slab, gpu::BufferKind::Storage,
                                          what + " dim " + std::to_string(dim) + " " + std::to_string(first) + "+" +
                                              std::to_string(n));
    if (!seg.state) {
      std::vector<uint8_t> part(uint64_t(n) * slab);
      for (uint64_t o = 0; o < outer; ++o) {
        std::memcpy(part.data() + o * uint64_t(n) * inner,
                    bytes.data() + (o * uint64_t(seg.count) + uint64_t(first)) * inner, uint64_t(n) * inner);
      }
      buf.write(0, part.data(), part.size());
    } else {
      state_bytes_ += buf.size();
    }
    seg.buffers.push_back(std::move(buf));
  }
  segment_index_[id] = int32_t(segmented_.size());
  segmented_.push_back(std::move(seg));
}

const gpu::Buffer& MemoryPlan::buffer(ValueId id) const {
  if (is_segmented(id)) {
    throw Error(ErrorCode::NotSupported, "tensor " + std::to_string(id) +
                                             " is stored in several buffers (above the device's binding limit) and "
                                             "cannot be bound whole");
  }
  if (!has_buffer(id)) throw Error(ErrorCode::Internal, "value " + std::to_string(id) + " has no buffer");
  return *by_value_[id];
}

void MemoryPlan::add_to(MemoryStats& stats) const {
  for (const auto& b : shared_) {
    if (!b) continue;
    stats.shared_bytes += b.size();
    ++stats.num_shared_objects;
  }
  for (const auto& b : dedicated_) stats.unshared_bytes += b.size();
  stats.state_bytes += state_bytes_;
  for (const auto& b : constants_) stats.constant_bytes += b.size();
  for (const auto& s : segmented_) {
    for (const auto& b : s.buffers) (s.state ? stats.unshared_bytes : stats.constant_bytes) += b.size();
  }
  stats.tensor_bytes = stats.shared_bytes + stats.unshared_bytes;
  stats.unaliased_bytes += unaliased_tensor_bytes_ + stats.constant_bytes;
}

}  // namespace wgrt
