#include "wgrt/runtime.h"

#include "api/impl.h"

namespace wgrt::api {

Runtime Runtime::create(const RuntimeOptions& options) {
  gpu::DeviceOptions d;
  d.want_shader_f16 = options.shader_f16;
  d.want_timestamp_query = options.timestamp_query;
  d.want_subgroups = options.subgroups;
  auto impl = std::make_shared<detail::RuntimeImpl>();
  impl->runtime = wgrt::Runtime::create(d);
  return Runtime(std::move(impl));
}

std::string Runtime::adapter_name() const {
  const gpu::AdapterInfo& a = impl_->runtime->device().adapter_info();
  return a.name + " (" + a.backend + ", " + a.device_type + ")";
}

namespace detail {

wgrt::LoadOptions engine_options(const LoadOptions& options) {
  wgrt::LoadOptions o;
  if (options.submit_every >= 0) o.submit_every = size_t(options.submit_every);
  if (options.scratch_pool >= 0) o.scratch_pool = options.scratch_pool != 0;
  if (options.fuse >= 0) o.fuse = options.fuse != 0;
  return o;
}

}  // namespace detail
}  // namespace wgrt::api
