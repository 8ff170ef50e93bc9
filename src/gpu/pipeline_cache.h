// Compute pipelines, cached under a typed key (PipelineKey: which shader
// with which slots, entry point, checks, override constants), and the bind
// groups that attach buffers to them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "gpu/handle.h"
#include "gpu/shader_program.h"
#include "wgrt/tuning.h"

namespace wgrt::gpu {

class Buffer;
class Device;

// WGSL `override` constants by name. Order does not matter: the cache sorts.
using OverrideConstants = std::vector<std::pair<std::string, double>>;

class ComputePipeline {
 public:
  ComputePipeline(Handle<WGPUComputePipeline> pipeline, std::string label);
  ComputePipeline(const ComputePipeline&) = delete;
  ComputePipeline& operator=(const ComputePipeline&) = delete;

  WGPUComputePipeline raw() const { return pipeline_.get(); }
  const std::string& label() const { return label_; }

 private:
  Handle<WGPUComputePipeline> pipeline_;
  std::string label_;
};

// What makes a pipeline, compared field by field: an embedded shader by its
// path and slot choices (its program text is assembled only when the key is
// new), or WGSL text given inline; the entry point; wgpu's runtime checks;
// each override constant's exact bits (a printed decimal would make 1e-7
// and 0 one pipeline). Slots and constants are sorted by name.
struct PipelineKey {
  std::string shader;  // an embedded path, or the inline WGSL itself
  bool inline_text = false;
  std::vector<std::pair<std::string, std::string>> slots;
  std::string entry;
  ShaderChecks checks = ShaderChecks::None;
  std::vector<std::pair<std::string, uint64_t>> constants;

  // std::tie, not a defaulted <=>: the web build's libc++ (emscripten 3.1.6)
  // has no three-way comparison for strings and vectors.
  bool operator<(const PipelineKey& o) const {
    return std::tie(shader, inline_text, slots, entry, checks, constants) <
           std::tie(o.shader, o.inline_text, o.slots, o.entry, o.checks, o.constants);
  }
};

class PipelineCache {
 public:
  explicit PipelineCache(Device& device) : device_(device) {}

  // The pipeline for an embedded shader (a path below src/ops/) with its
  // slots filled (`slots`, then `defaults` for the ones not given:
  // shader_program.h). A WGSL compile error throws Error(InvalidProgram)
  // with the compiler's message. `checks`: the runtime checks wgpu adds.
  const ComputePipeline& get(std::string_view shader_path, std::string_view entry,
                             const OverrideConstants& constants = {}, ShaderChecks checks = ShaderChecks::None,
                             std::span<const ShaderSlot> slots = {}, std::span<const ShaderSlot> defaults = {});
  // The same for WGSL text that is not embedded (tests, generated kernels).
  const ComputePipeline& get_from_source(std::string_view wgsl, std::string_view entry,
                                         const OverrideConstants& constants = {},
                                         std::string_view label = "inline",
                                         ShaderChecks checks = ShaderChecks::None);
  size_t size() const { return pipelines_.size(); }
  // Test hook: forgets every pipeline, so the next load compiles again (the
  // fault-injection walk needs every load to make the same GPU calls). Only
  // when no loaded graph is left: graphs hold references into the cache.
  void clear_for_test() { pipelines_.clear(); }
  // Test hook: forgets the index-th pipeline (in key order) alone, so the next
  // load compiles that one again; the same proviso.
  void forget_for_test(size_t index) { pipelines_.erase(std::next(pipelines_.begin(), ptrdiff_t(index))); }

 private:
  Device& device_;
  // Compiles `wgsl` for `key` (a miss) and keeps it.
  const ComputePipeline& compile(PipelineKey key, std::string_view wgsl, std::string_view label);

  std::map<PipelineKey, std::unique_ptr<ComputePipeline>> pipelines_;
};

// One buffer (or a range of it) at binding index i of group 0.
struct BufferBinding {
  const Buffer* buffer = nullptr;
  uint64_t offset = 0;
  uint64_t size = 0;  // 0: to the end of the buffer
};

class BindGroup {
 public:
  // Bindings are numbered by their position. Throws Error(InvalidArgument)
  // with WebGPU's message if they do not match the shader's layout.
  static BindGroup create(Device& device, const ComputePipeline& pipeline,
                          std::span<const BufferBinding> bindings);
  // Move-only (the handle is).
  BindGroup() = default;

  WGPUBindGroup raw() const { return group_.get(); }

 private:
  Handle<WGPUBindGroup> group_;
};

}  // namespace wgrt::gpu
