// The one place that releases WebGPU objects (see handle.h).
#include "gpu/handle.h"

#include <webgpu.h>

namespace wgrt::gpu {

void release(WGPUInstance h) { wgpuInstanceRelease(h); }
void release(WGPUAdapter h) { wgpuAdapterRelease(h); }
void release(WGPUDevice h) { wgpuDeviceRelease(h); }
void release(WGPUQueue h) { wgpuQueueRelease(h); }
void release(WGPUBuffer h) { wgpuBufferRelease(h); }
void release(WGPUComputePipeline h) { wgpuComputePipelineRelease(h); }
void release(WGPUBindGroup h) { wgpuBindGroupRelease(h); }
void release(WGPUBindGroupLayout h) { wgpuBindGroupLayoutRelease(h); }
void release(WGPUShaderModule h) { wgpuShaderModuleRelease(h); }
void release(WGPUQuerySet h) { wgpuQuerySetRelease(h); }
void release(WGPUCommandEncoder h) { wgpuCommandEncoderRelease(h); }
void release(WGPUCommandBuffer h) { wgpuCommandBufferRelease(h); }
void release(WGPUComputePassEncoder h) { wgpuComputePassEncoderRelease(h); }

void add_ref(WGPUBuffer h) { wgpuBufferAddRef(h); }
void add_ref(WGPUComputePipeline h) { wgpuComputePipelineAddRef(h); }
void add_ref(WGPUBindGroup h) { wgpuBindGroupAddRef(h); }
void add_ref(WGPUShaderModule h) { wgpuShaderModuleAddRef(h); }

}  // namespace wgrt::gpu
