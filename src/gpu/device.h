// The WebGPU device: instance, adapter and device, their limits and optional
// features, and the turning of WebGPU's asynchronous errors into wgrt::Error.
//
// By default (LimitsMode::Adapter) a Device asks the adapter for its own
// limits and for shader-f16, timestamp-query and subgroups when the adapter
// offers them; none of them is required. LimitsMode::Default asks for
// exactly WebGPU's default limits and no optional feature: what a browser or
// a small GPU guarantees, so that the same build is tested there. Everything that talks to the GPU goes through a
// Device; it is not thread-safe (one thread drives one Device).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/handle.h"

namespace wgrt::gpu {

class PipelineCache;

struct AdapterInfo {
  std::string name;          // e.g. "llvmpipe (LLVM 15.0.6, 256 bits)", "NVIDIA H200"
  std::string vendor;
  std::string architecture;
  std::string driver;        // the implementation's description string
  std::string backend;       // "Vulkan", "Metal", ...
  std::string device_type;   // "discrete GPU", "CPU", ...
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  bool operator==(const AdapterInfo&) const = default;
  // Chromium's CPU implementation (its name, architecture or description says
  // so): some kernels that suit GPUs and lavapipe run slowly there.
  bool swiftshader() const;
};

struct DeviceLimits {
  uint64_t max_buffer_size = 0;
  uint64_t max_storage_buffer_binding_size = 0;
  uint64_t max_uniform_buffer_binding_size = 0;
  uint32_t max_storage_buffers_per_shader_stage = 0;
  uint32_t max_compute_workgroups_per_dimension = 0;
  uint32_t max_compute_invocations_per_workgroup = 0;
  uint32_t max_compute_workgroup_storage_size = 0;
  uint32_t max_compute_workgroup_size_x = 0;
  uint32_t max_compute_workgroup_size_y = 0;
  uint32_t max_compute_workgroup_size_z = 0;
  uint32_t min_storage_buffer_offset_alignment = 0;
  uint32_t min_uniform_buffer_offset_alignment = 0;
};

struct DeviceFeatures {
  bool shader_f16 = false;
  bool timestamp_query = false;
  bool subgroups = false;
};

// Which limits a device is created with.
enum class LimitsMode {
  Adapter,  // the adapter's own (as large as it offers)
  Default,  // WebGPU's default limits and no optional feature
};
// "adapter" / "default"; parse_limits_mode throws Error(InvalidArgument)
// naming `what` (the option or variable) and the accepted values.
const char* limits_mode_name(LimitsMode mode);
LimitsMode parse_limits_mode(std::string_view text, std::string_view what);

// The WebGPU specification's default limits (what LimitsMode::Default asks
// for, and the least an adapter must offer for wgrt to use it).
DeviceLimits spec_default_limits();

struct DeviceOptions {
  LimitsMode limits = LimitsMode::Adapter;
  // Each optional feature is requested only if the adapter offers it, the
  // caller wants it and the limits mode is Adapter; turning one off is how
  // tests exercise the fallback path.
  bool want_shader_f16 = true;
  bool want_timestamp_query = true;
  bool want_subgroups = true;
  // Test only (0: off): constant tensors larger than this many bytes are
  // stored in several buffers, as if the device's binding limit were this
  // low, so that small models meet every op's split path.
  uint64_t split_bytes_for_test = 0;
  // Which adapter: -1, the one the implementation prefers for performance;
  // n >= 0, the nth of list_adapters() (a model split across GPUs names
  // each). Error(NotFound) naming the adapters there are when n is past them.
  int adapter = -1;
};

// The adapters this machine offers, in the order DeviceOptions::adapter
// counts them (empty where they cannot be listed: a browser).
std::vector<AdapterInfo> list_adapters();

class Device {
 public:
  // Throws Error(NotFound) when no adapter is available, with a hint on what
  // to install.
  static std::unique_ptr<Device> create(const DeviceOptions& options = {});
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const AdapterInfo& adapter_info() const { return adapter_info_; }
  // A CPU implementation (lavapipe, SwiftShader): kernels whose speed rests
  // on GPU hardware (packed int8 dot products) choose otherwise there.
  bool cpu_adapter() const { return adapter_info_.device_type == "CPU"; }
  const DeviceLimits& limits() const { return limits_; }
  LimitsMode limits_mode() const { return limits_mode_; }
  // The most bytes one buffer binding may hold here: the smaller of
  // maxStorageBufferBindingSize and maxBufferSize.
  uint64_t max_binding_bytes() const { return max_binding_bytes_; }
  // A constant larger than this is stored in several buffers (MemoryPlan):
  // max_binding_bytes() rounded down to 4, or DeviceOptions::
  // split_bytes_for_test when that is lower.
  uint64_t split_bytes() const { return split_bytes_; }
  // Features enabled on this device (requested and granted).
  const DeviceFeatures& features() const { return features_; }
  // The reduction shaders import as {reduce} (common/reduce_<it>.wgsl):
  // "subgroup", "subgroup_uniform" where the compiler enforces uniformity
  // (native::strict_uniformity), or "workgroup" without subgroups.
  const char* reduce_slot() const;
  // Features the adapter offers, whether or not requested.
  const DeviceFeatures& adapter_features() const { return adapter_features_; }
  std::string implementation_version() const;

  PipelineCache& pipelines() { return *pipelines_; }

  // Throws the first WebGPU error reported since the last check (validation,
  // out-of-memory, internal) or Error(DeviceLost) once the device is lost.
  void check_errors();
  // Throws Error(DeviceLost) once the device is lost. Called before every
  // creation, write and submit: wgpu-native treats some calls on a lost
  // device as fatal, so they must not be made.
  void throw_if_lost();
  // Blocks until all submitted work has finished, then check_errors().
  void wait_idle();

  // Bytes of GPU buffers alive on this device right now, and the most ever.
  // Whether host threads can write a mapped staging buffer in place
  // (gpu/upload_ring.h): natively yes; in a browser a mapped range is a copy.
  bool direct_mapped_writes() const;
  uint64_t live_buffer_bytes() const { return live_bytes_; }
  uint64_t peak_buffer_bytes() const { return peak_bytes_; }

  // Test hooks. fail_nth_allocation_for_test: the Nth buffer allocation from
  // now (1 = the next) fails with Error(OutOfMemory) as a real one would.
  // fail_nth_gpu_call_for_test: the same over every GPU call that can fail
  // (buffer, shader module, compute pipeline, bind group and query set
  // creation, buffer mapping, queue submit), in the order they happen; with
  // `only`, counting that site's calls alone. lose_device_at_nth_gpu_call_for_test:
  // at the Nth such call the device is destroyed (as lose_for_test) and that
  // call throws Error(DeviceLost), a loss in the middle of a load or a run.
  // 0 disarms. While one is armed and has not fired,
  // injected_failure_pending() is true: a caller walking N upwards is done
  // when a whole run leaves it pending.
  enum class Site { Buffer, ShaderModule, Pipeline, BindGroup, QuerySet, BufferMap, Submit };
  void fail_nth_allocation_for_test(uint32_t n) { arm_failure(n, Site::Buffer, false); }
  void fail_nth_gpu_call_for_test(uint32_t n, std::optional<Site> only = std::nullopt) {
    arm_failure(n, only, false);
  }
  void lose_device_at_nth_gpu_call_for_test(uint32_t n) { arm_failure(n, std::nullopt, true); }
  bool injected_failure_pending() const { return fail_countdown_ != 0; }
  // How many GPU calls that can fail (the sites above) this device has made.
  uint64_t gpu_calls_for_test() const { return gpu_calls_; }
  // Test hook: destroys the WebGPU device as a driver reset would; every
  // later call fails with Error(DeviceLost).
  void lose_for_test();

  // For gpu/ only.
  WGPUInstance instance() const { return instance_.get(); }
  WGPUDevice raw() const { return device_.get(); }
  WGPUQueue queue() const { return queue_.get(); }
  // Spins the event loop until *done becomes true (or the device is lost).
  void wait_until(const bool* done);
  void note_allocated(uint64_t bytes);
  void note_released(uint64_t bytes);
  // Where an injected failure may strike: each creation, mapping or submit
  // call in gpu/ asks first, and fails as the real call would when told to
  // (or throws Error(DeviceLost) itself when the hook loses the device there).
  bool consume_injected_failure(Site site);
  // The site the last injected failure struck (tests tally them).
  Site last_injected_site() const { return last_injected_site_; }
  // Runs `create` inside validation and out-of-memory error scopes; throws
  // with the scope's message (e.g. a WGSL compile error) if either caught one.
  // The created object comes back owned by a Handle.
  template <typename Fn>
  auto scoped(const char* what, Fn&& create) -> Handle<decltype(create())>;

  struct ErrorSink;  // receives callbacks; defined in device.cpp

 private:
  Device() = default;
  void push_scopes();
  void pop_scopes(const char* what);

  Handle<WGPUInstance> instance_;
  Handle<WGPUAdapter> adapter_;
  Handle<WGPUDevice> device_;
  Handle<WGPUQueue> queue_;
  AdapterInfo adapter_info_;
  DeviceLimits limits_;
  LimitsMode limits_mode_ = LimitsMode::Adapter;
  uint64_t max_binding_bytes_ = 0;
  uint64_t split_bytes_ = 0;
  DeviceFeatures features_;
  DeviceFeatures adapter_features_;
  std::unique_ptr<PipelineCache> pipelines_;
  std::unique_ptr<ErrorSink> errors_;
  uint64_t live_bytes_ = 0;
  uint64_t peak_bytes_ = 0;
  void arm_failure(uint32_t n, std::optional<Site> only, bool lose) {
    fail_countdown_ = n;
    fail_only_ = only;
    fail_loses_device_ = lose;
  }
  uint64_t gpu_calls_ = 0;
  uint32_t fail_countdown_ = 0;
  std::optional<Site> fail_only_;  // counts this site's calls alone
  bool fail_loses_device_ = false;
  Site last_injected_site_ = Site::Buffer;
};

template <typename Fn>
auto Device::scoped(const char* what, Fn&& create) -> Handle<decltype(create())> {
  push_scopes();
  // WebGPU returns an (invalid) object even when creation fails: the handle
  // releases it when pop_scopes throws, or it would keep the device alive
  // (found by LeakSanitizer).
  Handle<decltype(create())> result(create());
  pop_scopes(what);
  return result;
}

}  // namespace wgrt::gpu
