#include "graph/memory_plan.h"

#include <cstring>
#include <limits>

#include "gpu/device.h"
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

MemoryPlan MemoryPlan::create(gpu::Device& device, const Graph& graph,
                              const std::function<void(uint64_t, uint64_t)>& on_upload) {
  MemoryPlan plan;
  uint64_t upload_total = 0, upload_done = 0;
  for (const Value& v : graph.values) {
    const auto* t = std::get_if<Tensor>(&v);
    if (t != nullptr && t->storage == StorageKind::Constant) upload_total += t->bytes.size();
  }
  plan.by_value_.assign(graph.values.size(), nullptr);

  // Pass 1: the size of each shared object is its largest tensor.
  std::vector<uint64_t> shared_sizes;
  for (const Value& v : graph.values) {
    const auto* t = std::get_if<Tensor>(&v);
    if (t == nullptr || t->storage != StorageKind::Intermediate || t->mem_obj_id < 0) continue;
    if (size_t(t->mem_obj_id) >= shared_sizes.size()) shared_sizes.resize(t->mem_obj_id + 1, 0);
    shared_sizes[t->mem_obj_id] = std::max(shared_sizes[t->mem_obj_id], t->max_device_bytes());
  }

  // Pass 2: create buffers. Ids the exporter never used stay empty.
  plan.shared_.resize(shared_sizes.size());
  for (size_t i = 0; i < shared_sizes.size(); ++i) {
    if (shared_sizes[i] == 0) continue;
    plan.shared_[i] = gpu::Buffer::create(device, shared_sizes[i], gpu::BufferKind::Storage,
                                          "shared object " + std::to_string(i));
  }
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    const auto* t = std::get_if<Tensor>(&graph.values[id]);
    if (t == nullptr) continue;
    const std::string label = std::string(storage_name(t->storage)) + " tensor " + std::to_string(id);
    switch (t->storage) {
      case StorageKind::Intermediate:
        plan.unaliased_tensor_bytes_ += (t->max_device_bytes() + 3) & ~uint64_t{3};
        if (t->mem_obj_id >= 0) {
          plan.by_value_[id] = &plan.shared_[t->mem_obj_id];
          break;
        }
        [[fallthrough]];
      case StorageKind::Input:
      case StorageKind::Output:
      case StorageKind::State:  // WebGPU zero-fills new buffers
        if (t->storage != StorageKind::Intermediate) {
          plan.unaliased_tensor_bytes_ += (t->max_device_bytes() + 3) & ~uint64_t{3};
        }
        plan.dedicated_.push_back(gpu::Buffer::create(device, t->max_device_bytes(), gpu::BufferKind::Storage, label));
        if (t->storage == StorageKind::State) plan.state_bytes_ += plan.dedicated_.back().size();
        break;
      case StorageKind::Constant: {
        gpu::Buffer buf = gpu::Buffer::create(device, t->max_device_bytes(), gpu::BufferKind::Storage, label);
        const std::vector<uint8_t> bytes = to_device_layout(t->dtype, t->bytes, label);
        buf.write(0, bytes.data(), bytes.size());
        plan.constants_.push_back(std::move(buf));
        upload_done += t->bytes.size();
        if (on_upload) on_upload(upload_done, upload_total);
        break;
      }
    }
  }
  // Buffers are moved into vectors that may have reallocated: bind pointers last.
  size_t dedicated = 0, constant = 0;
  for (ValueId id = 0; id < graph.values.size(); ++id) {
    const auto* t = std::get_if<Tensor>(&graph.values[id]);
    if (t == nullptr || plan.by_value_[id] != nullptr) continue;
    plan.by_value_[id] = t->storage == StorageKind::Constant ? &plan.constants_[constant++] : &plan.dedicated_[dedicated++];
  }
  return plan;
}

const gpu::Buffer& MemoryPlan::buffer(ValueId id) const {
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
  stats.tensor_bytes = stats.shared_bytes + stats.unshared_bytes;
  stats.unaliased_bytes += unaliased_tensor_bytes_ + stats.constant_bytes;
}

}  // namespace wgrt
