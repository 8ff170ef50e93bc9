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

#include <memory>
#include <string>

namespace wgrt::api {

namespace detail {
struct RuntimeImpl;
struct ProgramImpl;
struct LlmImpl;
}  // namespace detail

struct RuntimeOptions {
  // Optional adapter features, used only when the adapter offers them.
  bool shader_f16 = true;
  bool timestamp_query = true;  // needed for per-dispatch GPU times
  bool subgroups = true;
};

class Runtime {
 public:
  // Opens the first WebGPU adapter. Error(NotFound) when there is none, with
  // a hint on what to install.
  static Runtime create(const RuntimeOptions& options = {});

  // "name (backend, type)" of the adapter in use.
  std::string adapter_name() const;

  // For the other API classes: not part of the API.
  const std::shared_ptr<detail::RuntimeImpl>& impl() const { return impl_; }

 private:
  explicit Runtime(std::shared_ptr<detail::RuntimeImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<detail::RuntimeImpl> impl_;
};

// Settings of one loaded program or LLM. Each defaults to its environment
// variable when that is set (for A/B measurements without a rebuild).
struct LoadOptions {
  // Submit the GPU work after this many dispatches (0: once per run), so the
  // GPU starts while the rest is encoded. Default 64; WGRT_SUBMIT_EVERY.
  int submit_every = -1;  // -1: the default
  // Share scratch buffers between ops that run one after another. Default
  // on; WGRT_NO_SCRATCH_POOL=1 turns it off.
  int scratch_pool = -1;  // -1: the default, 0: off, 1: on
  // Fuse transformer-layer op patterns (RMSNorm into the next linear, the
  // residual add into the previous one) at load. Default on; WGRT_NO_FUSE=1
  // turns it off.
  int fuse = -1;  // -1: the default, 0: off, 1: on
};

}  // namespace wgrt::api
