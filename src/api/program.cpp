#include "wgrt/program.h"

#include "api/impl.h"
#include "wgrt/error.h"

namespace wgrt::api {

Program Program::load(const Runtime& runtime, const std::string& path, const std::string& ptd,
                      const LoadOptions& options) {
  auto impl = std::make_shared<detail::ProgramImpl>();
  impl->runtime = runtime.impl();
  impl->program = wgrt::Program::load(runtime.impl()->runtime->device(), path, ptd, detail::engine_options(options));
  for (const std::string& name : impl->program->method_names()) {
    const wgrt::Method& m = impl->program->method(name);
    auto infos = [](const std::vector<TensorSpec>& specs) {
      std::vector<TensorInfo> out;
      for (const TensorSpec& s : specs) out.push_back({s.dtype, s.max_dims});
      return out;
    };
    impl->names.push_back(name);
    impl->inputs.push_back(infos(m.input_specs()));
    impl->outputs.push_back(infos(m.output_specs()));
  }
  return Program(std::move(impl));
}

const std::string& Program::path() const { return impl_->program->path(); }
std::vector<std::string> Program::method_names() const { return impl_->names; }
MemoryStats Program::memory_stats() const { return impl_->program->memory_stats(); }

Method Program::method(const std::string& name) const {
  for (size_t i = 0; i < impl_->names.size(); ++i) {
    if (impl_->names[i] == name) return Method(impl_, i);
  }
  impl_->program->method(name);  // throws Error(NotFound) listing the methods
  throw Error(ErrorCode::Internal, "method '" + name + "' is loaded but not listed");
}

const std::string& Method::name() const { return program_->names[index_]; }
const std::vector<TensorInfo>& Method::inputs() const { return program_->inputs[index_]; }
const std::vector<TensorInfo>& Method::outputs() const { return program_->outputs[index_]; }

std::vector<Tensor> Method::run(std::span<const Tensor> inputs, const RunOptions& options) {
  ExecutableGraph& g = program_->program->method(name()).graph();
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
    result.push_back(o.data.empty() ? Tensor(o.dtype, o.dims) : Tensor(o.dtype, o.dims, o.data));
  }
  return result;
}

std::vector<DispatchTime> Method::last_dispatch_times() const {
  std::vector<DispatchTime> times;
  for (const gpu::DispatchTiming& t : program_->program->method(name()).graph().last_timings()) {
    times.push_back({t.label, t.gpu_ns * 1e-6});
  }
  return times;
}

size_t Method::dispatch_count() const { return program_->program->method(name()).graph().dispatch_count(); }

MemoryStats Method::memory_stats() const { return program_->program->method(name()).graph().memory_stats(); }

}  // namespace wgrt::api
