#include "wgrt/testing.h"

#include "api/impl.h"
#include "gpu/buffer_usage.h"
#include "graph/graph.h"
#include "runtime/device_memory.h"
#include "wgrt/error.h"

namespace wgrt::api::testing {

void fail_nth_allocation(const Runtime& runtime, uint32_t n) {
  runtime.impl()->runtime->device().fail_nth_allocation_for_test(n);
}

Program add_chain(const Runtime& runtime, int64_t n, int64_t rows, int64_t cols) {
  if (n < 1) throw Error(ErrorCode::InvalidArgument, "add_graph: need at least one add");
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {rows, cols});
  const ValueId y = b.add_tensor(DType::F32, {rows, cols});
  b.mark_input(x);
  b.mark_input(y);
  ValueId prev = x;
  for (int64_t k = 0; k < n; ++k) {
    const ValueId out = b.add_tensor(DType::F32, {rows, cols});
    b.add_op("aten.add.Tensor", {prev, y, b.add_int(1), out});
    b.mark_output(out);
    prev = out;
  }
  auto impl = std::make_shared<detail::ProgramImpl>();
  impl->runtime = runtime.impl();
  impl->own_graph = ExecutableGraph::load(runtime.impl()->runtime->device(), std::move(b).build());
  impl->add_method("add_chain", *impl->own_graph);
  return Program(std::move(impl));
}

Traffic last_traffic(const Method& method) {
  const ExecuteTraffic& t = method.impl()->graphs[method.index()]->last_traffic();
  return {t.host_upload_bytes, t.readback_bytes, t.device_output_bytes, t.rebound_dispatches, t.bound_input_buffers};
}

std::vector<OutputStorage> output_storage(const Method& method) {
  const ExecutableGraph& eg = *method.impl()->graphs[method.index()];
  const Graph& g = eg.graph();
  std::vector<OutputStorage> out;
  for (ValueId id : g.outputs) {
    const wgrt::Tensor& t = g.tensor(id);
    out.push_back({std::string(storage_name(t.storage)), t.mem_obj_id, t.cur_dims, eg.tensor_buffer(id).raw()});
  }
  return out;
}

namespace {

std::unique_ptr<DeviceAllocator> make_allocator(const Runtime& runtime, const std::string& type) {
  if (parse_device_type(type) == DeviceType::WebGPU) {
    return std::make_unique<WebGpuAllocator>(runtime.impl()->runtime->device());
  }
  return std::make_unique<CpuAllocator>();
}

}  // namespace

bool allocator_registered(const Runtime& runtime, const std::string& device_type) {
  return runtime.impl()->runtime->allocators().has(parse_device_type(device_type));
}

void register_allocator(const Runtime& runtime, const std::string& device_type) {
  runtime.impl()->runtime->allocators().add(make_allocator(runtime, device_type));
}

struct AllocatorRegistry::State {
  Runtime runtime;
  DeviceAllocatorRegistry registry;
};

AllocatorRegistry::AllocatorRegistry(const Runtime& runtime) : state_(new State{runtime, {}}) {}
AllocatorRegistry::~AllocatorRegistry() = default;
AllocatorRegistry::AllocatorRegistry(AllocatorRegistry&&) noexcept = default;
AllocatorRegistry& AllocatorRegistry::operator=(AllocatorRegistry&&) noexcept = default;

void AllocatorRegistry::add(const std::string& device_type) {
  state_->registry.add(make_allocator(state_->runtime, device_type));
}

bool AllocatorRegistry::has(const std::string& device_type) const {
  return state_->registry.has(parse_device_type(device_type));
}

Allocation AllocatorRegistry::allocate(const std::string& device_type, uint64_t bytes) const {
  DeviceMemoryBuffer m = state_->registry.get(parse_device_type(device_type)).allocate(bytes, "test allocation");
  return {std::string(device_type_name(m.device_type())), m.size(), gpu::buffer_usage_names(m.usage())};
}

}  // namespace wgrt::api::testing
