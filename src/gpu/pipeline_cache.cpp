#include "gpu/pipeline_cache.h"

#include <webgpu.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

#include "gpu/buffer.h"
#include "gpu/device.h"
#include "gpu/native.h"
#include "gpu/shader_program.h"
#include "gpu/webgpu_util.h"
#include "wgrt/error.h"

namespace wgrt::gpu {
namespace {

// The checks wgpu adds to every shader (native.h). None by default
// (Tuning::shader_checks): on the H200 (bench/RESULTS.md, 2026-12-01) the
// loop counters alone cost llama1b decode 35 % of its speed (573 -> 882
// tok/s without them) and the index clamps another 2 % (901), prefill 17 %
// (9,363 -> 10,921 tok/s pp512). Our shaders bound every loop by their
// parameters and compute their indices from the shapes the host checked;
// the ones indexed by data clamp those indices themselves (embeddings,
// gather). Out-of-range accesses left would stay inside their buffer under
// Vulkan's robust buffer access.
native::RuntimeChecks runtime_checks(ShaderChecks checks) {
  switch (checks) {
    case ShaderChecks::All: return {true, true};
    case ShaderChecks::Bounds: return {true, false};
    case ShaderChecks::None: break;
  }
  return {false, false};
}

}  // namespace

ComputePipeline::ComputePipeline(Handle<WGPUComputePipeline> pipeline, std::string label)
    : pipeline_(std::move(pipeline)), label_(std::move(label)) {}

namespace {

PipelineKey key_of(std::string shader, bool inline_text, std::string_view entry, const OverrideConstants& constants,
                   ShaderChecks checks) {
  PipelineKey key{std::move(shader), inline_text, {}, std::string(entry), checks, {}};
  for (const auto& [name, value] : constants) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    key.constants.emplace_back(name, bits);
  }
  std::sort(key.constants.begin(), key.constants.end());
  return key;
}

}  // namespace

const ComputePipeline& PipelineCache::get(std::string_view shader_path, std::string_view entry,
                                          const OverrideConstants& constants, ShaderChecks checks,
                                          std::span<const ShaderSlot> slots, std::span<const ShaderSlot> defaults) {
  PipelineKey key = key_of(std::string(shader_path), false, entry, constants, checks);
  for (const ShaderSlot& s : slots) key.slots.emplace_back(s.name, s.value);
  for (const ShaderSlot& d : defaults) {
    const bool given = std::any_of(slots.begin(), slots.end(), [&](const ShaderSlot& s) { return s.name == d.name; });
    if (!given) key.slots.emplace_back(d.name, d.value);
  }
  std::sort(key.slots.begin(), key.slots.end());
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return *it->second;
  std::string label(shader_path);
  for (const ShaderSlot& s : slots) label += " " + std::string(s.name) + "=" + std::string(s.value);
  return compile(std::move(key), shader_program(shader_path, slots, defaults), label);
}

const ComputePipeline& PipelineCache::get_from_source(std::string_view wgsl, std::string_view entry,
                                                      const OverrideConstants& constants,
                                                      std::string_view label, ShaderChecks shader_checks) {
  PipelineKey key = key_of(std::string(wgsl), true, entry, constants, shader_checks);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return *it->second;
  return compile(std::move(key), wgsl, label);
}

const ComputePipeline& PipelineCache::compile(PipelineKey key, std::string_view wgsl, std::string_view label) {
  const native::RuntimeChecks checks = runtime_checks(key.checks);
  const std::string_view entry = key.entry;
  device_.throw_if_lost();
  const std::string what = std::string(label) + ":" + std::string(entry);
  std::vector<WGPUConstantEntry> entries;
  for (const auto& [name, bits] : key.constants) {
    WGPUConstantEntry e = WGPU_CONSTANT_ENTRY_INIT;
    e.key = to_view(name);
    std::memcpy(&e.value, &bits, sizeof(bits));
    entries.push_back(e);
  }

  WGPUShaderSourceWGSL source = WGPU_SHADER_SOURCE_WGSL_INIT;
  source.code = to_view(wgsl);
  WGPUShaderModuleDescriptor mdesc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  mdesc.nextInChain = &source.chain;
  mdesc.label = to_view(label);

  Handle<WGPUShaderModule> module;
  Handle<WGPUComputePipeline> pipeline;
  try {
    if (device_.consume_injected_failure(Device::Site::ShaderModule)) {
      throw Error(ErrorCode::OutOfMemory, "compiling shader: injected failure (test hook)");
    }
    module = device_.scoped("compiling shader",
                            [&] { return native::create_shader_module(device_.raw(), mdesc, checks); });
    WGPUComputePipelineDescriptor pdesc = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
    pdesc.label = to_view(what);
    pdesc.compute.module = module.get();
    pdesc.compute.entryPoint = to_view(entry);
    pdesc.compute.constantCount = entries.size();
    pdesc.compute.constants = entries.data();
    if (device_.consume_injected_failure(Device::Site::Pipeline)) {
      throw Error(ErrorCode::OutOfMemory, "creating compute pipeline: injected failure (test hook)");
    }
    pipeline = device_.scoped("creating compute pipeline",
                              [&] { return wgpuDeviceCreateComputePipeline(device_.raw(), &pdesc); });
  } catch (const Error& e) {
    // Running out of memory (or losing the device) is not the shader's fault.
    const bool resource = e.code() == ErrorCode::OutOfMemory || e.code() == ErrorCode::DeviceLost;
    throw Error(resource ? e.code() : ErrorCode::InvalidProgram, "shader " + what + ": " + e.what());
  }
  if (!pipeline) throw Error(ErrorCode::InvalidProgram, "shader " + what + ": no pipeline created");

  auto [it, inserted] = pipelines_.emplace(std::move(key), std::make_unique<ComputePipeline>(std::move(pipeline), what));
  return *it->second;
}

BindGroup BindGroup::create(Device& device, const ComputePipeline& pipeline,
                            std::span<const BufferBinding> bindings) {
  device.throw_if_lost();
  std::vector<WGPUBindGroupEntry> entries;
  entries.reserve(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    const BufferBinding& b = bindings[i];
    if (b.buffer == nullptr || !*b.buffer) {
      throw Error(ErrorCode::Internal, "binding " + std::to_string(i) + " of " + pipeline.label() + " has no buffer");
    }
    WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
    e.binding = static_cast<uint32_t>(i);
    e.buffer = b.buffer->raw();
    e.offset = b.offset;
    e.size = b.size == 0 ? b.buffer->size() - b.offset : b.size;
    entries.push_back(e);
  }
  const Handle<WGPUBindGroupLayout> layout(wgpuComputePipelineGetBindGroupLayout(pipeline.raw(), 0));
  WGPUBindGroupDescriptor desc = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  desc.label = to_view(pipeline.label());
  desc.layout = layout.get();
  desc.entryCount = entries.size();
  desc.entries = entries.data();
  BindGroup group;
  try {
    if (device.consume_injected_failure(Device::Site::BindGroup)) {
      throw Error(ErrorCode::OutOfMemory, "creating bind group: injected failure (test hook)");
    }
    group.group_ = device.scoped("creating bind group", [&] { return wgpuDeviceCreateBindGroup(device.raw(), &desc); });
  } catch (const Error& e) {
    const bool resource = e.code() == ErrorCode::OutOfMemory || e.code() == ErrorCode::DeviceLost;
    throw Error(resource ? e.code() : ErrorCode::InvalidArgument, pipeline.label() + ": " + e.what());
  }
  return group;
}

}  // namespace wgrt::gpu
