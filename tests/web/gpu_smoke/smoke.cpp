// Smoke test of src/gpu/web/webgpu_library.js (and web_native.cpp) in a
// browser: plain C++ on webgpu.h, as src/gpu/ uses it. Sets document.title
// to "pass" or "fail: <why>"; tests/web/test_gpu_smoke.py drives it.
#include <emscripten.h>
#include <webgpu.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/native.h"

namespace native = wgrt::gpu::native;

namespace {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(bool ok, const std::string& what) {
  if (!ok) throw Failure(what);
}

void log(const std::string& line) { std::printf("smoke: %s\n", line.c_str()); }

std::string str(WGPUStringView s) {
  if (s.data == nullptr) return {};
  return s.length == WGPU_STRLEN ? std::string(s.data) : std::string(s.data, s.length);
}

WGPUStringView view(const char* s) { return {s, WGPU_STRLEN}; }

// Polls with ProcessEvents until `done`, failing after `limit` polls.
template <typename Done>
void process_until(WGPUInstance instance, Done done, const char* what, int limit = 100000) {
  for (int i = 0; !done(); ++i) {
    check(i < limit, std::string("gave up waiting for ") + what);
    wgpuInstanceProcessEvents(instance);
  }
}

struct AdapterResult {
  bool done = false;
  WGPURequestAdapterStatus status = WGPURequestAdapterStatus_Error;
  WGPUAdapter adapter = nullptr;
  std::string message;
};

struct DeviceResult {
  bool done = false;
  WGPURequestDeviceStatus status = WGPURequestDeviceStatus_Error;
  WGPUDevice device = nullptr;
  std::string message;
};

struct DeviceEvents {
  int errors = 0;
  WGPUErrorType error_type = WGPUErrorType_NoError;
  std::string error_message;
  WGPUDevice error_device = nullptr;
  int lost = 0;
  WGPUDeviceLostReason lost_reason = WGPUDeviceLostReason_Unknown;
  WGPUDevice lost_device = nullptr;
};

struct ScopeResult {
  bool done = false;
  WGPUPopErrorScopeStatus status = WGPUPopErrorScopeStatus_Error;
  WGPUErrorType type = WGPUErrorType_NoError;
  std::string message;
};

WGPUPopErrorScopeCallbackInfo scope_callback(ScopeResult* r) {
  WGPUPopErrorScopeCallbackInfo cb = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.userdata1 = r;
  cb.callback = [](WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message, void* ud, void*) {
    auto* res = static_cast<ScopeResult*>(ud);
    res->status = status;
    res->type = type;
    res->message = str(message);
    res->done = true;
  };
  return cb;
}

// Pops a scope and returns what it caught.
ScopeResult pop_scope(WGPUInstance instance, WGPUDevice device) {
  ScopeResult r;
  wgpuDevicePopErrorScope(device, scope_callback(&r));
  process_until(instance, [&] { return r.done; }, "an error scope");
  check(r.status == WGPUPopErrorScopeStatus_Success, "popErrorScope failed: " + r.message);
  return r;
}

struct MapResult {
  bool done = false;
  WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
  std::string message;
};

// Maps `buffer` (for reading or writing), waiting as wgrt's rings do.
void map_and_wait(WGPUInstance instance, WGPUDevice device, WGPUBuffer buffer, WGPUMapMode mode, size_t bytes) {
  MapResult m;
  WGPUBufferMapCallbackInfo cb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.userdata1 = &m;
  cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView message, void* ud, void*) {
    auto* r = static_cast<MapResult*>(ud);
    r->status = status;
    r->message = str(message);
    r->done = true;
  };
  wgpuBufferMapAsync(buffer, mode, 0, bytes, cb);
  check(!m.done, "the map callback fired outside a poll");
  for (int i = 0; !m.done; ++i) {
    check(i < 10000, "gave up waiting for a mapping");
    native::poll(device, true);
    wgpuInstanceProcessEvents(instance);
  }
  check(m.status == WGPUMapAsyncStatus_Success, "mapping failed: " + m.message);
}

// Maps `buffer` for reading, waiting as wgrt's Buffer::read does, and copies it out.
std::vector<uint8_t> read_back(WGPUInstance instance, WGPUDevice device, WGPUBuffer buffer, size_t bytes) {
  map_and_wait(instance, device, buffer, WGPUMapMode_Read, bytes);
  const auto* data = static_cast<const uint8_t*>(wgpuBufferGetConstMappedRange(buffer, 0, bytes));
  check(data != nullptr, "wgpuBufferGetConstMappedRange returned NULL");
  check(wgpuBufferGetConstMappedRange(buffer, 0, bytes) == data, "the same range twice gave two copies");
  std::vector<uint8_t> out(data, data + bytes);
  wgpuBufferUnmap(buffer);
  return out;
}

WGPUBuffer make_buffer(WGPUDevice device, const char* label, uint64_t size, WGPUBufferUsage usage) {
  WGPUBufferDescriptor desc = WGPU_BUFFER_DESCRIPTOR_INIT;
  desc.label = view(label);
  desc.size = size;
  desc.usage = usage;
  WGPUBuffer b = wgpuDeviceCreateBuffer(device, &desc);
  check(b != nullptr, std::string("no buffer ") + label);
  return b;
}

constexpr const char* kShader = R"(
override scale: f32 = 1.0;
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x < arrayLength(&src)) { dst[id.x] = src[id.x] * scale + 1.0; }
}
)";

void run() {
  log("implementation: " + native::version());
  WGPUInstance instance = native::create_instance();
  check(instance != nullptr, "no instance");

  // --- adapter ---
  AdapterResult ar;
  WGPURequestAdapterOptions aopts = WGPU_REQUEST_ADAPTER_OPTIONS_INIT;
  aopts.powerPreference = WGPUPowerPreference_HighPerformance;
  WGPURequestAdapterCallbackInfo acb = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  acb.mode = WGPUCallbackMode_AllowProcessEvents;
  acb.userdata1 = &ar;
  acb.callback = [](WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message, void* ud,
                    void*) {
    auto* r = static_cast<AdapterResult*>(ud);
    r->status = status;
    r->adapter = adapter;
    r->message = str(message);
    r->done = true;
  };
  wgpuInstanceRequestAdapter(instance, &aopts, acb);
  check(!ar.done, "the adapter callback fired before wgpuInstanceProcessEvents");
  process_until(instance, [&] { return ar.done; }, "the adapter");
  check(ar.status == WGPURequestAdapterStatus_Success && ar.adapter,
        "no adapter (status " + std::to_string(ar.status) + "): " + ar.message);
  WGPUAdapter adapter = ar.adapter;

  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  check(wgpuAdapterGetInfo(adapter, &info) == WGPUStatus_Success, "wgpuAdapterGetInfo failed");
  log("adapter: vendor '" + str(info.vendor) + "', architecture '" + str(info.architecture) + "', device '" +
      str(info.device) + "', description '" + str(info.description) + "', subgroups " +
      std::to_string(info.subgroupMinSize) + ".." + std::to_string(info.subgroupMaxSize));
  check(info.backendType == WGPUBackendType_WebGPU, "backendType is not WebGPU");
  check(info.adapterType == WGPUAdapterType_Unknown, "adapterType is not Unknown");
  check(!str(info.vendor).empty() || !str(info.architecture).empty(), "the adapter has no vendor or architecture");
  wgpuAdapterInfoFreeMembers(info);

  // Limits: every field written, the chain left alone.
  WGPUChainedStruct marker = {nullptr, WGPUSType_Force32};
  WGPULimits al = WGPU_LIMITS_INIT;
  al.nextInChain = &marker;
  check(wgpuAdapterGetLimits(adapter, &al) == WGPUStatus_Success, "wgpuAdapterGetLimits failed");
  check(al.nextInChain == &marker, "wgpuAdapterGetLimits changed nextInChain");
  al.nextInChain = nullptr;
  log("adapter limits: maxBufferSize " + std::to_string(al.maxBufferSize) + ", maxStorageBufferBindingSize " +
      std::to_string(al.maxStorageBufferBindingSize) + ", maxStorageBuffersPerShaderStage " +
      std::to_string(al.maxStorageBuffersPerShaderStage) + ", maxComputeWorkgroupStorageSize " +
      std::to_string(al.maxComputeWorkgroupStorageSize) + ", maxImmediateSize " + std::to_string(al.maxImmediateSize));
  check(al.maxBufferSize >= 268435456 && al.maxBufferSize != WGPU_LIMIT_U64_UNDEFINED, "maxBufferSize");
  check(al.maxStorageBufferBindingSize >= 134217728 && al.maxStorageBufferBindingSize != WGPU_LIMIT_U64_UNDEFINED,
        "maxStorageBufferBindingSize");
  check(al.maxUniformBufferBindingSize >= 65536, "maxUniformBufferBindingSize");
  check(al.maxStorageBuffersPerShaderStage >= 8 && al.maxStorageBuffersPerShaderStage != WGPU_LIMIT_U32_UNDEFINED,
        "maxStorageBuffersPerShaderStage");
  check(al.maxComputeWorkgroupStorageSize >= 16384, "maxComputeWorkgroupStorageSize");
  check(al.maxComputeInvocationsPerWorkgroup >= 256, "maxComputeInvocationsPerWorkgroup");
  check(al.maxComputeWorkgroupSizeZ >= 64 && al.maxComputeWorkgroupsPerDimension >= 65535, "workgroup limits");
  check(al.minStorageBufferOffsetAlignment > 0 && al.minStorageBufferOffsetAlignment <= 256, "storage alignment");
  check(al.maxBindGroups >= 4 && al.maxTextureDimension1D >= 8192, "maxBindGroups / maxTextureDimension1D");

  const bool f16 = wgpuAdapterHasFeature(adapter, WGPUFeatureName_ShaderF16);
  const bool timestamps = wgpuAdapterHasFeature(adapter, WGPUFeatureName_TimestampQuery);
  const bool subgroups = wgpuAdapterHasFeature(adapter, static_cast<WGPUFeatureName>(native::subgroups_feature()));
  log(std::string("adapter features: shader-f16 ") + (f16 ? "yes" : "no") + ", timestamp-query " +
      (timestamps ? "yes" : "no") + ", subgroups " + (subgroups ? "yes" : "no"));
  // wgpu-native's own subgroup feature (wgpu.h's WGPUNativeFeature_Subgroup) is the same one.
  check(bool(wgpuAdapterHasFeature(adapter, static_cast<WGPUFeatureName>(0x00030021))) == subgroups,
        "WGPUNativeFeature_Subgroup disagrees with WGPUFeatureName_Subgroups");

  // --- device: the adapter's limits and features, as wgrt asks ---
  std::vector<WGPUFeatureName> wanted;
  if (timestamps) wanted.push_back(WGPUFeatureName_TimestampQuery);
  if (subgroups) wanted.push_back(WGPUFeatureName_Subgroups);
  DeviceResult dr;
  DeviceEvents events;
  WGPUDeviceDescriptor ddesc = WGPU_DEVICE_DESCRIPTOR_INIT;
  ddesc.label = view("smoke");
  ddesc.requiredFeatureCount = wanted.size();
  ddesc.requiredFeatures = wanted.data();
  ddesc.requiredLimits = &al;
  ddesc.uncapturedErrorCallbackInfo.userdata1 = &events;
  ddesc.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const* device, WGPUErrorType type,
                                                  WGPUStringView message, void* ud, void*) {
    auto* e = static_cast<DeviceEvents*>(ud);
    ++e->errors;
    e->error_type = type;
    e->error_message = str(message);
    e->error_device = *device;
  };
  ddesc.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  ddesc.deviceLostCallbackInfo.userdata1 = &events;
  ddesc.deviceLostCallbackInfo.callback = [](WGPUDevice const* device, WGPUDeviceLostReason reason,
                                             WGPUStringView, void* ud, void*) {
    auto* e = static_cast<DeviceEvents*>(ud);
    ++e->lost;
    e->lost_reason = reason;
    e->lost_device = *device;
  };
  WGPURequestDeviceCallbackInfo dcb = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  dcb.mode = WGPUCallbackMode_AllowProcessEvents;
  dcb.userdata1 = &dr;
  dcb.callback = [](WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message, void* ud, void*) {
    auto* r = static_cast<DeviceResult*>(ud);
    r->status = status;
    r->device = device;
    r->message = str(message);
    r->done = true;
  };
  wgpuAdapterRequestDevice(adapter, &ddesc, dcb);
  check(!dr.done, "the device callback fired before wgpuInstanceProcessEvents");
  process_until(instance, [&] { return dr.done; }, "the device");
  check(dr.status == WGPURequestDeviceStatus_Success && dr.device, "no device: " + dr.message);
  WGPUDevice device = dr.device;

  WGPULimits dl = WGPU_LIMITS_INIT;
  check(wgpuDeviceGetLimits(device, &dl) == WGPUStatus_Success, "wgpuDeviceGetLimits failed");
  check(dl.maxStorageBufferBindingSize == al.maxStorageBufferBindingSize && dl.maxBufferSize == al.maxBufferSize &&
            dl.maxComputeWorkgroupStorageSize == al.maxComputeWorkgroupStorageSize &&
            dl.maxStorageBuffersPerShaderStage == al.maxStorageBuffersPerShaderStage,
        "the device did not get the adapter's limits (maxStorageBufferBindingSize " +
            std::to_string(dl.maxStorageBufferBindingSize) + ")");
  check(bool(wgpuDeviceHasFeature(device, WGPUFeatureName_TimestampQuery)) == timestamps, "timestamp-query");
  check(bool(wgpuDeviceHasFeature(device, WGPUFeatureName_Subgroups)) == subgroups, "subgroups");
  check(!wgpuDeviceHasFeature(device, WGPUFeatureName_ShaderF16), "shader-f16 without asking");
  WGPUQueue queue = wgpuDeviceGetQueue(device);

  // --- buffers ---
  constexpr uint32_t n = 1000;  // not a multiple of the workgroup size
  constexpr uint64_t bytes = n * sizeof(float);
  WGPUBuffer input = make_buffer(device, "input", bytes, WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst);
  WGPUBuffer output = make_buffer(device, "output", bytes, WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc);
  WGPUBuffer readback = make_buffer(device, "readback", bytes, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
  check(wgpuBufferGetUsage(input) == (WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst), "wgpuBufferGetUsage");
  std::vector<float> values(n);
  for (uint32_t i = 0; i < n; ++i) values[i] = 0.5f * float(i) - 100.0f;
  wgpuQueueWriteBuffer(queue, input, 0, values.data(), bytes);
  wgpuBufferAddRef(input);  // a second reference, dropped at once: the buffer must live on
  wgpuBufferRelease(input);

  // --- shader, pipeline (scale = 3 through a constant), bind group ---
  wgpuDevicePushErrorScope(device, WGPUErrorFilter_Validation);
  WGPUShaderSourceWGSL source = WGPU_SHADER_SOURCE_WGSL_INIT;
  source.code = {kShader, std::strlen(kShader)};
  WGPUShaderModuleDescriptor mdesc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  mdesc.nextInChain = &source.chain;
  mdesc.label = view("smoke shader");
  WGPUShaderModule module = native::create_shader_module(device, mdesc, {});
  WGPUConstantEntry scale = WGPU_CONSTANT_ENTRY_INIT;
  scale.key = {"scale", 5};
  scale.value = 3.0;
  WGPUComputePipelineDescriptor pdesc = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  pdesc.label = view("smoke pipeline");
  pdesc.compute.module = module;
  pdesc.compute.entryPoint = {"main", 4};
  pdesc.compute.constantCount = 1;
  pdesc.compute.constants = &scale;
  WGPUComputePipeline pipeline = wgpuDeviceCreateComputePipeline(device, &pdesc);
  wgpuShaderModuleAddRef(module);
  wgpuShaderModuleRelease(module);
  wgpuComputePipelineAddRef(pipeline);
  wgpuComputePipelineRelease(pipeline);
  WGPUBindGroupLayout layout = wgpuComputePipelineGetBindGroupLayout(pipeline, 0);
  WGPUBindGroupEntry entries[2] = {WGPU_BIND_GROUP_ENTRY_INIT, WGPU_BIND_GROUP_ENTRY_INIT};
  entries[0].binding = 0;
  entries[0].buffer = input;
  entries[0].size = WGPU_WHOLE_SIZE;
  entries[1].binding = 1;
  entries[1].buffer = output;
  entries[1].size = bytes;
  WGPUBindGroupDescriptor gdesc = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  gdesc.layout = layout;
  gdesc.entryCount = 2;
  gdesc.entries = entries;
  WGPUBindGroup group = wgpuDeviceCreateBindGroup(device, &gdesc);
  wgpuBindGroupLayoutRelease(layout);
  wgpuBindGroupAddRef(group);
  wgpuBindGroupRelease(group);
  const ScopeResult setup = pop_scope(instance, device);
  check(setup.type == WGPUErrorType_NoError, "creating the shader, pipeline or bind group: " + setup.message);

  // --- dispatch (timed when the adapter can), copy, submit ---
  WGPUQuerySet queries = nullptr;
  WGPUBuffer resolve = nullptr, stamps = nullptr;
  if (timestamps) {
    WGPUQuerySetDescriptor qdesc = WGPU_QUERY_SET_DESCRIPTOR_INIT;
    qdesc.type = WGPUQueryType_Timestamp;
    qdesc.count = 2;
    queries = wgpuDeviceCreateQuerySet(device, &qdesc);
    resolve = make_buffer(device, "resolve", 16, WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc);
    stamps = make_buffer(device, "stamps", 16, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
  }
  WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(device, nullptr);
  WGPUPassTimestampWrites writes = WGPU_PASS_TIMESTAMP_WRITES_INIT;
  writes.querySet = queries;
  writes.beginningOfPassWriteIndex = 0;
  writes.endOfPassWriteIndex = 1;
  WGPUComputePassDescriptor cdesc = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
  if (timestamps) cdesc.timestampWrites = &writes;
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, &cdesc);
  wgpuComputePassEncoderSetPipeline(pass, pipeline);
  wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, (n + 63) / 64, 1, 1);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  wgpuCommandEncoderCopyBufferToBuffer(encoder, output, 0, readback, 0, bytes);
  if (timestamps) {
    wgpuCommandEncoderResolveQuerySet(encoder, queries, 0, 2, resolve, 0);
    wgpuCommandEncoderCopyBufferToBuffer(encoder, resolve, 0, stamps, 0, WGPU_WHOLE_SIZE);
  }
  WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, nullptr);
  wgpuCommandEncoderRelease(encoder);
  const uint64_t first = native::submit(queue, commands);
  wgpuCommandBufferRelease(commands);
  check(first == 1, "the first submission index is " + std::to_string(first));
  native::poll_until(device, first);
  native::poll_until(device, first);  // done already: returns at once

  // A second submission, through plain wgpuQueueSubmit and the indexed one.
  WGPUCommandEncoder empty = wgpuDeviceCreateCommandEncoder(device, nullptr);
  WGPUCommandBuffer nothing = wgpuCommandEncoderFinish(empty, nullptr);
  wgpuQueueSubmit(queue, 1, &nothing);
  wgpuCommandBufferRelease(nothing);
  wgpuCommandEncoderRelease(empty);
  empty = wgpuDeviceCreateCommandEncoder(device, nullptr);
  nothing = wgpuCommandEncoderFinish(empty, nullptr);
  const uint64_t second = native::submit(queue, nothing);
  wgpuCommandBufferRelease(nothing);
  wgpuCommandEncoderRelease(empty);
  check(second == 2, "the second submission index is " + std::to_string(second));
  native::poll_until(device, second);

  // --- read back and check ---
  const std::vector<uint8_t> raw = read_back(instance, device, readback, bytes);
  std::vector<float> got(n);
  std::memcpy(got.data(), raw.data(), bytes);
  for (uint32_t i = 0; i < n; ++i) {
    const float want = values[i] * 3.0f + 1.0f;
    check(got[i] == want, "element " + std::to_string(i) + " is " + std::to_string(got[i]) + ", expected " +
                              std::to_string(want));
  }
  log("compute result verified (" + std::to_string(n) + " values)");
  if (timestamps) {
    const std::vector<uint8_t> t = read_back(instance, device, stamps, 16);
    uint64_t ticks[2];
    std::memcpy(ticks, t.data(), 16);
    check(ticks[1] >= ticks[0], "the pass ended before it began");
    log("timestamps: pass took " + std::to_string(ticks[1] - ticks[0]) + " ns");
  }

  // --- writing through a mapped range (gpu/upload_ring.h's staging): mapped
  // at creation, then mapped again for writing; each write lands in the copy ---
  WGPUBufferDescriptor staging_desc = WGPU_BUFFER_DESCRIPTOR_INIT;
  staging_desc.label = view("staging");
  staging_desc.size = 64;
  staging_desc.usage = WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc;
  staging_desc.mappedAtCreation = true;
  WGPUBuffer staging = wgpuDeviceCreateBuffer(device, &staging_desc);
  check(staging != nullptr, "no staging buffer");
  WGPUBuffer landed = make_buffer(device, "landed", 64, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
  for (uint8_t round = 1; round <= 2; ++round) {
    // Mapped again for writing, as the ring does after a copy.
    if (round == 2) map_and_wait(instance, device, staging, WGPUMapMode_Write, 64);
    auto* range = static_cast<uint8_t*>(wgpuBufferGetMappedRange(staging, 0, 64));
    check(range != nullptr, "wgpuBufferGetMappedRange returned NULL");
    for (uint8_t i = 0; i < 64; ++i) range[i] = uint8_t(i * round + 7);
    wgpuBufferUnmap(staging);
    WGPUCommandEncoder copy = wgpuDeviceCreateCommandEncoder(device, nullptr);
    wgpuCommandEncoderCopyBufferToBuffer(copy, staging, 0, landed, 0, 64);
    WGPUCommandBuffer copy_commands = wgpuCommandEncoderFinish(copy, nullptr);
    native::poll_until(device, native::submit(queue, copy_commands));
    wgpuCommandBufferRelease(copy_commands);
    wgpuCommandEncoderRelease(copy);
    const std::vector<uint8_t> back = read_back(instance, device, landed, 64);
    for (uint8_t i = 0; i < 64; ++i) {
      check(back[i] == uint8_t(i * round + 7), "mapped write " + std::to_string(round) + ": byte " +
                                                   std::to_string(i) + " is " + std::to_string(back[i]));
    }
  }
  wgpuBufferRelease(landed);
  wgpuBufferRelease(staging);
  log("writes through mapped ranges verified");

  // --- an error scope catches a deliberate validation error ---
  wgpuDevicePushErrorScope(device, WGPUErrorFilter_Validation);
  WGPUBufferDescriptor bad = WGPU_BUFFER_DESCRIPTOR_INIT;
  bad.size = 16;
  bad.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_Storage;  // MapRead goes with CopyDst only
  WGPUBuffer invalid = wgpuDeviceCreateBuffer(device, &bad);
  const ScopeResult caught = pop_scope(instance, device);
  check(caught.type == WGPUErrorType_Validation, "the error scope caught type " + std::to_string(caught.type));
  check(!caught.message.empty(), "the validation error has no message");
  log("error scope caught: " + caught.message.substr(0, 80));
  wgpuBufferRelease(invalid);
  check(events.errors == 0, "an uncaptured error: " + events.error_message);

  // --- the same mistake outside a scope reaches the uncaptured-error callback ---
  WGPUBuffer invalid2 = wgpuDeviceCreateBuffer(device, &bad);
  for (int i = 0; events.errors == 0; ++i) {
    check(i < 1000, "the uncaptured error never came");
    native::poll(device, false);
  }
  check(events.error_type == WGPUErrorType_Validation && events.error_device == device,
        "the uncaptured error came with the wrong type or device");
  wgpuBufferRelease(invalid2);

  // --- C++ exceptions across the suspending calls ---
  bool unwound = false;
  try {
    struct Guard {
      bool* flag;
      ~Guard() { *flag = true; }
    } guard{&unwound};
    native::poll(device, true);
    throw Failure("thrown after a poll");
  } catch (const Failure& e) {
    check(unwound && std::string(e.what()) == "thrown after a poll", "the exception after a poll");
  }
  // Thrown by a callback that a poll fires: it passes through the JS library to here.
  ScopeResult ignored;
  WGPUPopErrorScopeCallbackInfo throwing = scope_callback(&ignored);
  throwing.callback = [](WGPUPopErrorScopeStatus, WGPUErrorType, WGPUStringView, void*, void*) {
    throw std::runtime_error("thrown from a callback");
  };
  wgpuDevicePushErrorScope(device, WGPUErrorFilter_Validation);
  wgpuDevicePopErrorScope(device, throwing);
  bool from_callback = false;
  for (int i = 0; !from_callback; ++i) {
    check(i < 1000, "the throwing callback never fired");
    try {
      wgpuInstanceProcessEvents(instance);
    } catch (const std::runtime_error& e) {
      from_callback = std::string(e.what()) == "thrown from a callback";
    }
  }
  native::poll(device, true);  // still working after that
  log("exceptions passed through polls and callbacks");

  // --- losing the device: Destroy, the lost callback fires by itself ---
  wgpuBufferDestroy(input);
  wgpuBufferDestroy(output);
  wgpuBufferDestroy(readback);
  for (WGPUBuffer b : {input, output, readback, resolve, stamps}) {
    if (b) wgpuBufferRelease(b);
  }
  if (queries) wgpuQuerySetRelease(queries);
  wgpuBindGroupRelease(group);
  wgpuComputePipelineRelease(pipeline);
  wgpuShaderModuleRelease(module);
  wgpuDeviceDestroy(device);
  process_until(instance, [&] { return events.lost > 0; }, "the device-lost callback");
  check(events.lost_reason == WGPUDeviceLostReason_Destroyed && events.lost_device == device,
        "the lost callback came with the wrong reason or device");
  wgpuQueueRelease(queue);
  wgpuDeviceRelease(device);
  wgpuAdapterRelease(adapter);
  wgpuInstanceProcessEvents(instance);
  check(events.lost == 1, "the lost callback fired " + std::to_string(events.lost) + " times");
  wgpuInstanceRelease(instance);
}

}  // namespace

int main() {
  std::string result = "pass";
  try {
    run();
  } catch (const std::exception& e) {
    result = std::string("fail: ") + e.what();
  }
  std::printf("smoke: %s\n", result.c_str());
  EM_ASM({ if (typeof document != 'undefined') document.title = UTF8ToString($0); }, result.c_str());
  return 0;
}
