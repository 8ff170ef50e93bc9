#include "gpu/device.h"

#include <webgpu.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "gpu/native.h"
#include "gpu/pipeline_cache.h"
#include "gpu/webgpu_util.h"
#include "wgrt/error.h"

namespace wgrt::gpu {

// Collects what WebGPU reports through callbacks until Device turns it into
// an Error at the next check. Callbacks may come from inside any webgpu call.
struct Device::ErrorSink {
  std::mutex mutex;
  std::string first_error;
  ErrorCode first_code = ErrorCode::Internal;
  bool lost = false;
  std::string lost_message;

  void report(ErrorCode code, std::string message) {
    std::lock_guard<std::mutex> lock(mutex);
    if (first_error.empty()) {
      first_error = std::move(message);
      first_code = code;
    }
  }
};

bool AdapterInfo::swiftshader() const {
  for (const std::string* s : {&name, &architecture, &driver}) {
    std::string lower(*s);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (lower.find("swiftshader") != std::string::npos) return true;
  }
  return false;
}

namespace {

const char* backend_name(WGPUBackendType t) {
  switch (t) {
    case WGPUBackendType_Null: return "Null";
    case WGPUBackendType_WebGPU: return "WebGPU";
    case WGPUBackendType_D3D11: return "D3D11";
    case WGPUBackendType_D3D12: return "D3D12";
    case WGPUBackendType_Metal: return "Metal";
    case WGPUBackendType_Vulkan: return "Vulkan";
    case WGPUBackendType_OpenGL: return "OpenGL";
    case WGPUBackendType_OpenGLES: return "OpenGLES";
    default: return "Undefined";
  }
}

const char* adapter_type_name(WGPUAdapterType t) {
  switch (t) {
    case WGPUAdapterType_DiscreteGPU: return "discrete GPU";
    case WGPUAdapterType_IntegratedGPU: return "integrated GPU";
    case WGPUAdapterType_CPU: return "CPU";
    default: return "unknown";
  }
}

ErrorCode code_for(WGPUErrorType type) {
  switch (type) {
    case WGPUErrorType_OutOfMemory: return ErrorCode::OutOfMemory;
    case WGPUErrorType_Validation: return ErrorCode::InvalidArgument;
    default: return ErrorCode::Internal;
  }
}

constexpr const char* kNoAdapterHint =
    "no WebGPU adapter found. wgrt needs a Vulkan driver: on Debian 12 run scripts/setup.sh "
    "(it installs libvulkan1 and Mesa 25's lavapipe, mesa-vulkan-drivers from bookworm-backports); "
    "check with `vulkaninfo --summary`";

struct AdapterRequest {
  bool done = false;
  WGPUAdapter adapter = nullptr;
  std::string message;
};

struct DeviceRequest {
  bool done = false;
  WGPUDevice device = nullptr;
  std::string message;
};

// The limits wgrt plans against: WebGPU's name, its field and ours, and
// whether it is a maximum (an adapter must offer at least the spec's value)
// or an alignment (at most). One table serves reading, requesting and checking.
template <typename T>
struct LimitField {
  const char* name;
  T WGPULimits::*webgpu;
  T DeviceLimits::*ours;
  bool alignment;
};
constexpr LimitField<uint64_t> kLimits64[] = {
    {"maxBufferSize", &WGPULimits::maxBufferSize, &DeviceLimits::max_buffer_size, false},
    {"maxStorageBufferBindingSize", &WGPULimits::maxStorageBufferBindingSize,
     &DeviceLimits::max_storage_buffer_binding_size, false},
    {"maxUniformBufferBindingSize", &WGPULimits::maxUniformBufferBindingSize,
     &DeviceLimits::max_uniform_buffer_binding_size, false},
};
constexpr LimitField<uint32_t> kLimits32[] = {
    {"maxStorageBuffersPerShaderStage", &WGPULimits::maxStorageBuffersPerShaderStage,
     &DeviceLimits::max_storage_buffers_per_shader_stage, false},
    {"maxComputeWorkgroupsPerDimension", &WGPULimits::maxComputeWorkgroupsPerDimension,
     &DeviceLimits::max_compute_workgroups_per_dimension, false},
    {"maxComputeInvocationsPerWorkgroup", &WGPULimits::maxComputeInvocationsPerWorkgroup,
     &DeviceLimits::max_compute_invocations_per_workgroup, false},
    {"maxComputeWorkgroupStorageSize", &WGPULimits::maxComputeWorkgroupStorageSize,
     &DeviceLimits::max_compute_workgroup_storage_size, false},
    {"maxComputeWorkgroupSizeX", &WGPULimits::maxComputeWorkgroupSizeX, &DeviceLimits::max_compute_workgroup_size_x, false},
    {"maxComputeWorkgroupSizeY", &WGPULimits::maxComputeWorkgroupSizeY, &DeviceLimits::max_compute_workgroup_size_y, false},
    {"maxComputeWorkgroupSizeZ", &WGPULimits::maxComputeWorkgroupSizeZ, &DeviceLimits::max_compute_workgroup_size_z, false},
    {"minStorageBufferOffsetAlignment", &WGPULimits::minStorageBufferOffsetAlignment,
     &DeviceLimits::min_storage_buffer_offset_alignment, true},
    {"minUniformBufferOffsetAlignment", &WGPULimits::minUniformBufferOffsetAlignment,
     &DeviceLimits::min_uniform_buffer_offset_alignment, true},
};

template <typename F>
void for_each_limit(F&& f) {
  for (const auto& field : kLimits64) f(field);
  for (const auto& field : kLimits32) f(field);
}

DeviceLimits convert(const WGPULimits& l) {
  DeviceLimits d;
  for_each_limit([&](const auto& f) { d.*f.ours = l.*f.webgpu; });
  return d;
}

// The spec's defaults for the limits above and 4 bind groups; the rest
// (textures, vertex state) stay undefined, which requests their defaults too.
WGPULimits spec_default_request() {
  const DeviceLimits d = spec_default_limits();
  WGPULimits l = WGPU_LIMITS_INIT;
  l.maxBindGroups = 4;
  for_each_limit([&](const auto& f) { l.*f.webgpu = d.*f.ours; });
  return l;
}

// An adapter below the spec's defaults is not a conformant WebGPU adapter;
// wgrt's kernels assume at least those limits. Names the first one short.
void check_at_least_spec(const DeviceLimits& offered, const std::string& adapter) {
  const DeviceLimits d = spec_default_limits();
  for_each_limit([&](const auto& f) {
    const uint64_t got = offered.*f.ours, want = d.*f.ours;
    if (f.alignment ? got <= want : got >= want) return;
    throw Error(ErrorCode::NotSupported, adapter + ": " + f.name + " is " + std::to_string(got) +
                                             ", WebGPU requires " + (f.alignment ? "at most " : "at least ") +
                                             std::to_string(want));
  });
}


// The high-performance adapter, waited for; Error(NotFound) with a hint on what to install when none.
WGPUAdapter request_adapter(WGPUInstance instance) {
  AdapterRequest areq;
  WGPURequestAdapterOptions aopts = WGPU_REQUEST_ADAPTER_OPTIONS_INIT;
  aopts.powerPreference = WGPUPowerPreference_HighPerformance;
  WGPURequestAdapterCallbackInfo acb = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  acb.mode = WGPUCallbackMode_AllowProcessEvents;
  acb.userdata1 = &areq;
  acb.callback = [](WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message,
                    void* ud, void*) {
    auto* r = static_cast<AdapterRequest*>(ud);
    if (status == WGPURequestAdapterStatus_Success) r->adapter = adapter;
    r->message = to_string(message);
    r->done = true;
  };
  wgpuInstanceRequestAdapter(instance, &aopts, acb);
  while (!areq.done) wgpuInstanceProcessEvents(instance);
  if (areq.adapter == nullptr) {
    throw Error(ErrorCode::NotFound,
                std::string(kNoAdapterHint) + (areq.message.empty() ? "" : " (WebGPU: " + areq.message + ")"));
  }
  return areq.adapter;
}

AdapterInfo read_adapter_info(WGPUAdapter adapter) {
  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  wgpuAdapterGetInfo(adapter, &info);
  AdapterInfo out;
  out.name = to_string(info.device);
  out.vendor = to_string(info.vendor);
  out.architecture = to_string(info.architecture);
  out.driver = to_string(info.description);
  out.backend = backend_name(info.backendType);
  out.device_type = adapter_type_name(info.adapterType);
  out.vendor_id = info.vendorID;
  out.device_id = info.deviceID;
  wgpuAdapterInfoFreeMembers(info);
  return out;
}

std::string adapter_list(const std::vector<AdapterInfo>& adapters) {
  std::string out;
  for (size_t i = 0; i < adapters.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(i) + " " + adapters[i].name + " (" + adapters[i].backend + ")";
  }
  return out;
}

// The nth adapter of list_adapters(); Error(NotFound) naming those there are.
WGPUAdapter nth_adapter(WGPUInstance instance, int n) {
  std::vector<Handle<WGPUAdapter>> adapters = native::enumerate_adapters(instance);
  if (n >= 0 && size_t(n) < adapters.size()) return adapters[size_t(n)].take();
  std::vector<AdapterInfo> infos;
  for (const auto& a : adapters) infos.push_back(read_adapter_info(a.get()));
  throw Error(ErrorCode::NotFound, "no GPU adapter " + std::to_string(n) + ": this machine has " +
                                       std::to_string(infos.size()) +
                                       (infos.empty() ? "" : " (" + adapter_list(infos) + ")"));
}

// The optional features the adapter offers, and those to request of it.
struct FeatureChoice {
  DeviceFeatures offered;
  WGPUFeatureName subgroups = WGPUFeatureName_Subgroups;  // the name the adapter knows subgroups by
  std::vector<WGPUFeatureName> wanted;
};

FeatureChoice choose_features(WGPUAdapter adapter, const DeviceOptions& options, bool bare) {
  FeatureChoice c;
  c.offered.shader_f16 = wgpuAdapterHasFeature(adapter, WGPUFeatureName_ShaderF16);
  c.offered.timestamp_query = wgpuAdapterHasFeature(adapter, WGPUFeatureName_TimestampQuery);
  // Subgroups: the standard name if the implementation knows it, else its own.
  const auto native_subgroups = static_cast<WGPUFeatureName>(native::subgroups_feature());
  c.subgroups = wgpuAdapterHasFeature(adapter, WGPUFeatureName_Subgroups) ? WGPUFeatureName_Subgroups
                                                                          : native_subgroups;
  c.offered.subgroups = wgpuAdapterHasFeature(adapter, c.subgroups);
  // Default mode asks for no optional feature at all.
  if (!bare && c.offered.shader_f16 && options.want_shader_f16) c.wanted.push_back(WGPUFeatureName_ShaderF16);
  if (!bare && c.offered.timestamp_query && options.want_timestamp_query) {
    c.wanted.push_back(WGPUFeatureName_TimestampQuery);
  }
  if (!bare && c.offered.subgroups && options.want_subgroups) c.wanted.push_back(c.subgroups);
  return c;
}

// The device, waited for, its uncaptured errors and loss reported to `sink`;
// Error(NotSupported) naming the adapter when it cannot be made.
WGPUDevice request_device(WGPUInstance instance, WGPUAdapter adapter, const std::vector<WGPUFeatureName>& wanted,
                          const WGPULimits& requested, Device::ErrorSink* sink, const std::string& adapter_name) {
  DeviceRequest dreq;
  WGPUDeviceDescriptor ddesc = WGPU_DEVICE_DESCRIPTOR_INIT;
  ddesc.label = to_view("wgrt");
  ddesc.requiredFeatureCount = wanted.size();
  ddesc.requiredFeatures = wanted.data();
  ddesc.requiredLimits = &requested;
  ddesc.uncapturedErrorCallbackInfo.userdata1 = sink;
  ddesc.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const*, WGPUErrorType type,
                                                  WGPUStringView message, void* ud, void*) {
    static_cast<Device::ErrorSink*>(ud)->report(code_for(type), "WebGPU error: " + to_string(message));
  };
  ddesc.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  ddesc.deviceLostCallbackInfo.userdata1 = sink;
  ddesc.deviceLostCallbackInfo.callback = [](WGPUDevice const*, WGPUDeviceLostReason reason,
                                             WGPUStringView message, void* ud, void*) {
    if (reason == WGPUDeviceLostReason_Destroyed || reason == WGPUDeviceLostReason_CallbackCancelled) return;
    auto* errors = static_cast<Device::ErrorSink*>(ud);
    std::lock_guard<std::mutex> lock(errors->mutex);
    errors->lost = true;
    errors->lost_message = to_string(message);
  };
  WGPURequestDeviceCallbackInfo dcb = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  dcb.mode = WGPUCallbackMode_AllowProcessEvents;
  dcb.userdata1 = &dreq;
  dcb.callback = [](WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message, void* ud,
                    void*) {
    auto* r = static_cast<DeviceRequest*>(ud);
    if (status == WGPURequestDeviceStatus_Success) r->device = device;
    r->message = to_string(message);
    r->done = true;
  };
  wgpuAdapterRequestDevice(adapter, &ddesc, dcb);
  while (!dreq.done) wgpuInstanceProcessEvents(instance);
  if (dreq.device == nullptr) {
    throw Error(ErrorCode::NotSupported, "could not create a WebGPU device on " + adapter_name + ": " + dreq.message);
  }
  return dreq.device;
}

}  // namespace

const char* limits_mode_name(LimitsMode mode) { return mode == LimitsMode::Default ? "default" : "adapter"; }

LimitsMode parse_limits_mode(std::string_view text, std::string_view what) {
  if (text == "adapter") return LimitsMode::Adapter;
  if (text == "default") return LimitsMode::Default;
  throw Error(ErrorCode::InvalidArgument,
              std::string(what) + ": expected adapter or default, got '" + std::string(text) + "'");
}

DeviceLimits spec_default_limits() {
  DeviceLimits d;
  d.max_buffer_size = 268435456;
  d.max_storage_buffer_binding_size = 134217728;
  d.max_uniform_buffer_binding_size = 65536;
  d.max_storage_buffers_per_shader_stage = 8;
  d.max_compute_workgroups_per_dimension = 65535;
  d.max_compute_invocations_per_workgroup = 256;
  d.max_compute_workgroup_storage_size = 16384;
  d.max_compute_workgroup_size_x = 256;
  d.max_compute_workgroup_size_y = 256;
  d.max_compute_workgroup_size_z = 64;
  d.min_storage_buffer_offset_alignment = 256;
  d.min_uniform_buffer_offset_alignment = 256;
  return d;
}

std::vector<AdapterInfo> list_adapters() {
  Handle<WGPUInstance> instance(native::create_instance());
  if (!instance.get()) throw Error(ErrorCode::NotFound, "could not create a WebGPU instance");
  std::vector<AdapterInfo> infos;
  for (const auto& a : native::enumerate_adapters(instance.get())) infos.push_back(read_adapter_info(a.get()));
  return infos;
}

std::unique_ptr<Device> Device::create(const DeviceOptions& options) {
  std::unique_ptr<Device> dev(new Device());
  dev->errors_ = std::make_unique<ErrorSink>();
  dev->instance_.reset(native::create_instance());
  if (!dev->instance_.get()) throw Error(ErrorCode::NotFound, "could not create a WebGPU instance");
  dev->adapter_.reset(options.adapter < 0 ? request_adapter(dev->instance_.get())
                                          : nth_adapter(dev->instance_.get(), options.adapter));
  dev->adapter_info_ = read_adapter_info(dev->adapter_.get());

  // Adapter mode asks for the adapter's own limits: the spec defaults (128
  // MiB bindings, 16 KiB workgroup storage) are far below what real GPUs give.
  WGPULimits adapter_limits = WGPU_LIMITS_INIT;
  if (wgpuAdapterGetLimits(dev->adapter_.get(), &adapter_limits) != WGPUStatus_Success) {
    throw Error(ErrorCode::Internal, "wgpuAdapterGetLimits failed for " + dev->adapter_info_.name);
  }
  check_at_least_spec(convert(adapter_limits), dev->adapter_info_.name);
  const bool bare = options.limits == LimitsMode::Default;
  dev->limits_mode_ = options.limits;
  WGPULimits requested = bare ? spec_default_request() : adapter_limits;
  const FeatureChoice features = choose_features(dev->adapter_.get(), options, bare);
  dev->adapter_features_ = features.offered;

  dev->device_.reset(request_device(dev->instance_.get(), dev->adapter_.get(), features.wanted, requested,
                                    dev->errors_.get(), dev->adapter_info_.name));
  dev->queue_.reset(wgpuDeviceGetQueue(dev->device_.get()));

  WGPULimits granted = WGPU_LIMITS_INIT;
  wgpuDeviceGetLimits(dev->device_.get(), &granted);
  dev->limits_ = convert(granted);
  dev->max_binding_bytes_ = std::min(dev->limits_.max_storage_buffer_binding_size, dev->limits_.max_buffer_size);
  // Buffers are made in multiples of 4 bytes: a run of rows within the split
  // size stays within it once rounded up.
  dev->split_bytes_ = dev->max_binding_bytes_ & ~uint64_t{3};
  if (options.split_bytes_for_test != 0) dev->split_bytes_ = std::min(dev->split_bytes_, options.split_bytes_for_test);
  dev->features_.shader_f16 = wgpuDeviceHasFeature(dev->device_.get(), WGPUFeatureName_ShaderF16);
  dev->features_.timestamp_query = wgpuDeviceHasFeature(dev->device_.get(), WGPUFeatureName_TimestampQuery);
  dev->features_.subgroups = wgpuDeviceHasFeature(dev->device_.get(), features.subgroups);
  dev->pipelines_ = std::make_unique<PipelineCache>(*dev);
  return dev;
}

Device::~Device() {
  pipelines_.reset();
  // In this order, while errors_ (the callbacks' user data) is still alive.
  queue_.reset();
  device_.reset();
  adapter_.reset();
  instance_.reset();
}

std::string Device::implementation_version() const { return native::version(); }

void Device::check_errors() {
  std::lock_guard<std::mutex> lock(errors_->mutex);
  if (errors_->lost) {
    throw Error(ErrorCode::DeviceLost, "the WebGPU device was lost: " + errors_->lost_message);
  }
  if (!errors_->first_error.empty()) {
    Error e(errors_->first_code, errors_->first_error);
    errors_->first_error.clear();
    throw e;
  }
}

void Device::throw_if_lost() {
  std::lock_guard<std::mutex> lock(errors_->mutex);
  if (errors_->lost) throw Error(ErrorCode::DeviceLost, "the WebGPU device was lost: " + errors_->lost_message);
}

void Device::wait_idle() {
  native::poll(device_.get(), true);
  check_errors();
}

void Device::wait_until(const bool* done) {
  while (!*done) {
    native::poll(device_.get(), true);
    wgpuInstanceProcessEvents(instance_.get());
    {
      std::lock_guard<std::mutex> lock(errors_->mutex);
      if (errors_->lost) break;
    }
  }
  check_errors();
}

void Device::note_allocated(uint64_t bytes) {
  live_bytes_ += bytes;
  if (live_bytes_ > peak_bytes_) peak_bytes_ = live_bytes_;
}

void Device::note_released(uint64_t bytes) { live_bytes_ -= bytes; }

bool Device::consume_injected_failure(Site site) {
  ++gpu_calls_;
  if (fail_countdown_ == 0 || (fail_only_ && site != *fail_only_)) return false;
  if (--fail_countdown_ != 0) return false;
  last_injected_site_ = site;
  if (fail_loses_device_) {
    lose_for_test();
    throw_if_lost();
  }
  return true;
}

void Device::lose_for_test() {
  // wgpu-native reports a destroyed device's loss with reason Destroyed,
  // which the lost callback ignores (that is also what a normal shutdown
  // sends): mark the loss here.
  {
    std::lock_guard<std::mutex> lock(errors_->mutex);
    errors_->lost = true;
    errors_->lost_message = "destroyed by the test hook lose_for_test";
  }
  wgpuDeviceDestroy(device_.get());
}

namespace {
struct ScopeResult {
  bool done = false;
  WGPUErrorType type = WGPUErrorType_NoError;
  std::string message;
};
}  // namespace

void Device::push_scopes() {
  wgpuDevicePushErrorScope(device_.get(), WGPUErrorFilter_OutOfMemory);
  wgpuDevicePushErrorScope(device_.get(), WGPUErrorFilter_Validation);
}

void Device::pop_scopes(const char* what) {
  ScopeResult results[2];
  for (auto& r : results) {
    WGPUPopErrorScopeCallbackInfo cb = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
    cb.mode = WGPUCallbackMode_AllowProcessEvents;
    cb.userdata1 = &r;
    cb.callback = [](WGPUPopErrorScopeStatus, WGPUErrorType type, WGPUStringView message, void* ud, void*) {
      auto* res = static_cast<ScopeResult*>(ud);
      res->type = type;
      res->message = to_string(message);
      res->done = true;
    };
    wgpuDevicePopErrorScope(device_.get(), cb);
    while (!r.done) wgpuInstanceProcessEvents(instance_.get());
  }
  for (const auto& r : results) {
    if (r.type != WGPUErrorType_NoError) {
      throw Error(code_for(r.type), std::string(what) + ": " + r.message);
    }
  }
}

const char* Device::reduce_slot() const {
  if (!features().subgroups) return "workgroup";
  return native::strict_uniformity() ? "subgroup_uniform" : "subgroup";
}

bool Device::direct_mapped_writes() const { return native::direct_mapped_writes(); }

}  // namespace wgrt::gpu
