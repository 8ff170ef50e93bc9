#include "gpu/buffer_map.h"

#include <webgpu.h>

#include "gpu/buffer.h"
#include "gpu/device.h"
#include "gpu/native.h"
#include "gpu/webgpu_util.h"

namespace wgrt::gpu {

void MapRequest::request(Device& device, const Buffer& buffer, bool for_writing, uint64_t bytes,
                         uint64_t after_submission) {
  submission = after_submission;
  done = false;
  ok = false;
  message.clear();
  if (device.consume_injected_failure(Device::Site::BufferMap)) {
    done = true;  // refused at once, as a failed map reports
    message = "injected failure (test hook)";
    return;
  }
  WGPUBufferMapCallbackInfo cb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.userdata1 = this;
  cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView text, void* ud, void*) {
    auto* r = static_cast<MapRequest*>(ud);
    r->ok = status == WGPUMapAsyncStatus_Success;
    r->message = to_string(text);
    r->done = true;
  };
  wgpuBufferMapAsync(buffer.raw(), for_writing ? WGPUMapMode_Write : WGPUMapMode_Read, 0, bytes, cb);
}

void MapRequest::wait(Device& device) {
  while (!done) {
    native::poll_until(device.raw(), submission);
    wgpuInstanceProcessEvents(device.instance());
    device.check_errors();  // a lost device ends the wait with an error
  }
}

}  // namespace wgrt::gpu
