// libwgrt_executorch.so: wgrt as ExecuTorch's backend for the blobs that
// VulkanPartitioner writes. Loading the library registers it under the
// partitioner's name, "VulkanBackend", in the ExecuTorch runtime the process
// already holds (the wheel's libexecutorch.so, linked, never copied), which
// then runs the CPU parts of a program itself and calls wgrt for each
// delegate blob. Each blob becomes one ExecutableGraph on the process's
// shared wgrt device; its constants and state (a KV cache) stay on the GPU
// between calls.
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/platform/log.h>

#include "tensor_io.h"
#include "runtime/delegate_blob.h"
#include "runtime/runtime.h"
#include "cli/environment.h"
#include "wgrt/error.h"

namespace wgrt::et_backend {
namespace {

namespace et = executorch::runtime;

// One loaded blob: what init returns and execute and destroy get back.
struct Handle {
  std::string where;  // "VulkanBackend delegate of method 'forward'" for messages
  std::unique_ptr<ExecutableGraph> graph;
  CallInputs inputs;  // reused across calls
};

// The last failure's full message, for wgrt.executorch.last_error(): the
// Python runtime only reports ExecuTorch's error code.
std::mutex g_error_mutex;
std::string g_last_error;

et::Error to_et_error(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument: return et::Error::InvalidArgument;
    case ErrorCode::InvalidProgram: return et::Error::InvalidProgram;
    case ErrorCode::NotFound: return et::Error::NotFound;
    case ErrorCode::NotSupported: return et::Error::NotSupported;
    case ErrorCode::OutOfMemory: return et::Error::MemoryAllocationFailed;
    default: return et::Error::Internal;
  }
}

et::Error report(const std::string& message, et::Error code) {
  ET_LOG(Error, "wgrt: %s", message.c_str());
  std::lock_guard lock(g_error_mutex);
  g_last_error = message;
  return code;
}

// Runs f, turning every exception into an ExecuTorch error code and a logged
// message: nothing may unwind into ExecuTorch's C++ (built without them).
template <typename F>
et::Error guarded(const F& f) {
  try {
    f();
    return et::Error::Ok;
  } catch (const Error& e) {
    return report(e.what(), to_et_error(e.code()));
  } catch (const std::bad_alloc&) {
    return report("out of host memory", et::Error::MemoryAllocationFailed);
  } catch (const std::exception& e) {
    return report(e.what(), et::Error::Internal);
  }
}

// The process runtime with the limits WGRT_LIMITS names (adapter when
// unset): the backend has no options of its own, so the variables
// (src/cli/environment.h) are how a user of ExecuTorch's runtime asks for
// WebGPU's default limits or another tuning.
Runtime& backend_runtime() {
  gpu::DeviceOptions options;
  options.limits = static_cast<gpu::LimitsMode>(api::runtime_options_from_environment().limits);
  return Runtime::process_default(options);
}

class WgrtBackend final : public et::BackendInterface {
 public:
  bool is_available() const override {
    return guarded([] { backend_runtime(); }) == et::Error::Ok;
  }

  et::Result<et::DelegateHandle*> init(et::BackendInitContext& context, et::FreeableBuffer* processed,
                                       et::ArrayRef<et::CompileSpec> /*compile_specs*/) const override {
    // Compile specs only carry texture-era hints (storage type, memory
    // layout) and limits the graph's own max shapes already encode.
    auto handle = std::make_unique<Handle>();
    const char* method = context.get_method_name();
    handle->where = std::string("VulkanBackend delegate of method '") + (method ? method : "?") + "'";
    const et::NamedDataMap* named = context.get_named_data_map();
    // Named constants are fetched as the blob asks for them and released once
    // they are on the GPU.
    std::vector<et::FreeableBuffer> fetched;
    const pte::NamedDataLookup lookup = [&](std::string_view key) -> std::optional<std::span<const uint8_t>> {
      if (named == nullptr) return std::nullopt;
      auto data = named->get_data(key);
      if (data.error() == et::Error::NotFound) return std::nullopt;
      if (!data.ok()) {
        throw Error(ErrorCode::InvalidProgram, "named data '" + std::string(key) +
                                                   "': ExecuTorch's data map failed with error " +
                                                   std::to_string(static_cast<int>(data.error())));
      }
      fetched.push_back(std::move(data.get()));
      return std::span<const uint8_t>(static_cast<const uint8_t*>(fetched.back().data()), fetched.back().size());
    };
    const et::Error err = guarded([&] {
      const std::span<const uint8_t> blob(static_cast<const uint8_t*>(processed->data()), processed->size());
      LoadOptions load;
      load.tuning = tuning_from_environment();
      handle->graph = load_delegate_blob(backend_runtime().device(), blob, lookup, handle->where, load);
    });
    for (auto& f : fetched) f.Free();
    if (err != et::Error::Ok) return err;
    processed->Free();  // the graph and its constants live on the GPU now
    return handle.release();
  }

  et::Error execute(et::BackendExecutionContext& /*context*/, et::DelegateHandle* opaque,
                    et::Span<et::EValue*> args) const override {
    auto* handle = static_cast<Handle*>(opaque);
    if (handle == nullptr) return report("execute called with no delegate handle", et::Error::InvalidArgument);
    return guarded([&] {
      const std::span<et::EValue*> all(args.data(), args.size());
      gather_inputs(*handle->graph, all, handle->inputs, handle->where);
      check_outputs(*handle->graph, all, handle->where);
      std::vector<HostTensor> outputs;
      try {
        outputs = handle->graph->execute(handle->inputs.views);
      } catch (const Error& e) {
        throw e.with_context(handle->where);
      }
      scatter_outputs(*handle->graph, outputs, all, handle->where);
    });
  }

  void destroy(et::DelegateHandle* handle) const override { delete static_cast<Handle*>(handle); }
};

WgrtBackend g_backend;
// Registration happens when the library is loaded (dlopen or ctypes): that
// is the whole point of loading it. A second registration of the name (an
// ExecuTorch build that has its own Vulkan backend) fails and is reported.
const et::Error g_registered = et::register_backend({"VulkanBackend", &g_backend});

}  // namespace
}  // namespace wgrt::et_backend

// A small C interface for wgrt.executorch (ctypes).
extern "C" {

// 0 when VulkanBackend was registered on load; otherwise ExecuTorch's error code.
__attribute__((visibility("default"))) int wgrt_executorch_registration_status() {
  return static_cast<int>(wgrt::et_backend::g_registered);
}

// The last error message the backend reported (empty if none); valid until
// the next failure.
__attribute__((visibility("default"))) const char* wgrt_executorch_last_error() {
  std::lock_guard lock(wgrt::et_backend::g_error_mutex);
  static thread_local std::string copy;
  copy = wgrt::et_backend::g_last_error;
  return copy.c_str();
}

}  // extern "C"
