// Compile-time checks of the wasm32 layout of webgpu.h that the JavaScript
// library (src/gpu/web/webgpu_support.js, webgpu_library.js) reads and
// writes by hand. Every number here must equal the $wgrtLayout table in
// webgpu_support.js (same names): a webgpu.h that moves a field or renumbers
// an enum then fails the web build instead of corrupting memory. Compiled
// only in the web build (it asserts wasm32 sizes); it defines nothing.
#include <webgpu.h>
#include <wgpu.h>  // WGPUNativeFeature_Subgroup, which the JS maps to 'subgroups'

#include <cstddef>

static_assert(sizeof(void*) == 4 && sizeof(size_t) == 4, "the JS library reads wasm32 structs");

// AT: a field's offset. FIELD: its offset and size. SIZE: a struct's size.
#define AT(S, f, n) static_assert(offsetof(WGPU##S, f) == (n), "webgpu_support.js $wgrtLayout." #S "." #f)
#define FIELD(S, f, n, bytes) \
  AT(S, f, n);                \
  static_assert(sizeof(WGPU##S::f) == (bytes), "webgpu_support.js $wgrtLayout." #S "." #f " size")
#define SIZE(S, n) static_assert(sizeof(WGPU##S) == (n), "webgpu_support.js $wgrtLayout." #S ".sizeof")
#define VALUE(e, n) static_assert(e == (n), "webgpu_support.js $wgrtLayout: " #e)

// Types as the JS reads them: enums and WGPUBool as uint32, flags as uint64.
static_assert(sizeof(WGPUBool) == 4 && sizeof(WGPUSType) == 4 && sizeof(WGPUCallbackMode) == 4);
static_assert(sizeof(WGPUBufferUsage) == 8 && sizeof(WGPUMapMode) == 8);
static_assert(sizeof(WGPUFeatureName) == 4 && sizeof(WGPUErrorFilter) == 4 && sizeof(WGPUQueryType) == 4);

FIELD(StringView, data, 0, 4);
FIELD(StringView, length, 4, 4);
SIZE(StringView, 8);
AT(ChainedStruct, next, 0);
AT(ChainedStruct, sType, 4);

// CallbackInfo: the same layout for every callback info with a mode.
#define CALLBACK_INFO(S) \
  AT(S, mode, 4);        \
  AT(S, callback, 8);    \
  AT(S, userdata1, 12);  \
  AT(S, userdata2, 16)
CALLBACK_INFO(RequestAdapterCallbackInfo);
CALLBACK_INFO(RequestDeviceCallbackInfo);
CALLBACK_INFO(BufferMapCallbackInfo);
CALLBACK_INFO(PopErrorScopeCallbackInfo);
CALLBACK_INFO(DeviceLostCallbackInfo);
AT(UncapturedErrorCallbackInfo, callback, 4);
AT(UncapturedErrorCallbackInfo, userdata1, 8);
AT(UncapturedErrorCallbackInfo, userdata2, 12);

AT(InstanceDescriptor, requiredFeatureCount, 4);
AT(RequestAdapterOptions, powerPreference, 8);
AT(RequestAdapterOptions, forceFallbackAdapter, 12);

AT(AdapterInfo, vendor, 4);
AT(AdapterInfo, architecture, 12);
AT(AdapterInfo, device, 20);
AT(AdapterInfo, description, 28);
AT(AdapterInfo, backendType, 36);
AT(AdapterInfo, adapterType, 40);
AT(AdapterInfo, vendorID, 44);
AT(AdapterInfo, deviceID, 48);
AT(AdapterInfo, subgroupMinSize, 52);
AT(AdapterInfo, subgroupMaxSize, 56);
SIZE(AdapterInfo, 60);

// Limits: [name, offset, bytes] in the JS; the size catches a field added at the end.
FIELD(Limits, maxTextureDimension1D, 4, 4);
FIELD(Limits, maxTextureDimension2D, 8, 4);
FIELD(Limits, maxTextureDimension3D, 12, 4);
FIELD(Limits, maxTextureArrayLayers, 16, 4);
FIELD(Limits, maxBindGroups, 20, 4);
FIELD(Limits, maxBindGroupsPlusVertexBuffers, 24, 4);
FIELD(Limits, maxBindingsPerBindGroup, 28, 4);
FIELD(Limits, maxDynamicUniformBuffersPerPipelineLayout, 32, 4);
FIELD(Limits, maxDynamicStorageBuffersPerPipelineLayout, 36, 4);
FIELD(Limits, maxSampledTexturesPerShaderStage, 40, 4);
FIELD(Limits, maxSamplersPerShaderStage, 44, 4);
FIELD(Limits, maxStorageBuffersPerShaderStage, 48, 4);
FIELD(Limits, maxStorageTexturesPerShaderStage, 52, 4);
FIELD(Limits, maxUniformBuffersPerShaderStage, 56, 4);
FIELD(Limits, maxUniformBufferBindingSize, 64, 8);
FIELD(Limits, maxStorageBufferBindingSize, 72, 8);
FIELD(Limits, minUniformBufferOffsetAlignment, 80, 4);
FIELD(Limits, minStorageBufferOffsetAlignment, 84, 4);
FIELD(Limits, maxVertexBuffers, 88, 4);
FIELD(Limits, maxBufferSize, 96, 8);
FIELD(Limits, maxVertexAttributes, 104, 4);
FIELD(Limits, maxVertexBufferArrayStride, 108, 4);
FIELD(Limits, maxInterStageShaderVariables, 112, 4);
FIELD(Limits, maxColorAttachments, 116, 4);
FIELD(Limits, maxColorAttachmentBytesPerSample, 120, 4);
FIELD(Limits, maxComputeWorkgroupStorageSize, 124, 4);
FIELD(Limits, maxComputeInvocationsPerWorkgroup, 128, 4);
FIELD(Limits, maxComputeWorkgroupSizeX, 132, 4);
FIELD(Limits, maxComputeWorkgroupSizeY, 136, 4);
FIELD(Limits, maxComputeWorkgroupSizeZ, 140, 4);
FIELD(Limits, maxComputeWorkgroupsPerDimension, 144, 4);
FIELD(Limits, maxImmediateSize, 148, 4);
SIZE(Limits, 152);

AT(DeviceDescriptor, label, 4);
AT(DeviceDescriptor, requiredFeatureCount, 12);
AT(DeviceDescriptor, requiredFeatures, 16);
AT(DeviceDescriptor, requiredLimits, 20);
AT(DeviceDescriptor, defaultQueue, 24);
AT(DeviceDescriptor, deviceLostCallbackInfo, 36);
AT(DeviceDescriptor, uncapturedErrorCallbackInfo, 56);
static_assert(sizeof(WGPUFeatureName) == 4, "requiredFeatures: 4 bytes each");

// LabelOnlyDescriptor
AT(QueueDescriptor, label, 4);
AT(CommandEncoderDescriptor, label, 4);
AT(CommandBufferDescriptor, label, 4);
AT(ShaderModuleDescriptor, nextInChain, 0);
AT(ShaderModuleDescriptor, label, 4);

AT(BufferDescriptor, label, 4);
FIELD(BufferDescriptor, usage, 16, 8);
FIELD(BufferDescriptor, size, 24, 8);
AT(BufferDescriptor, mappedAtCreation, 32);

AT(BindGroupDescriptor, label, 4);
AT(BindGroupDescriptor, layout, 12);
AT(BindGroupDescriptor, entryCount, 16);
AT(BindGroupDescriptor, entries, 20);
AT(BindGroupEntry, binding, 4);
AT(BindGroupEntry, buffer, 8);
FIELD(BindGroupEntry, offset, 16, 8);
FIELD(BindGroupEntry, size, 24, 8);
AT(BindGroupEntry, sampler, 32);
AT(BindGroupEntry, textureView, 36);
SIZE(BindGroupEntry, 40);

AT(ComputePipelineDescriptor, label, 4);
AT(ComputePipelineDescriptor, layout, 12);
AT(ComputePipelineDescriptor, compute, 16);
AT(ComputeState, module, 4);
AT(ComputeState, entryPoint, 8);
AT(ComputeState, constantCount, 16);
AT(ComputeState, constants, 20);
AT(ConstantEntry, key, 4);
FIELD(ConstantEntry, value, 16, 8);
SIZE(ConstantEntry, 24);

AT(QuerySetDescriptor, label, 4);
AT(QuerySetDescriptor, type, 12);
AT(QuerySetDescriptor, count, 16);
AT(ComputePassDescriptor, label, 4);
AT(ComputePassDescriptor, timestampWrites, 12);
AT(PassTimestampWrites, querySet, 4);
AT(PassTimestampWrites, beginningOfPassWriteIndex, 8);
AT(PassTimestampWrites, endOfPassWriteIndex, 12);
AT(ShaderSourceWGSL, chain, 0);
AT(ShaderSourceWGSL, code, 8);

// Enum values.
VALUE(WGPUSType_ShaderSourceWGSL, 2);
VALUE(WGPUCallbackMode_AllowProcessEvents, 2);
VALUE(WGPUCallbackMode_AllowSpontaneous, 3);
VALUE(WGPUStatus_Success, 1);
VALUE(WGPURequestAdapterStatus_Success, 1);
VALUE(WGPURequestAdapterStatus_Unavailable, 3);
VALUE(WGPURequestAdapterStatus_Error, 4);
VALUE(WGPURequestDeviceStatus_Success, 1);
VALUE(WGPURequestDeviceStatus_Error, 3);
VALUE(WGPUMapAsyncStatus_Success, 1);
VALUE(WGPUMapAsyncStatus_Error, 3);
VALUE(WGPUMapAsyncStatus_Aborted, 4);
VALUE(WGPUPopErrorScopeStatus_Success, 1);
VALUE(WGPUPopErrorScopeStatus_Error, 3);
VALUE(WGPUErrorType_NoError, 1);
VALUE(WGPUErrorType_Validation, 2);
VALUE(WGPUErrorType_OutOfMemory, 3);
VALUE(WGPUErrorType_Internal, 4);
VALUE(WGPUErrorType_Unknown, 5);
VALUE(WGPUDeviceLostReason_Unknown, 1);
VALUE(WGPUDeviceLostReason_Destroyed, 2);
VALUE(WGPUDeviceLostReason_FailedCreation, 4);
VALUE(WGPUPowerPreference_LowPower, 1);
VALUE(WGPUPowerPreference_HighPerformance, 2);
VALUE(WGPUBackendType_WebGPU, 2);
VALUE(WGPUAdapterType_Unknown, 4);
VALUE(WGPUErrorFilter_Validation, 1);
VALUE(WGPUErrorFilter_OutOfMemory, 2);
VALUE(WGPUErrorFilter_Internal, 3);
VALUE(WGPUQueryType_Occlusion, 1);
VALUE(WGPUQueryType_Timestamp, 2);
VALUE(WGPUFeatureName_CoreFeaturesAndLimits, 0x01);
VALUE(WGPUFeatureName_DepthClipControl, 0x02);
VALUE(WGPUFeatureName_Depth32FloatStencil8, 0x03);
VALUE(WGPUFeatureName_TextureCompressionBC, 0x04);
VALUE(WGPUFeatureName_TextureCompressionBCSliced3D, 0x05);
VALUE(WGPUFeatureName_TextureCompressionETC2, 0x06);
VALUE(WGPUFeatureName_TextureCompressionASTC, 0x07);
VALUE(WGPUFeatureName_TextureCompressionASTCSliced3D, 0x08);
VALUE(WGPUFeatureName_TimestampQuery, 0x09);
VALUE(WGPUFeatureName_IndirectFirstInstance, 0x0A);
VALUE(WGPUFeatureName_ShaderF16, 0x0B);
VALUE(WGPUFeatureName_RG11B10UfloatRenderable, 0x0C);
VALUE(WGPUFeatureName_BGRA8UnormStorage, 0x0D);
VALUE(WGPUFeatureName_Float32Filterable, 0x0E);
VALUE(WGPUFeatureName_Float32Blendable, 0x0F);
VALUE(WGPUFeatureName_ClipDistances, 0x10);
VALUE(WGPUFeatureName_DualSourceBlending, 0x11);
VALUE(WGPUFeatureName_Subgroups, 0x12);
VALUE(WGPUFeatureName_TextureFormatsTier1, 0x13);
VALUE(WGPUFeatureName_TextureFormatsTier2, 0x14);
VALUE(WGPUFeatureName_PrimitiveIndex, 0x15);
VALUE(WGPUFeatureName_TextureComponentSwizzle, 0x16);
VALUE(WGPUNativeFeature_Subgroup, 0x30021);
// Passed through unchanged: the same bits as WebGPU's GPUBufferUsage and GPUMapMode.
VALUE(WGPUBufferUsage_MapRead, 0x1);
VALUE(WGPUBufferUsage_MapWrite, 0x2);
VALUE(WGPUBufferUsage_CopySrc, 0x4);
VALUE(WGPUBufferUsage_CopyDst, 0x8);
VALUE(WGPUBufferUsage_Index, 0x10);
VALUE(WGPUBufferUsage_Vertex, 0x20);
VALUE(WGPUBufferUsage_Uniform, 0x40);
VALUE(WGPUBufferUsage_Storage, 0x80);
VALUE(WGPUBufferUsage_Indirect, 0x100);
VALUE(WGPUBufferUsage_QueryResolve, 0x200);
VALUE(WGPUMapMode_Read, 0x1);
VALUE(WGPUMapMode_Write, 0x2);
// Sentinels the JS compares against.
VALUE(WGPU_STRLEN, 0xFFFFFFFFu);
VALUE(WGPU_WHOLE_MAP_SIZE, 0xFFFFFFFFu);
VALUE(WGPU_WHOLE_SIZE, 0xFFFFFFFFFFFFFFFFull);
VALUE(WGPU_LIMIT_U32_UNDEFINED, 0xFFFFFFFFu);
VALUE(WGPU_LIMIT_U64_UNDEFINED, 0xFFFFFFFFFFFFFFFFull);
VALUE(WGPU_QUERY_SET_INDEX_UNDEFINED, 0xFFFFFFFFu);
