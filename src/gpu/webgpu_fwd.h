// Opaque WebGPU handle types, so that headers outside gpu/ never include webgpu.h.
// The typedefs match webgpu.h's own, so the two headers can meet in gpu/*.cpp.
#pragma once

typedef struct WGPUInstanceImpl* WGPUInstance;
typedef struct WGPUAdapterImpl* WGPUAdapter;
typedef struct WGPUDeviceImpl* WGPUDevice;
typedef struct WGPUQueueImpl* WGPUQueue;
typedef struct WGPUBufferImpl* WGPUBuffer;
typedef struct WGPUComputePipelineImpl* WGPUComputePipeline;
typedef struct WGPUBindGroupImpl* WGPUBindGroup;
typedef struct WGPUBindGroupLayoutImpl* WGPUBindGroupLayout;
typedef struct WGPUShaderModuleImpl* WGPUShaderModule;
typedef struct WGPUQuerySetImpl* WGPUQuerySet;
typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;
typedef struct WGPUCommandBufferImpl* WGPUCommandBuffer;
typedef struct WGPUComputePassEncoderImpl* WGPUComputePassEncoder;
