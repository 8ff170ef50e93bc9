// Mapping a buffer asynchronously once the submit that last used it is
// done: the request and the wait shared by the readback and upload rings.
#pragma once

#include <cstdint>
#include <string>

namespace wgrt::gpu {

class Buffer;
class Device;

// One map request's outcome, written by its callback. Keep it at a stable
// address until the request is answered.
struct MapRequest {
  uint64_t submission = 0;  // the submit the buffer's last use went in
  bool done = false;        // answered (mapped or refused)
  bool ok = false;
  std::string message;      // why the map was refused

  // Asks for `bytes` of `buffer` mapped for reading (or writing) once
  // `submission` is done. An injected BufferMap failure answers at once.
  void request(Device& device, const Buffer& buffer, bool for_writing, uint64_t bytes, uint64_t after_submission);
  // Blocks until answered; throws what the device reported (a lost device).
  void wait(Device& device);
};

}  // namespace wgrt::gpu
