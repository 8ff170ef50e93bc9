#include "wgrt/program.h"

#include <algorithm>
#include <filesystem>

#include "api/impl.h"
#include "wgrt/error.h"

namespace wgrt::api {

namespace detail {

void ProgramImpl::add_method(const std::string& name, ExecutableGraph& graph) {
  const Graph& g = graph.graph();
  std::vector<TensorInfo> ins, outs;
  for (ValueId id : g.inputs) {
    if (g.is_tensor(id)) {
      ins.push_back({g.tensor(id).dtype, g.tensor(id).max_dims, false});
    } else {
      ins.push_back({DType::I64, {1}, true});  // a symbolic int passed as one element
    }
  }
  for (ValueId id : g.outputs) outs.push_back({g.tensor(id).dtype, g.tensor(id).max_dims, false});
  names.push_back(name);
  graphs.push_back(&graph);
  inputs.push_back(std::move(ins));
  outputs.push_back(std::move(outs));
}

}  // namespace detail

std::string ptd_beside(const std::string& pte_path) {
  std::filesystem::path p(pte_path);
  if (p.extension() != ".pte") return "";
  p.replace_extension(".ptd");
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) ? p.string() : "";
}

Program Program::load(const Runtime& runtime, const std::string& path, const std::string& ptd,
                      const LoadOptions& options) {
  auto impl = std::make_shared<detail::ProgramImpl>();
  impl->runtime = runtime.impl();
  impl->program = wgrt::Program::load(runtime.impl()->runtime->device(), path, ptd, detail::engine_options(options));
  impl->path = impl->program->path();
  for (const std::string& name : impl->program->method_names()) {
    impl->add_method(name, impl->program->method(name).graph());
  }
  return Program(std::move(impl));
}

const std::string& Program::path() const { return impl_->path; }
std::vector<std::string> Program::method_names() const { return impl_->names; }

MemoryStats Program::memory_stats() const {
  return impl_->program ? impl_->program->memory_stats() : impl_->own_graph->memory_stats();
}

Method Program::method(const std::string& name) const {
  for (size_t i = 0; i < impl_->names.size(); ++i) {
    if (impl_->names[i] == name) return Method(impl_, i);
  }
  if (impl_->program) impl_->program->method(name);  // throws Error(NotFound) listing the methods
  throw Error(ErrorCode::NotFound, "no method '" + name + "' (the program has '" + impl_->names.front() + "')");
}

const std::string& Method::name() const { return program_->names[index_]; }
const std::vector<TensorInfo>& Method::inputs() const { return program_->inputs[index_]; }
const std::vector<TensorInfo>& Method::outputs() const { return program_->outputs[index_]; }

std::vector<Tensor> Method::run(std::span<const Tensor> inputs, const RunOptions& options) {
  ExecutableGraph& g = *program_->graphs[index_];
  std::vector<HostTensorView> views;
  views.reserve(inputs.size());
  for (const Tensor& t : inputs) views.push_back({t.dtype(), t.shape(), t.bytes()});
  ExecuteOptions eo;
  eo.time_dispatches = options.time_dispatches;
  std::vector<HostTensor> outs = g.execute(views, eo);
  std::vector<Tensor> result;
  result.reserve(outs.size());
  for (HostTensor& o : outs) {
    // Outputs not read back (none here) would have no bytes: make zeros of the shape then.
    result.push_back(o.data.empty() ? Tensor(o.dtype, o.dims) : Tensor(o.dtype, o.dims, std::move(o.data)));
  }
  return result;
}

std::vector<Output> Method::execute(std::span<const Input> inputs, const RunOptions& options) {
  ExecutableGraph& g = *program_->graphs[index_];
  wgrt::Runtime& runtime = *program_->runtime->runtime;
  std::vector<InputView> views;
  views.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Input& in = inputs[i];
    const DeviceTensor* t = in.device_tensor();
    if (t == nullptr) {
      views.push_back(HostTensorView{in.dtype(), in.shape(), in.bytes()});
    } else if (!t->memory()) {
      views.push_back(HostTensorView{t->dtype(), t->shape(), {}});  // no elements: nothing to bind
    } else {
      if (&t->memory()->runtime->runtime->device() != &runtime.device()) {
        throw Error(ErrorCode::InvalidArgument, "input " + std::to_string(i) +
                                                    ": a DeviceTensor of another runtime's device; a method binds "
                                                    "only buffers of its own device (copy it through the host)");
      }
      views.push_back(DeviceTensorView{t->dtype(), t->shape(), &t->memory()->memory.gpu_buffer()});
    }
  }
  ExecuteOptions eo;
  eo.time_dispatches = options.time_dispatches;
  eo.device_outputs = options.device_outputs;
  if (std::find(eo.device_outputs.begin(), eo.device_outputs.end(), true) != eo.device_outputs.end()) {
    eo.allocator = &runtime.allocators().get(DeviceType::WebGPU);
  }
  std::vector<OutputTensor> outs = g.run(views, eo);
  std::vector<Output> result;
  result.reserve(outs.size());
  for (OutputTensor& o : outs) {
    Output out;
    out.on_device = o.on_device;
    if (o.on_device) {
      std::shared_ptr<detail::DeviceMemory> memory;
      if (o.memory) memory = std::make_shared<detail::DeviceMemory>(detail::DeviceMemory{program_->runtime, std::move(o.memory)});
      out.device = DeviceTensor(o.dtype, std::move(o.dims), std::move(memory));
    } else {
      out.host = Tensor(o.dtype, std::move(o.dims), std::move(o.data));
    }
    result.push_back(std::move(out));
  }
  return result;
}

std::vector<DispatchTime> Method::last_dispatch_times() const {
  return detail::dispatch_times(program_->graphs[index_]->last_timings());
}

size_t Method::dispatch_count() const { return program_->graphs[index_]->dispatch_count(); }

MemoryStats Method::memory_stats() const { return program_->graphs[index_]->memory_stats(); }

}  // namespace wgrt::api
