// wgrt's public C++ API: the runtime (one WebGPU device).
//
// Conventions of every header under include/wgrt/ (ABI stability is not
// promised yet):
//  - Errors: every call that can fail throws wgrt::Error (wgrt/error.h) whose
//    code() says what kind of failure and whose what() says what and where.
//    A call that throws leaves the object it was called on as it was.
//  - Ownership: Runtime, Program and Llm are handles to shared state; copies
//    refer to the same object, and a Program or Llm keeps its Runtime's device
//    alive. Tensors own their bytes.
//  - Threads: objects are thread-compatible, not thread-safe. Distinct
//    objects may be used from distinct threads at once if they do not share a
//    Runtime; calls on one Runtime, or on Programs and Llms made from it, must
//    be serialized by the caller.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wgrt/tuning.h"

namespace wgrt::api {

namespace detail {
struct RuntimeImpl;
struct ProgramImpl;
struct LlmImpl;
}  // namespace detail

// Which limits the device is created with (the CLI's --limits, and
// WGRT_LIMITS where the CLI, the Python package and the ExecuTorch backend
// read it):
//   Adapter  the adapter's own limits and optional features (the default)
//   Default  exactly WebGPU's default limits (128 MiB bindings, 256 MiB
//            buffers, 8 storage buffers per stage, 16 KiB workgroup memory,
//            ...) and no optional feature: what any conformant adapter and
//            browser gives, for testing that a model runs there
enum class LimitsMode { Adapter, Default };
// "adapter" or "default"; anything else is Error(InvalidArgument) naming
// `what` (the option or variable) and the accepted values.
LimitsMode parse_limits_mode(std::string_view text, std::string_view what);
const char* limits_mode_name(LimitsMode mode);

struct RuntimeOptions {
  LimitsMode limits = LimitsMode::Adapter;
  // Test only (0: off): constant tensors above this many bytes are stored
  // in several buffers as if the binding limit were this low, so that small
  // models meet the ops' split paths.
  uint64_t split_bytes_for_test = 0;
  // Optional adapter features, used only when the adapter offers them (and
  // never in LimitsMode::Default).
  bool shader_f16 = true;
  bool timestamp_query = true;  // needed for per-dispatch GPU times
  bool subgroups = true;
  // Which adapter: -1, the one the WebGPU implementation prefers for
  // performance; n >= 0, the nth of list_adapters() (Error(NotFound) naming
  // those there are when past them).
  int adapter = -1;
};

// The WebGPU adapter a runtime runs on.
struct AdapterInfo {
  std::string name;            // e.g. "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string vendor;
  std::string architecture;    // may be empty
  std::string driver;          // the driver's description; may be empty
  std::string backend;         // "Vulkan", "Metal", ...
  std::string device_type;     // "discrete GPU", "CPU", ...
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  std::string implementation;  // the WebGPU implementation, e.g. "wgpu-native 29.0.0.0"
};

// Optional WebGPU features (see RuntimeOptions).
struct AdapterFeatures {
  bool shader_f16 = false;
  bool timestamp_query = false;
  bool subgroups = false;
};

// The device limits wgrt plans against (WebGPU's names, in snake case).
struct AdapterLimits {
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
};

// The adapters this machine offers, in the order RuntimeOptions::adapter and
// LlmOptions::devices count them. Empty where adapters cannot be listed (a
// browser offers one). Each entry's `implementation` is left empty.
std::vector<AdapterInfo> list_adapters();

class Runtime {
 public:
  // Opens the first WebGPU adapter. Error(NotFound) when there is none, with
  // a hint on what to install.
  static Runtime create(const RuntimeOptions& options = {});
  // The runtime shared by every part of this process that asks for it (the
  // Python package, ExecuTorch's wgrt backend): one device, created on first
  // use with `options` and kept until the process ends. A later call whose
  // limits mode or split size differs, or that names an adapter other than
  // the device's, is Error(InvalidArgument): the device exists already.
  static Runtime process_default(const RuntimeOptions& options = {});

  // "name (backend, type)" of the adapter in use.
  std::string adapter_name() const;
  AdapterInfo adapter_info() const;
  AdapterLimits limits() const;
  // The limits mode this runtime's device was created with.
  LimitsMode limits_mode() const;
  // Features enabled on this runtime's device (wanted and offered), and those
  // the adapter offers whether wanted or not.
  AdapterFeatures features() const;
  AdapterFeatures offered_features() const;
  // Bytes of GPU buffers alive on the device now, and the most ever at once.
  uint64_t live_buffer_bytes() const;
  uint64_t peak_buffer_bytes() const;

  // For the other API classes: not part of the API.
  const std::shared_ptr<detail::RuntimeImpl>& impl() const { return impl_; }

 private:
  explicit Runtime(std::shared_ptr<detail::RuntimeImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<detail::RuntimeImpl> impl_;
};

// An operator wgrt runs (the name a .pte's Vulkan graph uses) and the
// element types it accepts, e.g. {"aten.add.Tensor", "f32, f16, i32"}.
struct OperatorInfo {
  std::string name;
  std::string dtypes;
};
// Every operator, sorted by name.
std::vector<OperatorInfo> supported_operators();

// Settings of one loaded program or LLM: every tuning switch (wgrt/tuning.h,
// defaults in code). The library reads no environment variable for them;
// load_options_from_environment (src/cli/environment.h) maps the WGRT_*
// variables for entry points that want them. A field outside its range is
// Error(InvalidArgument) at load, naming the field.
struct LoadOptions {
  Tuning tuning;
};

}  // namespace wgrt::api
