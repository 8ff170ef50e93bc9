// A ring of mapped staging buffers that host threads fill in place, each
// then copied into its destination by the GPU: an upload without
// wgpuQueueWriteBuffer's copy of every byte into the queue's own staging
// (4.4 GB at ~5 GB/s is ~0.9 s of one thread for an 8B model).
//
// A slot is mapped (at creation, and again once its copy is done), filled
// on the host, then unmapped and its copy submitted. acquire() waits for
// that slot's copy only, never for the copies queued after it, so the GPU
// copies some slots while the host fills others.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/buffer_map.h"

namespace wgrt::gpu {

class Device;

class UploadRing {
 public:
  // `slots` buffers of `bytes` each (rounded up to 4), made once.
  UploadRing(Device& device, size_t slots, uint64_t bytes);
  // Waits for the copies still in flight.
  ~UploadRing();
  UploadRing(const UploadRing&) = delete;
  UploadRing& operator=(const UploadRing&) = delete;

  uint64_t slot_bytes() const { return bytes_; }

  struct Staging {
    size_t slot = 0;
    std::span<uint8_t> bytes;  // the slot's mapped memory, slot_bytes() long
  };
  // The next slot, once its previous copy is done; several may be held at
  // once (fewer than slots()). Throws what the device reported (a lost
  // device, a failed map).
  Staging acquire();
  // Copies the first `bytes` of a held slot into `dst` from `offset` (a
  // multiple of 4; a tail short of 4 bytes is padded with zeros) in a submit
  // of its own, and releases the slot.
  void commit(const Staging& staging, uint64_t bytes, const Buffer& dst, uint64_t offset);
  // Gives a held slot back without copying it (an error while filling it).
  void abandon(const Staging& staging);
  // Waits until every committed copy is done; throws as acquire() does.
  void finish();

 private:
  struct Slot {
    Buffer buffer;
    bool held = false;     // acquired, not yet committed
    bool mapping = false;  // its copy submitted, the map requested
    MapRequest map;
  };
  // Waits for a slot's map request and throws if it failed.
  void wait_mapped(Slot& s);

  Device& device_;
  uint64_t bytes_;
  std::vector<std::unique_ptr<Slot>> slots_;  // stable addresses for map callbacks
  size_t next_ = 0;
};

}  // namespace wgrt::gpu
