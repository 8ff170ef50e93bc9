#include "wgrt/runtime.h"

#include "api/impl.h"
#include "graph/op_registry.h"

namespace wgrt::api {

namespace {
// The public enum mirrors the device layer's, value for value.
static_assert(int(LimitsMode::Adapter) == int(gpu::LimitsMode::Adapter) &&
              int(LimitsMode::Default) == int(gpu::LimitsMode::Default));
gpu::LimitsMode to_gpu(LimitsMode mode) { return static_cast<gpu::LimitsMode>(mode); }
LimitsMode from_gpu(gpu::LimitsMode mode) { return static_cast<LimitsMode>(mode); }

gpu::DeviceOptions device_options(const RuntimeOptions& options) {
  gpu::DeviceOptions d;
  d.limits = to_gpu(options.limits);
  d.split_bytes_for_test = options.split_bytes_for_test;
  d.want_shader_f16 = options.shader_f16;
  d.want_timestamp_query = options.timestamp_query;
  d.want_subgroups = options.subgroups;
  d.adapter = options.adapter;
  return d;
}
}  // namespace

LimitsMode parse_limits_mode(std::string_view text, std::string_view what) {
  return from_gpu(gpu::parse_limits_mode(text, what));
}

const char* limits_mode_name(LimitsMode mode) { return gpu::limits_mode_name(to_gpu(mode)); }

std::vector<AdapterInfo> list_adapters() {
  std::vector<AdapterInfo> out;
  for (const gpu::AdapterInfo& a : gpu::list_adapters()) {
    out.push_back(detail::adapter_info(a, ""));
  }
  return out;
}

Runtime Runtime::create(const RuntimeOptions& options) {
  auto impl = std::make_shared<detail::RuntimeImpl>();
  impl->runtime = wgrt::Runtime::create(device_options(options));
  return Runtime(std::move(impl));
}

Runtime Runtime::process_default(const RuntimeOptions& options) {
  auto impl = std::make_shared<detail::RuntimeImpl>();
  impl->runtime = std::shared_ptr<wgrt::Runtime>(&wgrt::Runtime::process_default(device_options(options)),
                                                 [](wgrt::Runtime*) {});
  return Runtime(std::move(impl));
}

LimitsMode Runtime::limits_mode() const { return from_gpu(impl_->runtime->device().limits_mode()); }

std::string Runtime::adapter_name() const {
  const gpu::AdapterInfo& a = impl_->runtime->device().adapter_info();
  return a.name + " (" + a.backend + ", " + a.device_type + ")";
}

AdapterInfo Runtime::adapter_info() const {
  const gpu::Device& d = impl_->runtime->device();
  return detail::adapter_info(d.adapter_info(), d.implementation_version());
}

AdapterLimits Runtime::limits() const {
  const gpu::DeviceLimits& l = impl_->runtime->device().limits();
  return {l.max_buffer_size,
          l.max_storage_buffer_binding_size,
          l.max_uniform_buffer_binding_size,
          l.max_storage_buffers_per_shader_stage,
          l.max_compute_workgroups_per_dimension,
          l.max_compute_invocations_per_workgroup,
          l.max_compute_workgroup_storage_size,
          l.max_compute_workgroup_size_x,
          l.max_compute_workgroup_size_y,
          l.max_compute_workgroup_size_z,
          l.min_storage_buffer_offset_alignment};
}

namespace {
AdapterFeatures features_of(const gpu::DeviceFeatures& f) { return {f.shader_f16, f.timestamp_query, f.subgroups}; }
}  // namespace

AdapterFeatures Runtime::features() const { return features_of(impl_->runtime->device().features()); }
AdapterFeatures Runtime::offered_features() const { return features_of(impl_->runtime->device().adapter_features()); }
uint64_t Runtime::live_buffer_bytes() const { return impl_->runtime->device().live_buffer_bytes(); }
uint64_t Runtime::peak_buffer_bytes() const { return impl_->runtime->device().peak_buffer_bytes(); }

std::vector<OperatorInfo> supported_operators() {
  const OpRegistry& registry = OpRegistry::builtin();
  std::vector<OperatorInfo> out;
  for (const std::string& name : registry.names()) out.push_back({name, registry.find(name)->dtypes});
  return out;
}

namespace detail {

AdapterInfo adapter_info(const gpu::AdapterInfo& a, std::string implementation) {
  return {a.name, a.vendor, a.architecture, a.driver, a.backend, a.device_type, a.vendor_id, a.device_id,
          std::move(implementation)};
}

wgrt::LoadOptions engine_options(const LoadOptions& options) {
  wgrt::LoadOptions o;
  o.tuning = options.tuning;
  return o;
}

}  // namespace detail
}  // namespace wgrt::api
